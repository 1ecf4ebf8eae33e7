"""app/host/launch/knobs.py: each knob's default and check, resolved once into a frozen record, and how the job reads
the ones you set."""

from __future__ import annotations

import re

import pytest

from app.check.options import SITES_DIR
from app.host.common.errors import UsageError
from app.host.launch.checkout import check_profiles
from app.host.launch.knobs import DEFAULTS, NAMES, JobContext, check_site, resolve
from tests.host.launch.job_parts import job_parts
from tests.trainer_runs import REPO

FACTS = JobContext(job_id="42", submit_dir="/home/u/proj", nnodes="2")


def knobs(given: dict[str, str], facts: JobContext = FACTS) -> tuple[dict[str, str], dict[str, str], list[str]]:
    said: list[str] = []
    resolved = resolve(facts, {"RDZV_PORT": "29500", **given}, said.append, new_secret=lambda: "f" * 32)
    return dict(resolved.values), dict(resolved.exported), said


def test_the_defaults_derive_from_the_jobs_facts():
    values, exported, said = knobs({})
    assert values["IMAGE"] == "/home/u/proj/app.sif"
    assert values["RUN_DIR"] == exported["RUN_DIR"] == "/home/u/proj/runs/42"
    assert values["DDP_STOP_FILE"] == "/home/u/proj/runs/42/.stop-requested"
    assert (values["CONFIG"], values["RUN_DIR_MODE"], values["RDZV_IFACES"], values["MAX_REQUEUES"]) == (
        "demo", "700", "ib0 hsn0", "3")
    assert exported["TORCH_ELASTIC_SHUTDOWN_TIMEOUT"] == "60"
    assert said == ["setting TORCH_ELASTIC_SHUTDOWN_TIMEOUT=60 (grace for a preemption snapshot)"]


def test_yours_win_and_an_empty_one_counts_as_unset():
    values, _, _ = knobs({"CONFIG": "regression", "IMAGE": "", "FABRIC": "infiniband"})
    assert (values["CONFIG"], values["IMAGE"], values["FABRIC"]) == ("regression", "/home/u/proj/app.sif",
                                                                    "infiniband")


def test_a_relative_run_dir_is_the_submit_directorys_for_every_node_and_the_images_bind():
    values, exported, _ = knobs({"RUN_DIR": "runs/41"})
    assert values["RUN_DIR"] == exported["RUN_DIR"] == "/home/u/proj/runs/41"
    assert values["DDP_STOP_FILE"] == "/home/u/proj/runs/41/.stop-requested"


def test_the_port_is_a_free_one_at_random_unless_you_give_it():
    ports = {dict(resolve(FACTS, {}, print).values)["RDZV_PORT"] for _ in range(8)}
    assert len(ports) > 1 and all(20000 <= int(port) < 32768 for port in ports)


@pytest.mark.parametrize("name, value, message", [
    ("RDZV_PORT", "x", "RDZV_PORT=x is not a whole number; example: RDZV_PORT=29500"),
    ("RDZV_PORT", "99999", "RDZV_PORT=99999 is not a TCP port (1-65535); example: RDZV_PORT=29500, or leave it "
                           "unset: the job picks a free one in 20000-32767"),
    ("RDZV_PORT", "0", "RDZV_PORT=0 is not a TCP port (1-65535)"),
    ("MAX_REQUEUES", "-1", "MAX_REQUEUES=-1 is not a whole number"),
    ("SHUTDOWN_TIMEOUT_S", "\u00b2", "SHUTDOWN_TIMEOUT_S=\u00b2 is not a whole number"),  # a digit, not 0-9
    ("RUN_DIR_MODE", "777", "RUN_DIR_MODE=777 is not 700 or 750"),
    ("PREFLIGHT", "2", "PREFLIGHT=2 is not 0 or 1; example: PREFLIGHT=0"),
    ("IMAGE_VERIFY", "yes", "IMAGE_VERIFY=yes is not auto, 1 or 0; example: IMAGE_VERIFY=1"),
    ("IMAGE_NO_HTTPS", "true", "IMAGE_NO_HTTPS=true is not 0 or 1; example: IMAGE_NO_HTTPS=1"),
    ("REQUEUE", "yes", "REQUEUE=yes is not 0 or 1; example: REQUEUE=0 (exit 75 after a snapshot"),
    ("LAUNCH_CHECK", "yes", "LAUNCH_CHECK=yes is not 0 or 1; example: LAUNCH_CHECK=0"),
    ("DRY_RUN", "true", "DRY_RUN=true is not 0 or 1; example: DRY_RUN=1 (print the plan, run nothing)"),
    ("EXTRA_ENV", "NCCL_DEBUG=INFO oops", "EXTRA_ENV item 'oops' is not K=V; example: EXTRA_ENV='NCCL_DEBUG=INFO'"),
    ("EXTRA_ENV", "PATH=/opt/mytools/bin", "EXTRA_ENV item 'PATH=/opt/mytools/bin' is the PATH of the job's own "
                                           "commands too (sh, srun, apptainer) and holds no sh: keep the system's "
                                           "directories on it, e.g. EXTRA_ENV='PATH=/opt/mytools/bin:/usr/local/bin:"
                                           "/usr/bin:/bin'"),
    ("DDP_STORE_SECRET", "short", "DDP_STORE_SECRET (5 characters, not shown) must be 16 or more"),
    ("RUN_DIR", "/scratch/me/runs/", "RUN_DIR=/scratch/me/runs/ ends in /: a variable in it was empty where you "
                                     "typed it"),
])
def test_a_bad_knob_names_itself_its_value_and_an_example(name, value, message):
    with pytest.raises(UsageError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        knobs({name: value})


def test_the_launcher_knows_the_check_profiles_app_check_reads():
    """The launcher reads the names without importing app.check (Python 3.6, standard library only)."""
    assert check_profiles() == sorted(path.stem for path in SITES_DIR.glob("*.yaml"))
    assert {"mn5", "slingshot-gh200"} <= set(check_profiles())


@pytest.mark.parametrize("value", ["", "mn5", "slingshot-gh200", "./my-site.yaml", "/p/site.yml", "sites/x"])
def test_check_site_takes_a_profile_a_file_of_your_own_or_none(value):
    check_site(value, check_profiles())


def test_a_check_site_app_check_lacks_is_refused_with_the_nearest_name():
    with pytest.raises(UsageError) as raised:
        check_site("mn55", ["mn5", "slingshot-gh200"])
    assert str(raised.value) == (
        "CHECK_SITE=mn55 is not one of app.check's profiles (mn5, slingshot-gh200 in app/check/sites/); did you mean "
        "CHECK_SITE=mn5? (a file of your own: CHECK_SITE=./my-site.yaml; no profile: CHECK_SITE=)")
    with pytest.raises(UsageError, match=r"profiles \(mn5 in app/check/sites/\); example: CHECK_SITE=mn5 \("):
        check_site("leonardo", ["mn5"])


def test_the_node_count_is_checked_too():
    with pytest.raises(UsageError, match="DDP_NNODES=two is not a whole number"):
        knobs({}, FACTS._replace(nnodes="two"))


def test_extra_env_is_exported_and_a_grace_set_there_or_by_you_is_kept():
    _, exported, said = knobs({"EXTRA_ENV": "NCCL_DEBUG=INFO\tTORCH_ELASTIC_SHUTDOWN_TIMEOUT=5 A=x=y"})
    assert (exported["NCCL_DEBUG"], exported["TORCH_ELASTIC_SHUTDOWN_TIMEOUT"], exported["A"]) == ("INFO", "5", "x=y")
    assert said == ["keeping TORCH_ELASTIC_SHUTDOWN_TIMEOUT=5 (set by you)"]
    _, exported, said = knobs({"TORCH_ELASTIC_SHUTDOWN_TIMEOUT": ""})
    assert "TORCH_ELASTIC_SHUTDOWN_TIMEOUT" not in exported and said[0].startswith("keeping")


def test_a_fresh_secret_each_start_a_given_one_kept_and_neither_said():
    first, second = (dict(resolve(FACTS, {}, print).exported)["DDP_STORE_SECRET"] for _ in range(2))
    assert first != second and len(first) == 32 and int(first, 16) >= 0
    secret = "0123456789abcdef0123456789abcdef"
    _, exported, said = knobs({"DDP_STORE_SECRET": secret})
    assert exported["DDP_STORE_SECRET"] == secret and not [line for line in said if secret in line]


def test_the_record_is_frozen():
    resolved = resolve(FACTS, {"RDZV_PORT": "1"}, print)
    with pytest.raises(AttributeError):
        resolved.values = ()
    assert resolved.value("RDZV_PORT") == "1" and resolved.value("RUN_DIR") == "/home/u/proj/runs/42"


def test_a_bad_knob_you_set_stops_the_job_in_one_line_and_a_secret_you_set_is_read(tmp_path):
    """The job reads every knob of NAMES from its environment (DDP_STORE_SECRET among them: yours is kept)."""
    bad = job_parts([], {"PREFLIGHT": "yes"}, cwd=tmp_path, script="t.sh")
    assert (bad.returncode, bad.stderr) == (
        2, "t.sh: error: PREFLIGHT=yes is not 0 or 1; example: PREFLIGHT=0 (no check before training)\n")
    assert "DDP_STORE_SECRET" in NAMES
    kept = job_parts([], {"DDP_STORE_SECRET": "s" * 32}, cwd=tmp_path, script="t.sh")
    assert kept.env["DDP_STORE_SECRET"] == "s" * 32
    assert "keeping DDP_STORE_SECRET (set by you; not shown)" in kept.stdout


def test_docs_knobs_lists_every_knob_with_the_default_this_module_gives():
    """docs/knobs.md is what users read: each knob resolved here has its row, and a fixed default is shown as is
    (an empty one is worked out later, by the plan, which the row describes)."""
    rows = {}
    for line in (REPO / "docs" / "knobs.md").read_text().splitlines():
        match = re.match(r"\| `([A-Z][A-Z0-9_]*)` \| (.*?) \|", line)
        if match:
            rows[match.group(1)] = match.group(2)
    fixed = {name: default(FACTS, {}) for name, default in DEFAULTS if name not in ("IMAGE", "RUN_DIR", "RDZV_PORT")}
    script_own = {"FABRIC", "CHECK_SITE", "RDZV_IFACES"}  # each job script sets its own first (mn5.sh: infiniband)
    assert {name for name, _ in DEFAULTS} - set(rows) == set()
    for name, value in fixed.items():
        shown = rows[name]
        assert name in script_own or not value or f"`{value}`" in shown, (name, value, shown)
