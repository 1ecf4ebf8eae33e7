"""`python3 -m app.launch --script=slurm.sh job [--scheduler=pbs] -- ARGS`: the whole job as one program (standard
library only, Python 3.6: the batch host's python3 runs it, isolated, through app/host/launch/run_checkout.py).

The site script (jobscripts/slurm.sh, mn5.sh, gh200-pbs.sh) is its scheduler's header, the lines that find its
checkout and the line that starts this, naming its site (app/host/launch/sites.py). Here: the allocation
(app/host/common/scheduler_env.py), every knob (knobs.py), the plan (the image, the workload, processes per node, the
fabric, the container, the launcher's command lines, the rendezvous), then the launch check, the preflight, the
workload's step, and the end: a requeue without the bad nodes, a requeue after a time-limit snapshot, or the step's own
code (app/host/common/exitcodes.py). What differs between the schedulers is a
Side (SLURM here, PBS in app/host/launch/pbs_job.py). Each part and why: docs/job-scripts.md ("Inside the job")."""

import abc
import contextlib
import os
import platform
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from app.host.common import exitcodes
from app.host.common.cache_places import check_cache_places
from app.host.common.errors import UsageError
from app.host.common.private_dir import RUN_DIR_EXAMPLE, check_private_dir, ensure_private_dir
from app.host.common.scheduler_env import Slurm, gpus_per_task, read_slurm, variable_of
from app.host.launch.allocation import allocation
from app.host.launch.bad_node_requeue import RequeuedJob, requeue_for_bad_nodes
from app.host.launch.binds import HOST_FABRIC_LIBS, container_binds
from app.host.launch.checkout import POLICY_FILE, REPO, check_profiles, shell_text, text
from app.host.launch.config_check import config_check
from app.host.launch.container import container
from app.host.launch.deepspeed_hostfile import hostfile_text, launch_line, write_hostfile
from app.host.launch.env_defaults import env_defaults
from app.host.launch.fabric import check_fabric, detect_fabric, flight_recorder_defaults, preview_policy
from app.host.launch.finish import ending
from app.host.launch.gpus import processes_per_node
from app.host.launch.host_checks import check_image_arch, host_python_preflight, slurm_tmpfs
from app.host.launch.image_file import check_image_file
from app.host.launch.image_registry import resolve as resolve_image
from app.host.launch.image_sha256 import image_sha256
from app.host.launch.import_path import OWN_WORKLOADS, import_path_env
from app.host.launch.knobs import NAMES, JobContext, check_site, resolve
from app.host.launch.launch_check import passed, run_launch_check
from app.host.launch.mpi_ranks import mpi_rank_defaults, require_pmix
from app.host.launch.numa import numa_binding
from app.host.launch.plan import Plan
from app.host.launch.rendezvous import rendezvous
from app.host.launch.requeue import ignore_the_requeues_signals, requeue
from app.host.launch.say import error_line, log_line
from app.host.launch.slurm import cpus_warning, slurm_launch
from app.host.launch.step import node_command, run_step, step_line
from app.host.launch.workload import workload

#: The workload kinds that are your own program: DeepSpeed's launch line is said for these only
OWN_PROGRAMS = ("script", "module")
#: What every node runs around its step, from this checkout
NODE_PARTS = ("app/common/node_wrapper.sh", "app/common/cuda_compat.sh")


class JobEnds(Exception):
    """The job ends here with CODE (its lines are said already)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Allocated(NamedTuple):
    """The job's allocation: its id, the nodes (the head first), and GPUs a node as Slurm gave them ('' if none)."""

    job_id: str
    submit_dir: str
    gpus_per_node: str
    nodes: Tuple[str, ...]


class Launch(NamedTuple):
    """How each step starts: STEP (torchrun, task, mpi), one task a node (the launch check's launcher), the step's
    own launcher, and where torchrun meets (the head node's address, the node that hosts the store)."""

    step: str
    per_node: List[str]
    launcher: List[str]
    rdzv_host: str
    rdzv_owner: str


def export(pairs: Sequence[str]) -> None:
    """NAME=VALUE into the job's environment: every step's launcher passes it on to the nodes."""
    for pair in pairs:
        name, _, value = pair.partition("=")
        os.environ[name] = value


@contextlib.contextmanager
def exported_while(pairs: Sequence[str]) -> Iterator[None]:
    """NAME=VALUE exported (as export does) while the block runs; the environment as it was afterwards."""
    names = [pair.partition("=")[0] for pair in pairs]
    before = {name: os.environ.get(name) for name in names}
    export(pairs)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def jobscript(script: str, submit_dir: str, env: Mapping[str, str]) -> str:
    """This job script's path, for a PBS resubmission."""
    return env.get("DDP_JOBSCRIPT") or (env.get("DDP_JOBSCRIPTS") or submit_dir + "/jobscripts") + "/" + script


class Side(abc.ABC):
    """What the job does its scheduler's way: its name (slurm, pbs), the job's arguments, the allocation's first
    log line, the launcher's command lines and the rendezvous, and a timer that warns before the time limit."""

    name = ""

    def arguments(self, args: Sequence[str], env: Mapping[str, str]) -> List[str]:
        return list(args)

    def started(self, job: "Job", alloc: Allocated) -> None:
        """The knobs resolved: the job's first line (none unless a side says one)."""
        return None

    @abc.abstractmethod
    def launch(self, job: "Job", alloc: Allocated, kind: str, nproc: int) -> Launch:
        """The step's launcher: each scheduler's side says how it starts one process a node."""

    def arm_timer(self, job: "Job", job_id: str) -> Optional[threading.Timer]:
        """What warns the job before its time limit when the scheduler does not (None: nothing to cancel)."""
        return None


class Job:
    """One run of the job: the facts it learns in order, and each part of it."""

    def __init__(self, script: str, side: Side) -> None:
        self.script = script
        self.side = side
        #: The environment the job started in, before it exported anything: what a PBS resubmission goes with
        #: (requeue.resubmission_env)
        self.started_env = dict(os.environ)
        #: When the job program started: the walltime counts from here (bash's $SECONDS did)
        self.started_at = time.monotonic()
        self.knobs = {}  # type: Dict[str, str]
        #: The signal that asked for a snapshot and a stop, if any
        self.preempted = ""
        #: What each node calls itself -> its Slurm name (the launch check's answer)
        self.name_of = {}  # type: Dict[str, str]
        #: The registry digest of the image pulled for the job ('' for a local file)
        self.image_digest = ""

    def log(self, message: str) -> None:
        log_line(self.script, message)

    # The allocation and the knobs

    def read_allocation(self) -> Allocated:
        found = allocation(self.side.name, self.script, os.environ, os.getcwd())
        if found.said:
            self.log(found.said)
        os.chdir(found.submit_dir)
        return Allocated(found.job_id, found.submit_dir, found.gpus_per_node, tuple(found.nodes))

    def start(self) -> Allocated:
        """The allocation as this job understands it, every knob, and the job's first line."""
        alloc = self.read_allocation()
        self.resolve_knobs(alloc)
        self.side.started(self, alloc)
        return alloc

    def resolve_knobs(self, alloc: Allocated) -> None:
        """Every knob, the ones you set (or the site's defaults set) taken as given; what the job exports, exported."""
        given = {name: os.environ[name] for name in NAMES if name in os.environ}
        knobs = resolve(JobContext(alloc.job_id, alloc.submit_dir, str(len(alloc.nodes))), given, self.log)
        self.knobs = dict(knobs.values)
        if self.knobs["CHECK_SITE"]:
            check_site(self.knobs["CHECK_SITE"], check_profiles())
        # A knob you exported keeps its resolved value in the environment, as a shell assignment would
        export([name + "=" + value for name, value in knobs.values if name in os.environ])
        export([name + "=" + value for name, value in knobs.exported])

    def dry_run(self) -> bool:
        return self.knobs["DRY_RUN"] == "1"

    def make_run_dir(self) -> None:
        """RUN_DIR created, or checked to be yours alone (app/host/common/private_dir.py). A dry run makes nothing
        but refuses what the job would: a submit directory your group can write stops the job only after it waited
        for its allocation."""
        run_dir, example = Path(self.knobs["RUN_DIR"]), RUN_DIR_EXAMPLE
        if self.dry_run():
            check_private_dir(run_dir, "RUN_DIR", example)
            return
        ensure_private_dir(run_dir, "RUN_DIR", int(self.knobs["RUN_DIR_MODE"], 8), example, parents=True)

    # The plan

    def pull_image(self) -> None:
        """IMAGE=oras://... pulled (once per digest) and its signature checked; IMAGE becomes the file."""
        k = self.knobs
        if not (k["IMAGE"].startswith("oras://") or k["IMAGE_VERIFY"] == "1"):
            return
        resolved = resolve_image(k["IMAGE"], k["APPTAINER"], k["IMAGE_VERIFY"], k["IMAGE_NO_HTTPS"], k["IMAGE_CACHE"],
                                 os.environ, self.dry_run())
        for line in resolved.said:
            self.log(line)
        k["IMAGE"] = resolved.sif
        if resolved.digest:
            self.image_digest = resolved.digest
            export(["DDP_IMAGE_DIGEST=" + resolved.digest, "DDP_IMAGE_PULL=" + resolved.pull])

    def record_image_sha256(self) -> None:
        """A local image's sha256 for the run's records (a registry image has its digest): hashed once a file,
        then remembered (app/host/launch/image_sha256.py)."""
        k = self.knobs
        found = image_sha256(k["IMAGE"], k["IMAGE_CACHE"], self.dry_run())
        self.log(found.said)
        if found.digest:
            export(["DDP_IMAGE_SHA256=" + found.digest, "DDP_IMAGE_FILE=" + found.path])

    def plan_workload(self, args: Sequence[str]) -> Tuple[str, List[str]]:
        k = self.knobs
        what = workload(list(args), k["CONFIG"], k["RUN_DIR"], k["CHECK_SITE"], self.side.name, self.script,
                        os.getcwd())
        export(import_path_env(what.kind, REPO, os.environ, self.log))
        return what.kind, list(what.argv)

    def processes_per_node(self, alloc: Allocated) -> int:
        nproc, source = processes_per_node(self.knobs["GPUS_PER_NODE"], alloc.gpus_per_node, os.environ)
        self.log(f"{len(alloc.nodes)} node(s) x {nproc} process(es) per node (from {source})")
        return int(nproc)

    def deepspeed_hostfile(self, alloc: Allocated, nproc: int, kind: str) -> None:
        """RUN_DIR/hostfile for DeepSpeed's own launcher, and its launch line for a program of your own."""
        path, nnodes = os.path.join(self.knobs["RUN_DIR"], "hostfile"), len(alloc.nodes)
        self.make_run_dir()
        if self.dry_run():
            self.log(f"DRY_RUN=1: would write {path} ({nnodes} line(s) like '{alloc.nodes[0]} slots={nproc}')")
        else:
            write_hostfile(path, hostfile_text(alloc.nodes, nproc), group_readable=self.knobs["RUN_DIR_MODE"] == "750")
            self.log(f"wrote {path} for the deepspeed launcher ({nnodes} node(s) x {nproc} slot(s))")
        if kind in OWN_PROGRAMS:
            self.log(launch_line(path, self.side.name, nnodes, alloc.nodes[0], self.knobs["RDZV_PORT"]))

    def fabric(self, nnodes: int) -> None:
        """FABRIC checked (auto: detected on this node); the policy every node applies, previewed."""
        k = self.knobs
        detected = detect_fabric(POLICY_FILE, k["DDP_PROBE_ROOT"]) if k["FABRIC"] == "auto" else ""
        fabric = check_fabric(k["FABRIC"], detected, k["DDP_PROBE_ROOT"], os.environ.get("FI_PROVIDER", ""))
        for line in fabric.said:
            self.log(line)
        # Read by the policy on every node (srun passes the environment on to its tasks)
        exports = {"APP_FABRIC": fabric.name, "APP_NNODES": str(nnodes), "APP_PROBE_ROOT": k["DDP_PROBE_ROOT"]}
        for line in preview_policy(POLICY_FILE, dict(os.environ, **exports)):
            self.log(line)
        k["FABRIC"] = fabric.name
        export([f"{name}={value}" for name, value in exports.items()])
        export(env_defaults(self.log, os.environ, flight_recorder_defaults(k["RUN_DIR"])))

    def meet(self, alloc: Allocated) -> Tuple[str, str]:
        """Where torchrun meets (the head node's address) and the node that hosts the store, said in the log."""
        k = self.knobs
        meeting = rendezvous(alloc.nodes[0], k["RDZV_PORT"], k["RDZV_HOST"], k["RDZV_IFACES"],
                             alloc.job_id == "dry-run")
        self.log(meeting.said)
        return meeting.host, meeting.owner

    def container(self, kind: str) -> Tuple[List[str], str]:
        """The container command of every step (empty with IMAGE=none), and the fabric policy files the node
        wrapper tries; the image or your python checked."""
        k = self.knobs
        self.make_run_dir()
        binds = container_binds(k["FABRIC"], k["RUN_DIR"], k["BINDS"], k["DDP_PROBE_ROOT"],
                                os.environ.get("HOST_LIBFABRIC_DIR", ""), os.environ.get("LD_LIBRARY_PATH", ""))
        for warning in binds.warnings:
            self.log(warning)
        if self.dry_run() and any(HOST_FABRIC_LIBS + "/" in arg for arg in binds.args):
            self.log(f"DRY_RUN=1: the host libraries bound into the image are this host's ({platform.machine()}, "
                     f"{platform.node()}); a job binds its head node's")
        plan = container(k["IMAGE"], k["APPTAINER"], k["APPTAINER_ARGS"], k["LAUNCH"], kind, self.dry_run(),
                         binds.args, POLICY_FILE)
        for line in plan.said:
            self.log(line)
        if plan.host_program:
            k["PREFLIGHT"], said = host_python_preflight(plan.host_program, kind, k["PREFLIGHT"])
            if said:
                self.log(said)
        argv = list(plan.argv)
        if k["IMAGE"] != "none" and os.path.isfile(k["IMAGE"]):
            for line in check_image_file(k["IMAGE"]):  # only its owner may be able to replace what every step runs
                self.log(line)
            check_image_arch(plan.runtime, k["IMAGE"], os.environ)
            if not self.image_digest:
                self.record_image_sha256()
        if argv and kind == "nccl-tests":
            argv = ["/bin/sh", "-c", shell_text("app/host/launch/pmix_binds.sh"), "ddp-pmix-binds",
                    slurm_tmpfs(self.side.name, os.environ), *argv]
        k["APPTAINER"] = plan.runtime
        return argv, plan.policy



class Running(NamedTuple):
    """The planned job, as each step reads it."""

    alloc: Allocated
    kind: str
    workload: List[str]
    nproc: int
    container: List[str]
    policy: str
    launch: Launch


class JobRun:
    """The steps of a planned job and its end."""

    def __init__(self, job: Job, run: Running) -> None:
        self.job, self.run, self.k = job, run, job.knobs
        self.exclude_file = os.path.join(self.k["RUN_DIR"], "nodes-to-exclude.txt")
        self.cuda_compat = text("app/common/cuda_compat.sh").rstrip("\n")
        self.node_wrapper = text("app/common/node_wrapper.sh").rstrip("\n")

    def program(self, rdzv_id: str, program: Sequence[str]) -> Tuple[str, List[str]]:
        """What one launcher task runs for PROGRAM, after the node that hosts the store (or "")."""
        run, k = self.run, self.k
        if run.launch.step == "mpi":
            return "", list(program)
        if run.launch.step == "task":
            task_env = ["/bin/sh", "-c", shell_text("app/host/launch/srun_task_env.sh"), "ddp-task", str(run.nproc)]
            return "", [*(task_env if run.kind in OWN_PROGRAMS else []), "python", *program]
        numa = numa_binding(os.environ.get("NUMA_BINDING") or "auto", k["LAUNCH"],
                            k["IMAGE"], k["DDP_PROBE_ROOT"])
        if numa.said:
            self.job.log(numa.said)
        plan = Plan(nnodes=len(run.alloc.nodes), nproc=run.nproc, rdzv_host=run.launch.rdzv_host,
                    rdzv_port=int(k["RDZV_PORT"]), join_timeout_s=int(k["RDZV_JOIN_TIMEOUT_S"]), numa=numa.args)
        return run.launch.rdzv_owner, plan.torchrun_argv(rdzv_id, program)

    def step(self, rdzv_id: str, program: Sequence[str]) -> int:
        """PROGRAM on every node in the container, under the node wrapper; its exit code."""
        owner, argv = self.program(rdzv_id, program)
        launcher, stop_file = self.run.launch.launcher, self.k["DDP_STOP_FILE"]
        self.job.log(step_line([*launcher, *self.run.container, *argv]))
        if self.job.dry_run():
            self.job.log("DRY_RUN=1: not running it")
            return 0

        def stopping(name: str) -> None:
            self.job.preempted = name
            self.job.log(f"got SIG{name}: asking the training processes on every node to snapshot and stop")

        rc = run_step(node_command(launcher, self.run.container, self.cuda_compat, self.node_wrapper, stop_file,
                                   owner, self.run.policy, argv), stop_file, stopping)
        self.job.log("step finished with exit code {}{}".format(
            rc, " after SIG" + self.job.preempted if self.job.preempted else ""))
        return rc

    def launch_check(self) -> None:
        """One process on each node, in seconds, not at torchrun's join timeout (app/host/launch/launch_check.py)."""
        if self.k["LAUNCH_CHECK"] != "1" or self.job.dry_run():
            return
        nnodes = len(self.run.alloc.nodes)
        check = run_launch_check(self.run.launch.per_node, self.run.alloc.nodes, nnodes)
        self.job.log(passed(check, nnodes))
        self.job.name_of = dict(check.names)

    def blamed_nodes(self) -> bool:
        try:
            return os.path.getsize(self.exclude_file) > 0
        except OSError:
            return False

    def forget_blame(self) -> None:
        if os.path.lexists(self.exclude_file):
            os.remove(self.exclude_file)

    def preflight(self) -> None:
        """The trainer's --dry-run for this allocation (train), then python -m app.check --preflight across the
        nodes (PREFLIGHT=0 skips it); a node it blames is left out (bad_node_requeue.py)."""
        run, k = self.run, self.k
        rc = config_check(self.job.log, run.kind, k["IMAGE"], k["APPTAINER"], self.job.dry_run(), run.container,
                          run.workload, len(run.alloc.nodes), run.nproc)
        if rc:
            raise JobEnds(rc)
        if k["PREFLIGHT"] != "1" or run.kind in ("check", "nccl-tests"):
            return
        site = ["--site", k["CHECK_SITE"]] if k["CHECK_SITE"] else []
        check = ["-m", "app.check", "--preflight", "--exclude-file", self.exclude_file, "--json",
                 os.path.join(k["RUN_DIR"], "preflight.json"), *site]
        self.job.log("preflight: python -m app.check --preflight across the allocation (PREFLIGHT=0 skips it)")
        # Its own rendezvous id: the workload's, on the same port, comes right after. A dry run shows it and runs
        # neither.
        with exported_while(self.preflight_import_path()):
            if self.job.dry_run():
                self.step(run.alloc.job_id + "-preflight", check)
                return
            started = time.monotonic()
            self.forget_blame()
            rc = self.step(run.alloc.job_id + "-preflight", check)
        if rc == 0:
            self.job.log(f"preflight passed in {int(time.monotonic() - started)}s")
            return
        if self.job.preempted:
            self.finish(rc)
        if self.blamed_nodes():
            self.requeue_for_bad_nodes(rc, "preflight failed (step exit {}; app.check's report above and in "
                                       "{}/preflight.json)".format(rc, k["RUN_DIR"]))
        error_line(self.job.script, f"the preflight failed (step exit {rc}) without blaming a node; its report above "
                   "says what and how to fix it; PREFLIGHT=0 starts the workload without it")
        raise JobEnds(rc)

    def preflight_import_path(self) -> List[str]:
        """What the preflight's step exports besides what the workload's does: app.check is this checkout's code
        whatever the workload, so before your own script or module too it imports this checkout and nothing from
        the submit directory (import_path.py), as the train workload's preflight does. Only for that step: your
        program's own step keeps the import path you gave it."""
        if self.run.kind in OWN_WORKLOADS:
            return []  # exported for the workload already (plan_workload)
        return import_path_env("check", REPO, os.environ, lambda line: self.job.log("preflight: " + line))

    def requeue_for_bad_nodes(self, rc: int, reason: str) -> None:
        """Leave the blamed nodes out and requeue, requeue as before, or give up at MAX_REQUEUES
        (bad_node_requeue.py)."""
        # The requeue signals this job: nothing may stop the update that follows it
        ignore_the_requeues_signals()
        run = self.run
        raise JobEnds(requeue_for_bad_nodes(self.job.log, self.job.script,
                           RequeuedJob(self.job.side.name, self.k["RUN_DIR"], run.alloc.job_id, self.k["IMAGE"],
                                   jobscript(self.job.script, run.alloc.submit_dir, os.environ), self.job.started_env,
                                   run.alloc.nodes, self.job.name_of), rc, reason, self.k["MAX_REQUEUES"]))

    def finish(self, rc: int) -> None:
        """A USR1 that stopped an unfinished step requeues the job, which resumes from its snapshot (75);
        otherwise the step's code."""
        end = ending(rc, self.job.preempted, self.k["REQUEUE"], self.run.alloc.job_id, self.k["RUN_DIR"])
        if end.said:
            self.job.log(end.said)
        if end.requeue:
            requeue(self.job.log, self.job.script, self.job.side.name, self.run.alloc.job_id, [], self.k["RUN_DIR"],
                    jobscript(self.job.script, self.run.alloc.submit_dir, os.environ), self.job.started_env)
        raise JobEnds(end.exit_code)

    def run_job(self) -> None:
        """The launch check, the preflight, the workload (rendezvous id: the job id), then a bad-node requeue or the
        finish; the scheduler's timer (PBS) runs from before the launch check until the workload's step ends."""
        timer = self.job.side.arm_timer(self.job, self.run.alloc.job_id)
        try:
            self.launch_check()
            self.preflight()
            # A hang the workload names starts a fresh exclude file: an earlier attempt's must not blame a node
            self.forget_blame()
            rc = self.step(self.run.alloc.job_id, self.run.workload)
        finally:
            # Its USR1 would find no step to stop: the requeue that follows must not be interrupted
            if timer is not None:
                timer.cancel()
        if rc and not self.job.preempted and self.blamed_nodes():
            self.requeue_for_bad_nodes(rc, f"the workload failed (exit {rc}) naming the nodes that stopped answering "
                      "(summary.json)")
        self.finish(rc)


class SlurmSide(Side):
    """Slurm: srun starts the steps, sbatch --signal warns before the time limit, scontrol requeues."""

    name = "slurm"

    def started(self, job: Job, alloc: Allocated) -> None:
        if not alloc.gpus_per_node:
            # A job without GPUs submitted with --cpus-per-gpu (which sbatch accepts before 23.02): srun would read
            # it back from the environment and refuse every step ("Invalid generic resource (gres) specification")
            os.environ.pop(variable_of(Slurm, "cpus_per_gpu"), None)
        slurm = read_slurm(os.environ)
        restarts = slurm.restart_count if (slurm.restart_count or "").isdigit() else "0"
        job.log("job {} on {}, run #{}, run directory {}".format(
            alloc.job_id, slurm.job_nodelist or ",".join(alloc.nodes), int(restarts) + 1, job.knobs["RUN_DIR"]))

    def launch(self, job: Job, alloc: Allocated, kind: str, nproc: int) -> Launch:
        """srun's command lines for the step, the MPI ranks' defaults, and where torchrun meets."""
        k, nnodes = job.knobs, len(alloc.nodes)
        warning = cpus_warning(nproc, os.environ)
        if warning:
            job.log(warning)
        srun = slurm_launch(k["LAUNCH"], kind, nnodes, nproc, os.environ)
        if kind == "nccl-tests" and not job.dry_run():
            require_pmix(nproc)
        export(env_defaults(job.log, os.environ, mpi_rank_defaults(kind, gpus_per_task(os.environ))))
        if srun.step == "mpi":
            return Launch(srun.step, srun.per_node, srun.launcher, "", "")
        host, owner = job.meet(alloc)
        if srun.step == "task":
            export(env_defaults(job.log, os.environ, [("MASTER_ADDR", host, "rank 0's rendezvous address"),
                                                      ("MASTER_PORT", k["RDZV_PORT"], "rank 0's rendezvous port")]))
        return Launch(srun.step, srun.per_node, srun.launcher, host, owner)


SLURM = SlurmSide()


def plan(job: Job, args: Sequence[str]) -> Running:
    """Everything the steps run, from the allocation and the knobs."""
    for part in NODE_PARTS:
        if not os.access(os.path.join(REPO, part), os.R_OK):
            raise UsageError(f"{REPO}/{part} is missing; run the job scripts from a whole checkout")
    alloc = job.start()
    check_cache_places(os.environ)  # the node wrapper cannot walk their parents: your own script compiles there too
    args = job.side.arguments(args, os.environ)
    job.pull_image()
    kind, argv = job.plan_workload(args)
    nproc = job.processes_per_node(alloc)
    job.deepspeed_hostfile(alloc, nproc, kind)
    job.fabric(len(alloc.nodes))
    box, policy = job.container(kind)
    return Running(alloc, kind, argv, nproc, box, policy, job.side.launch(job, alloc, kind, nproc))


def run_job(script: str, side: Side, args: Sequence[str]) -> int:
    """The whole job under SIDE's scheduler; its exit code (app/host/common/exitcodes.py). Bad input: one line on
    stderr, exit 2."""
    job = Job(script, side)
    return job_code(script, lambda: JobRun(job, plan(job, args)).run_job())


def job_code(script: str, part: Callable[[], None]) -> int:
    """PART of the job run to its end, as the job's exit code: the code it ends with, or 0 if it ends without one;
    bad input: one line on stderr, exit 2."""
    try:
        part()
    except JobEnds as end:
        return end.code
    except UsageError as error:
        error_line(script, str(error))
        return exitcodes.USAGE
    return exitcodes.OK
