"""The job's knobs, resolved once: each one's default and each check live here, and nowhere else (standard library
only). docs/knobs.md says what each knob does; the job script hands over the values the user set and gets back
every knob with its default applied, or one line that names the bad knob, its value and a valid example."""

import difflib
import re
import secrets
import shutil
from typing import Callable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from app.host.common.errors import UsageError
from app.host.common.rendezvous_port import PORT_HIGH, PORT_LOW, free_port


class JobContext(NamedTuple):
    """What the scheduler said about the job, which some defaults derive from."""

    job_id: str
    submit_dir: str
    nnodes: str


#: Each knob and its default, computed from the job's facts and the values the user set (an empty value counts
#: as unset, as bash's ${NAME:-default}). A site's defaults (mn5's FABRIC=infiniband, app/host/launch/sites.py)
#: arrive as set.
DEFAULTS = (
    ("IMAGE", lambda facts, given: facts.submit_dir + "/app.sif"),
    ("IMAGE_VERIFY", lambda facts, given: "auto"),
    ("IMAGE_NO_HTTPS", lambda facts, given: "0"),
    ("IMAGE_CACHE", lambda facts, given: ""),
    ("APPTAINER", lambda facts, given: "apptainer"),
    ("APPTAINER_ARGS", lambda facts, given: ""),
    ("BINDS", lambda facts, given: ""),
    ("EXTRA_ENV", lambda facts, given: ""),
    ("CONFIG", lambda facts, given: "demo"),
    ("CHECK_SITE", lambda facts, given: ""),
    ("RUN_DIR", lambda facts, given: facts.submit_dir + "/runs/" + facts.job_id),
    ("RUN_DIR_MODE", lambda facts, given: "700"),
    ("GPUS_PER_NODE", lambda facts, given: ""),
    ("RDZV_HOST", lambda facts, given: ""),
    ("RDZV_IFACES", lambda facts, given: "ib0 hsn0"),
    # One nothing listens on, at random, at each job start (the policy: app/host/common/rendezvous_port.py)
    ("RDZV_PORT", lambda facts, given: str(free_port(given.get("DDP_PROBE_ROOT", "")))),
    ("RDZV_JOIN_TIMEOUT_S", lambda facts, given: "300"),
    ("SHUTDOWN_TIMEOUT_S", lambda facts, given: "60"),
    ("FABRIC", lambda facts, given: "auto"),
    ("LAUNCH", lambda facts, given: "torchrun"),
    ("LAUNCH_CHECK", lambda facts, given: "1"),
    ("REQUEUE", lambda facts, given: "1"),
    ("PREFLIGHT", lambda facts, given: "1"),
    ("MAX_REQUEUES", lambda facts, given: "3"),
    ("DRY_RUN", lambda facts, given: "0"),
    ("DDP_PROBE_ROOT", lambda facts, given: ""),
)  # type: Tuple[Tuple[str, Callable[[JobContext, Mapping[str, str]], str]], ...]

#: Grace between the SIGTERM to the workers and SIGKILL: time to finish a step and write a snapshot (torch's
#: default is 30 s). The node wrapper signals the workers itself and torchrun only after this grace, so it holds
#: with any torch; torchrun >= 2.12 also reads it (pytorch PR #172596), and an older one ignores it instead of
#: failing on an unknown flag. Exported before any step starts: pbsdsh's tasks get the environment a step starts
#: with (app/host/launch/pbsdsh.py), not the step command's.
SHUTDOWN_GRACE = "TORCH_ELASTIC_SHUTDOWN_TIMEOUT"
#: The rendezvous store has no authentication, and the job id, the nodes, the port and every key name are public
#: (any client lists the keys): this secret is what another user lacks. Made here at job start and exported: the
#: launchers pass the environment on to every node, where the ranks seal every store value with it (an HMAC,
#: app/common/signed_store.py). Never in argv (`ps` shows every user's argv), a key name, a file name nor a log line.
STORE_SECRET = "DDP_STORE_SECRET"
#: Every name the job script hands over when the user (or the script) set it
NAMES = (*(name for name, _ in DEFAULTS), SHUTDOWN_GRACE, STORE_SECRET)

_WHOLE = re.compile(r"[0-9]+")
_PAIR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SECRET = re.compile(r"[A-Za-z0-9._-]{16,}")


class Knobs(NamedTuple):
    """One job's knobs, every default applied and every value checked: what the job script assigns (`values`,
    in DEFAULTS' order, then DDP_STOP_FILE) and what every process of the job gets in its environment
    (`exported`, in order: a later one wins)."""

    values: Tuple[Tuple[str, str], ...]
    exported: Tuple[Tuple[str, str], ...]

    def value(self, name: str) -> str:
        return dict(self.values + self.exported)[name]


def extra_env(text: str) -> List[Tuple[str, str]]:
    """EXTRA_ENV's K=V items, split on blanks (as bash's `read -a`), each checked."""
    pairs = []
    for item in re.split(r"[ \t\n]+", text.strip(" \t\n")) if text.strip(" \t\n") else []:
        if not _PAIR.match(item):
            raise UsageError(f"EXTRA_ENV item '{item}' is not K=V; example: EXTRA_ENV='NCCL_DEBUG=INFO'")
        name, value = item.split("=", 1)
        # Exported here, on the batch host, for the launcher to pass on: a PATH without the system's directories
        # leaves the job's own commands (sh, srun, apptainer) unfound before any rank starts
        if name == "PATH" and shutil.which("sh", path=value) is None:
            raise UsageError(f"EXTRA_ENV item '{item}' is the PATH of the job's own commands too (sh, srun, apptainer) "
                             f"and holds no sh: keep the system's directories on it, e.g. EXTRA_ENV='PATH={value}:"
                             "/usr/local/bin:/usr/bin:/bin'")
        pairs.append((name, value))
    return pairs


#: The knobs that are whole numbers, each with a value that works as the example of its remedy
WHOLE_EXAMPLES = {"DDP_NNODES": "2", "RDZV_PORT": "29500", "RDZV_JOIN_TIMEOUT_S": "600", "SHUTDOWN_TIMEOUT_S": "60",
                  "MAX_REQUEUES": "3"}


#: The knobs that are 0 or 1, each with the value that changes what the job does and what it then does: the
#: example of its remedy. Nothing else is taken: a `yes` or `true` read as 0 would skip a requeue or a check, or
#: (DRY_RUN) run a job that was meant to be planned only.
SWITCHES = {"DRY_RUN": ("1", "print the plan, run nothing"),
            "PREFLIGHT": ("0", "no check before training"),
            "LAUNCH_CHECK": ("0", "no check that one launcher runs on every node"),
            "REQUEUE": ("0", "exit 75 after a snapshot, and resubmit yourself"),
            "IMAGE_NO_HTTPS": ("1", "a registry on plain http")}


def switch(name: str, value: str) -> bool:
    """A 0/1 knob's VALUE as a bool; anything else raises UsageError with the example of SWITCHES."""
    if value not in ("0", "1"):
        example, meaning = SWITCHES[name]
        raise UsageError(f"{name}={value} is not 0 or 1; example: {name}={example} ({meaning})")
    return value == "1"


def check_site(value: str, profiles: Sequence[str]) -> None:
    """CHECK_SITE: empty (no profile), a file of your own (a path with a `/` or ending .yaml, as app.check takes it:
    app/check/options.py, site_file) or one of app.check's PROFILES; a name it lacks raises UsageError on the head
    node, before any step, instead of stopping the check on every node."""
    if not value or "/" in value or value.endswith((".yaml", ".yml")) or value in profiles:
        return
    close = difflib.get_close_matches(value, profiles, n=1)
    remedy = f"did you mean CHECK_SITE={close[0]}?" if close else f"example: CHECK_SITE={profiles[0]}"
    raise UsageError(f"CHECK_SITE={value} is not one of app.check's profiles ({', '.join(profiles)} in "
                     f"app/check/sites/); {remedy} (a file of your own: CHECK_SITE=./my-site.yaml; no profile: "
                     "CHECK_SITE=)")


def resolve(facts: JobContext, given: Mapping[str, str], log: Callable[[str], None],
            new_secret: Optional[Callable[[], str]] = None) -> Knobs:
    """Every knob of the job from the values the user set (`given`, NAME -> value, only the ones set), its log
    lines through `log`; a bad value raises UsageError with the knob, its value and an example."""
    values = {}  # type: Dict[str, str]
    for name, default in DEFAULTS:
        values[name] = given.get(name) or default(facts, given)
    # A relative RUN_DIR (the resume line RUN_DIR=runs/<old jobid>) means the submit directory's: every node,
    # pbsdsh's tasks (started in $HOME) and the image's bind (Apptainer refuses a relative one) see one path
    if len(values["RUN_DIR"]) > 1 and values["RUN_DIR"].endswith("/"):
        raise UsageError(f"RUN_DIR={values['RUN_DIR']} ends in /: a variable in it was empty where you typed it (a "
                         "login node has no $SLURM_JOB_ID), and every job would share, and resume from, that one "
                         "directory; name the experiment, example: RUN_DIR=$HOME/runs/exp1 (or give your directory "
                         "without the last /)")
    if not values["RUN_DIR"].startswith("/"):
        values["RUN_DIR"] = facts.submit_dir + "/" + values["RUN_DIR"]
    for name, value in (("DDP_NNODES", facts.nnodes), *((n, values[n]) for n in WHOLE_EXAMPLES if n != "DDP_NNODES")):
        if not _WHOLE.fullmatch(value):
            raise UsageError(f"{name}={value} is not a whole number; example: {name}={WHOLE_EXAMPLES[name]}")
    if not 1 <= int(values["RDZV_PORT"]) <= 65535:
        raise UsageError(f"RDZV_PORT={values['RDZV_PORT']} is not a TCP port (1-65535); example: RDZV_PORT=29500, or "
                         f"leave it unset: the job picks a free one in {PORT_LOW}-{PORT_HIGH - 1}")
    if values["RUN_DIR_MODE"] not in ("700", "750"):
        raise UsageError(f"RUN_DIR_MODE={values['RUN_DIR_MODE']} is not 700 or 750 (no one but you may write the run "
                         "directory); example: RUN_DIR_MODE=750 (your group may read it)")
    if values["IMAGE_VERIFY"] not in ("auto", "1", "0"):
        raise UsageError(f"IMAGE_VERIFY={values['IMAGE_VERIFY']} is not auto, 1 or 0; example: IMAGE_VERIFY=1 (the "
                         "signature of every image checked, a local file's too)")
    for name in SWITCHES:
        switch(name, values[name])
    exported = extra_env(values["EXTRA_ENV"])
    seen = dict(given, **dict(exported))
    if SHUTDOWN_GRACE in seen:
        log(f"keeping {SHUTDOWN_GRACE}={seen[SHUTDOWN_GRACE]} (set by you)")
    else:
        exported.append((SHUTDOWN_GRACE, values["SHUTDOWN_TIMEOUT_S"]))
        log(f"setting {SHUTDOWN_GRACE}={values['SHUTDOWN_TIMEOUT_S']} (grace for a preemption snapshot)")
    secret = given.get(STORE_SECRET, "")
    if secret:
        if not _SECRET.fullmatch(secret):
            raise UsageError(f"{STORE_SECRET} ({len(secret)} characters, not shown) must be 16 or more of A-Z a-z "
                             f"0-9 . _ -; example: {STORE_SECRET}=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \\n'), "
                             "or leave it unset for a fresh one")
        log(f"keeping {STORE_SECRET} (set by you; not shown)")
    else:
        secret = (new_secret or (lambda: secrets.token_hex(16)))()
    exported.append((STORE_SECRET, secret))
    # The trainer writes here; a user's own script can read it to put its snapshots in the same place
    exported.append(("RUN_DIR", values["RUN_DIR"]))
    # Preemption requests reach the nodes through this file on the shared filesystem (JobRun.step's stopping)
    values["DDP_STOP_FILE"] = values["RUN_DIR"] + "/.stop-requested"
    return Knobs(values=tuple(values.items()), exported=tuple(exported))
