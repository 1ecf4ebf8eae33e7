"""The job (app/host/launch/job.py) part by part, in a fresh process, each part the job's own method: tests assert on
what a part said, where it stopped and the records it left, without a scheduler.

    python -m tests.host.launch.job_parts --out FILE [--script S] [--scheduler slurm|pbs] [--nodes A,B]
        [--job-id ID] [--submit-dir DIR] [--gpus N] [--rc RC] [--reason TEXT] [--preempted SIG]
        [--names HOST=NAME,...] [--kind KIND] [--launch-step torchrun|task|mpi] PART... [-- ARGS...]

The knobs first (Job.resolve_knobs, from the environment as the job reads it), then each PART in order: image
(pull_image), workload (plan_workload of ARGS), nproc (processes_per_node), hostfile (deepspeed_hostfile), fabric,
container, launch (the side's: srun's or PBS's command lines, then the rendezvous), meet (the rendezvous alone), run-dir
(make_run_dir), bad-node-requeue (JobRun.requeue_for_bad_nodes of RC and REASON, the launch check's NAMES), finish
(JobRun.finish of RC after PREEMPTED), step (JobRun.step of ARGS for a workload of KIND (unless the workload part said
one), as LAUNCH-STEP starts it, with no launcher and no container, as a node runs it inside the image; its exit code
ends the run), preflight (JobRun.preflight before the workload of KIND, its step started as the step part starts one).
FILE gets the records as JSON: the knobs, each part's answer and the environment the job leaves for its steps. Log lines
go to stdout; the job's end is the exit code, a bad setting its one line on stderr and exit 2 (job.job_code). Standard
library only and Python 3.6's grammar: the login node's python runs it too.

    python -m tests.host.launch.job_parts --serve

forks a run of main() for each request on stdin (tests/host/launch/fork_server.py): job_parts() below runs the parts
that way where that is the same as a new interpreter.
"""

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from app.host.launch.job import SLURM, Allocated, Job, JobEnds, JobRun, Launch, Running, job_code
from app.host.launch.pbs_job import PBS

REPO = Path(__file__).resolve().parents[3]


def run_parts(job: Job, alloc: Allocated, options: argparse.Namespace, args: List[str],
              found: Dict[str, Any]) -> None:
    """The parts OPTIONS name, for ALLOC; their answers into FOUND as they come (a part that ends the job leaves
    the answers before it)."""
    job.resolve_knobs(alloc)
    found["knobs"] = job.knobs
    kind, nproc = options.kind, 1
    for part in options.parts:
        if part == "image":
            job.pull_image()
        elif part == "workload":
            kind, argv = job.plan_workload(job.side.arguments(args, os.environ))
            found["workload"] = {"kind": kind, "argv": argv}
        elif part == "nproc":
            nproc = found["nproc"] = job.processes_per_node(alloc)
        elif part == "hostfile":
            job.deepspeed_hostfile(alloc, nproc, kind)
        elif part == "fabric":
            job.fabric(len(alloc.nodes))
        elif part == "container":
            argv, policy = job.container(kind)
            found["container"] = {"argv": argv, "policy": policy}
        elif part == "launch":
            found["launch"] = job.side.launch(job, alloc, kind, nproc)._asdict()
        elif part == "meet":
            found["meet"] = list(job.meet(alloc))
        elif part == "run-dir":
            job.make_run_dir()
        elif part in ("bad-node-requeue", "finish"):
            job.preempted = options.preempted
            job.name_of = dict(pair.split("=", 1) for pair in options.names.split(",") if pair)
            ended = JobRun(job, Running(alloc, kind, [], nproc, [], "", Launch("torchrun", [], [], "", "")))
            if part == "bad-node-requeue":
                ended.requeue_for_bad_nodes(options.rc, options.reason)
            ended.finish(options.rc)
        elif part == "step":
            launch = Launch(options.launch_step, [], [], alloc.nodes[0], "")
            raise JobEnds(JobRun(job, Running(alloc, kind, [], nproc, [], "", launch)).step(alloc.job_id, args))
        elif part == "preflight":
            launch = Launch(options.launch_step, [], [], alloc.nodes[0], "")
            JobRun(job, Running(alloc, kind, [], nproc, [], "", launch)).preflight()
        else:
            raise SystemExit("job_parts: no part " + repr(part))


def main() -> int:
    argv = sys.argv[1:]
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="python -m tests.host.launch.job_parts")
    parser.add_argument("--out", required=True)
    parser.add_argument("--script", default="test.sh")
    parser.add_argument("--scheduler", default="slurm", choices=("slurm", "pbs"))
    parser.add_argument("--nodes", default="node1,node2")
    parser.add_argument("--job-id", default="42")
    parser.add_argument("--submit-dir", default="/tmp")
    parser.add_argument("--gpus", default="", help="GPUs a node as the scheduler gave them")
    parser.add_argument("--rc", type=int, default=1)
    parser.add_argument("--reason", default="the workload failed")
    parser.add_argument("--preempted", default="")
    parser.add_argument("--names", default="", help="the launch check's pairs: HOST=NAME,...")
    parser.add_argument("--kind", default="", help="the workload's kind when the workload part does not run")
    parser.add_argument("--launch-step", default="mpi", choices=("torchrun", "task", "mpi"))
    parser.add_argument("parts", nargs="*")
    options = parser.parse_args(argv)
    job = Job(options.script, PBS if options.scheduler == "pbs" else SLURM)
    alloc = Allocated(options.job_id, options.submit_dir, options.gpus, tuple(options.nodes.split(",")))
    found = {}  # type: Dict[str, Any]
    try:
        return job_code(options.script, lambda: run_parts(job, alloc, options, args, found))
    finally:
        found["env"] = dict(os.environ)
        with open(options.out, "w") as out:
            json.dump(found, out)


class Ran(NamedTuple):
    """What a run of the job's parts did: its exit code, its log (stdout), its errors (stderr) and the records."""

    returncode: int
    stdout: str
    stderr: str
    found: Dict[str, Any]

    @property
    def env(self) -> Dict[str, str]:
        """The environment the job leaves for its steps (what every launcher passes on to the nodes)."""
        return self.found["env"]


def base_env() -> Dict[str, str]:
    """What a run of the parts has unless its ENV says otherwise (PATH as it is now: tests put stand-ins on it), and
    an image cache of this test run's own, where the container part remembers the sha256 of the images it hashed
    (the checkout's build/images otherwise)."""
    return {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(REPO),
            "IMAGE_CACHE": image_cache()}


_CACHE = []  # type: List[str]


def image_cache() -> str:
    """A private directory for this process's runs of the parts, removed when it exits."""
    if not _CACHE:
        _CACHE.append(tempfile.mkdtemp(prefix="ddp-test-image-cache-"))
        atexit.register(shutil.rmtree, _CACHE[0], True)
    return _CACHE[0]


_SERVER = []  # type: List[Any]


def fork_server() -> Any:
    """This process's fork server of the job's parts (tests/host/launch/fork_server.py), made on first use; imported
    only here, under the tests' Python (this file also runs under 3.6)."""
    if not _SERVER:
        from tests.host.launch.fork_server import ForkServer
        _SERVER.append(ForkServer("tests.host.launch.job_parts", base_env()))
    return _SERVER[0]


def job_parts(parts: List[str], env: Dict[str, str], *args: str, cwd: Optional[Path] = None,
              out: Optional[Path] = None, python: str = sys.executable, prefix: Tuple[str, ...] = (),
              timeout_s: float = 120, fresh: bool = False, **options: str) -> Ran:
    """PARTS of the job (--OPTION=VALUE for each of OPTIONS: nodes, script, scheduler, ...) in a fresh process
    with only ENV (PATH, HOME and PYTHONPATH unless ENV names them), ARGS the job's arguments; PREFIX runs it as
    another user (OUT: a file that user can write). A child of the fork server where that is the same process
    (this Python, no prefix, nothing set that only an interpreter's start reads), else (or FRESH) a new
    interpreter."""
    scratch = None if out else Path(tempfile.mkdtemp())
    out = out or scratch / "found.json"
    flags = ["--{}={}".format(name.replace("_", "-"), value) for name, value in options.items()]
    full_env = {**base_env(), **env}
    argv = ["--out=" + str(out), *flags, *parts, "--", *args]
    if not (fresh or prefix) and fork_server().serves(python, full_env):
        result = fork_server().run(argv, full_env, str(cwd or REPO), timeout_s)
    else:
        command = [*prefix, "env", "-i", *(f"{k}={v}" for k, v in full_env.items()), python, "-m",
                   "tests.host.launch.job_parts", *argv]
        result = subprocess.run(command, cwd=str(cwd or REPO), capture_output=True, text=True, timeout=timeout_s)
    found = {}  # type: Dict[str, Any]
    if out.exists():
        found = json.loads(out.read_text())
        out.unlink()
    if scratch:
        scratch.rmdir()
    return Ran(result.returncode, result.stdout, result.stderr, found)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        from tests.host.launch.fork_server import serve
        serve(main)
    else:
        raise SystemExit(main())
