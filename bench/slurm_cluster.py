"""The three-node Slurm test cluster: bring it up, submit jobs to it as the unprivileged user, wait for them, tear
it down. The tests' `slurm_cluster` fixture (tests/fixtures/slurm.py) and bench/bad_node.py run their jobs on it.

Brought up by tests/slurm/up.sh (three slurmd in network namespaces, GRES gpu:4 on fake devices; most
jobs take two nodes, the third is where a job goes when it leaves a bad node out) and torn
down by tests/slurm/down.sh. It runs the current Slurm release (tests/slurm/current-release.env, built from
source) or Debian's 22.05 (`debian`, the oldest a site may run).
Jobs are submitted as the unprivileged `ddpuser`, as on a cluster (Apptainer refuses most work as root), from the
checkout at a path that user can read (the caller says which: tests/fixtures/visible_repo.py).
Needs root and the packages from tests/provision/provision-slurm.sh: without them, ClusterUnavailable says which
is missing.

Jobs run through the smoke image; with DDP_SLURM_TEST_IMAGE=none they run the host's torchrun from
build/job-venv instead: a virtual environment built on the system Python, because the developer's
interpreter may live where ddpuser cannot read it (pyenv under /root).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

JOB_USER = os.environ.get("DDP_TEST_USER", "ddpuser")
#: up.sh, down.sh, the release file and the PBS stand-ins, relative to a checkout
SLURM_DIR = Path("tests") / "slurm"
TORCH_VERSION = os.environ.get("TORCH_VERSION", "2.13.0")
#: squeue is polled this often (sbatch --wait polls coarsely and adds 10-25 s per job)
POLL_S = 0.5
#: squeue answers with an error (not 'Invalid job id') this many times in a row before a wait gives up.
SQUEUE_TRIES = 20
#: Two for a job, one spare for the job that leaves a bad node out (tests/jobscripts/test_jobscripts_slurm.py)
NODES = 3


def _current_release() -> dict[str, str]:
    """tests/slurm/current-release.env as {name: value} (plain NAME=value lines)."""
    text = (Path(__file__).resolve().parents[1] / SLURM_DIR / "current-release.env").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))


CURRENT = _current_release()
#: The directories each release's commands live in, first in PATH for the jobs and the tests' own commands
RELEASE_BIN = {"current": f"{CURRENT['SLURM_CURRENT_PREFIX']}/bin:", "debian": ""}


class ClusterUnavailable(Exception):
    """Something the cluster needs is not on this machine (root, a Slurm daemon, the job user): the message says
    what, and how to provision it."""


@dataclass
class Job:
    """A finished (or given-up-on) batch job: its id, final state and the log file."""

    job_id: str
    state: str
    exit_code: str
    log: Path
    run_dir: Path
    elapsed_s: float

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def summary(self) -> dict:
        return json.loads((self.run_dir / "summary.json").read_text())

    def metrics(self) -> list[dict]:
        lines = (self.run_dir / "metrics.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines if line.strip()]


@dataclass
class SlurmCluster:
    """Submit jobs as JOB_USER from a directory it owns, and wait for them by polling squeue."""

    repo: Path
    """The checkout as JOB_USER reaches it: the job scripts and the PBS stand-ins are taken from there."""
    env: dict[str, str] = field(default_factory=dict)
    """What submit() and qsub() give every job unless the test says otherwise: the cluster's PATH and IMAGE=none.
    A test of what a user's job does by default (./app.sif: the README's walkthroughs) must not start from it."""

    @property
    def pbs_bin(self) -> Path:
        """The PBS Pro stand-ins (qsub, qstat) that submit to this cluster."""
        return self.repo / SLURM_DIR / "pbs-bin"

    def workdir(self) -> Path:
        """A fresh submit directory JOB_USER can write and every node can read (shared filesystem)."""
        path = Path(tempfile.mkdtemp(prefix="ddp-job-", dir="/tmp"))
        shutil.chown(path, JOB_USER, JOB_USER)
        path.chmod(0o755)
        return path

    def submit(self, workdir: Path, *args: str, env: dict[str, str] | None = None) -> str:
        """`sbatch --parsable ARGS` as JOB_USER in workdir; returns the job id."""
        full_env = {**self.env, **(env or {})}
        command = ["runuser", "-u", JOB_USER, "--", "env", *(f"{k}={v}" for k, v in full_env.items()),
                   "sbatch", "--parsable", *args]
        result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"sbatch failed: {result.stderr.strip()}")
        return result.stdout.strip().split(";")[0]

    def qsub(self, workdir: Path, *args: str, env: dict[str, str] | None = None) -> str:
        """The PBS Pro `qsub` stand-in (tests/slurm/pbs-bin) as JOB_USER in workdir; returns the Slurm job id."""
        full_env = {**self.env, **(env or {})}
        full_env["PATH"] = f"{self.pbs_bin}:{full_env.get('PATH', '/usr/bin:/bin')}"
        # The PATH the execution hosts give a job submitted without -V (pbs_mom's pbs_environment): the
        # cluster's own, whatever the submitter's PATH holds
        full_env.setdefault("PBS_EMULATION_MOM_PATH", self.env["PATH"])
        command = ["runuser", "-u", JOB_USER, "--", "env", *(f"{k}={v}" for k, v in full_env.items()),
                   str(self.pbs_bin / "qsub"), *args]
        result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"qsub failed: {result.stderr.strip()}")
        return result.stdout.strip().removesuffix(".pbs-emulation")

    def qstat(self, workdir: Path, pbs_job_id: str) -> dict[str, str]:
        """`qstat -f` of the stand-in, unfolded (continuation lines start with a tab) into {attribute: value}."""
        out = subprocess.run([str(self.pbs_bin / "qstat"), "-f", pbs_job_id], capture_output=True, text=True,
                             env={**os.environ, "PBS_EMULATION_STATE": str(workdir / ".pbs-state")}, check=True).stdout
        return dict(line.strip().split(" = ", 1) for line in out.replace("\n\t", "").splitlines()[1:])

    def run(self, *command: str) -> subprocess.CompletedProcess:
        """A Slurm command (scontrol, squeue, scancel) of this cluster's release, as root; its output as text."""
        return subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PATH": self.env["PATH"]})

    def state(self, job_id: str) -> str:
        """The job's state while squeue knows it, else ''. squeue failing otherwise (slurmctld slow to answer on
        a loaded machine) is asked again, not taken for a job that has left."""
        for _ in range(SQUEUE_TRIES):
            out = self.run("squeue", "-h", "-j", job_id, "-o", "%T")
            if out.returncode == 0 or "Invalid job id" in out.stderr:
                return out.stdout.strip()
            time.sleep(POLL_S)
        raise AssertionError(f"squeue could not say job {job_id}'s state: {out.stderr.strip()}")

    def wait(self, job_id: str, workdir: Path, timeout_s: float = 240, log: str = "ddp-{job_id}.out") -> Job:
        """Poll until the job has left the queue (MinJobAge keeps it in scontrol), then describe it. LOG: the log's
        name in workdir (a job through the qsub stand-in writes PBS' "ddp.o{job_id}")."""
        start = time.monotonic()
        while self.state(job_id) and time.monotonic() - start < timeout_s:
            time.sleep(POLL_S)
        elapsed = time.monotonic() - start
        if self.state(job_id):
            self.run("scancel", job_id)
            raise AssertionError(f"job {job_id} still {self.state(job_id)} after {timeout_s}s:\n"
                                 + _tail(workdir / log.format(job_id=job_id)))
        info = self.run("scontrol", "show", "job", "-o", job_id).stdout
        fields = dict(item.split("=", 1) for item in info.split() if "=" in item)
        return Job(job_id, fields.get("JobState", "?"), fields.get("ExitCode", "?"),
                   workdir / log.format(job_id=job_id), workdir / "runs" / job_id, elapsed)

    def wait_for(self, condition, timeout_s: float = 120, what: str = "condition") -> float:
        """Poll `condition()` every POLL_S; returns the seconds it took."""
        start = time.monotonic()
        while not condition():
            if time.monotonic() - start > timeout_s:
                raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
            time.sleep(POLL_S)
        return time.monotonic() - start


def _tail(path: Path, lines: int = 60) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else f"(no {path})"


def job_venv(repo: Path) -> Path:
    """build/job-venv of the checkout `repo`."""
    return repo / "build" / "job-venv"


def _build_job_venv(repo: Path) -> Path:
    """build/job-venv: system Python + torch (CPU) + the project, readable by JOB_USER. Built once (~30 s)."""
    venv = job_venv(repo)
    stamp = venv / f".installed-{TORCH_VERSION}"
    if stamp.exists():
        return venv
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if system_python is None:
        raise ClusterUnavailable("no system python3 to build the job environment from")
    subprocess.run([system_python, "-m", "venv", "--clear", str(venv)], check=True, timeout=120)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"torch=={TORCH_VERSION}", "-e", str(repo)],
                   check=True, timeout=600, capture_output=True)
    stamp.touch()
    return venv


def running_cluster(repo: Path, release: str = "current") -> Iterator[SlurmCluster]:
    """Bring the cluster up with the job scripts of `repo` (a checkout JOB_USER can read), yield it, tear it down.
    RELEASE: `current` or `debian`. ClusterUnavailable before anything starts when a prerequisite is missing."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        raise ClusterUnavailable("the Slurm test cluster needs root on Linux (network namespaces, slurmd)")
    if release == "current" and not Path(CURRENT["SLURM_CURRENT_PREFIX"], ".built").exists():
        raise ClusterUnavailable(f"Slurm {CURRENT['SLURM_CURRENT_RELEASE']} is not built (bash "
                                 "tests/provision/build-slurm.sh builds it from the source mirror)")
    for tool in ("slurmctld", "slurmd", "sbatch", "munged", "ip", "nsenter"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            raise ClusterUnavailable(f"{tool} is not installed (tests/provision/provision-slurm.sh installs it)")
    if subprocess.run(["id", JOB_USER], capture_output=True).returncode != 0:
        raise ClusterUnavailable(f"the job user {JOB_USER} does not exist (tests/provision/provision-slurm.sh "
                                 "creates it)")
    script = repo / "jobscripts" / "slurm.sh"
    if subprocess.run(["runuser", "-u", JOB_USER, "--", "test", "-r", str(script)]).returncode != 0:
        raise ClusterUnavailable(f"the job user {JOB_USER} cannot read {script}; fix: chmod o+x each directory above "
                                 "the checkout, or clone it where other users can read (e.g. /opt, /srv)")
    # The host torchrun only for DDP_SLURM_TEST_IMAGE=none; jobs run through the smoke image otherwise
    venv = _build_job_venv(repo) if os.environ.get("DDP_SLURM_TEST_IMAGE") == "none" else job_venv(repo)
    up = subprocess.run(["bash", str(repo / SLURM_DIR / "up.sh")], capture_output=True, text=True, timeout=180,
                        env={**os.environ, "SLURM_TEST_NODES": str(NODES), "SLURM_TEST_RELEASE": release})
    if up.returncode != 0:
        subprocess.run(["bash", str(repo / SLURM_DIR / "down.sh")], capture_output=True, timeout=120)
        raise RuntimeError(f"tests/slurm/up.sh failed:\n{up.stdout[-3000:]}\n{up.stderr[-3000:]}")
    try:
        path = f"{venv / 'bin'}:{RELEASE_BIN[release]}/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        yield SlurmCluster(repo, env={"PATH": path, "IMAGE": "none"})
    finally:
        subprocess.run(["bash", str(repo / SLURM_DIR / "down.sh")], capture_output=True, timeout=180)
