"""`python3 -m app.launch`: the job, and its parts one question a call.

    python3 -m app.launch --script NAME job [--scheduler pbs] -- ARGS...
                                                                the whole job (app/launch/job.py), as
                                                                jobscripts/slurm.sh, mn5.sh and gh200-pbs.sh start it
    python3 -m app.launch [--script NAME] [--answer-fd FD] QUESTION [OPTIONS] [-- WORDS...]
                                                                one part: pbsdsh-run (the PBS job's launcher under
                                                                LAUNCHER=pbsdsh); the others, jobscripts/lib.sh's

A question's answer is a list of words: with --answer-fd, each ends in a NUL on that descriptor (bash reads them with
`mapfile -d ''`, never evaluating them); without, one shell-quoted word a line on stdout. Log lines go to stdout
as the job's log writes them ("[HH:MM:SS NAME] ..."); bad input is one line "NAME: error: ..." on stderr and
exit 2, no traceback. Standard library only: it runs on the batch host's python3 (SLES 15: 3.6), outside the image.
"""

import argparse
import os
import shlex
import sys
from os.path import isfile
from pathlib import Path
from typing import List, Optional, Sequence

from app.common import exitcodes
from app.common.errors import UsageError
from app.common.private_dir import ensure_private_dir
from app.common.scheduler_env import job_id_variable
from app.launch.allocation import allocation
from app.launch.binds import container_binds
from app.launch.checkout import POLICY_FILE, REPO, shell_text
from app.launch.config_check import config_check
from app.launch.container import container
from app.launch.deepspeed_hostfile import hostfile_text, launch_line, write_hostfile
from app.launch.env_defaults import env_defaults
from app.launch.fabric import check_fabric, detect_fabric, flight_recorder_defaults, preview_policy
from app.launch.finish import ending
from app.launch.gpus import processes_per_node
from app.launch.heal import HealJob, heal
from app.launch.host_checks import check_image_arch, host_python_preflight, slurm_tmpfs
from app.launch.image_registry import resolve as resolve_image
from app.launch.import_path import import_path_env
from app.launch.job import SLURM, run_job
from app.launch.knobs import NAMES, Facts, answer_words, read_given, resolve
from app.launch.launch_check import passed, run_launch_check
from app.launch.numa import numa_binding
from app.launch.numbers import whole
from app.launch.pbs_job import PBS
from app.launch.pbs_questions import add_questions as add_pbs_questions
from app.launch.plan import Plan
from app.launch.rendezvous import rendezvous
from app.launch.requeue import requeue
from app.launch.say import error_line, log_line
from app.launch.workload import workload


class Job:
    """Where a question's log lines and answer go."""

    def __init__(self, script: str, answer_fd: Optional[int]) -> None:
        self.script = script
        self.answer_fd = answer_fd

    def log(self, message: str) -> None:
        log_line(self.script, message)

    def answer(self, words: Sequence[str]) -> None:
        if self.answer_fd is None:
            for word in words:
                print(shlex.quote(word))
            return
        with os.fdopen(self.answer_fd, "wb", closefd=False) as out:
            out.write(b"".join(word.encode("utf-8", "surrogateescape") + b"\0" for word in words))


def ask_allocation(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    found = allocation(options.scheduler, job.script, os.environ, os.getcwd())
    if found.said:
        job.log(found.said)
    job.answer([found.job_id, found.submit_dir, found.gpus_per_node, *found.nodes])


def ask_knob_names(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(NAMES)


def ask_knobs(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    facts = Facts(job_id=options.job_id, submit_dir=options.submit_dir, nnodes=options.nnodes)
    job.answer(answer_words(resolve(facts, read_given(sys.stdin.buffer.read()), job.log)))


def make_run_dir(options: argparse.Namespace) -> None:
    """RUN_DIR created, or checked to be this user's alone (app/common/private_dir.py says why); its remedy names
    the scheduler's job id."""
    example = "$SCRATCH/runs/$" + job_id_variable(options.scheduler)
    ensure_private_dir(Path(options.run_dir), "RUN_DIR", int(options.run_dir_mode, 8), example, parents=True)


def ask_run_dir(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    make_run_dir(options)
    job.answer([])


def ask_fabric(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    detected = detect_fabric(POLICY_FILE, options.probe_root) if options.fabric == "auto" else ""
    fabric = check_fabric(options.fabric, detected, options.probe_root, os.environ.get("FI_PROVIDER", ""))
    for line in fabric.said:
        job.log(line)
    # Read by the policy on every node (the scheduler passes the environment on to srun/mpiexec tasks)
    exports = {"APP_FABRIC": fabric.name, "APP_NNODES": options.nnodes, "APP_PROBE_ROOT": options.probe_root}
    for line in preview_policy(POLICY_FILE, dict(os.environ, **exports)):
        job.log(line)
    job.answer([fabric.name, *(f"{name}={value}" for name, value in exports.items()),
                *env_defaults(job.log, os.environ, flight_recorder_defaults(options.run_dir))])


def ask_finish(job: Job, options: argparse.Namespace, words: List[str]) -> int:
    rc = whole("RC", options.rc, example=0)
    end = ending(rc, options.preempted, options.requeue, options.job_id, options.run_dir)
    if end.said:
        job.log(end.said)
    if end.requeue:
        requeue(job.log, job.script, options.scheduler, options.job_id, [], options.run_dir, options.jobscript)
    job.answer([])
    return end.exit_code


def ask_heal(job: Job, options: argparse.Namespace, words: List[str]) -> int:
    given = sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0")
    pairs = given[:len(given) - len(given) % 2]
    job.answer([])
    return heal(job.log, job.script, HealJob(options.scheduler, options.run_dir, options.job_id, options.image,
                                             options.jobscript, words, dict(zip(pairs[0::2], pairs[1::2]))),
                whole("RC", options.rc, example=0), options.reason, options.max_requeues)


def ask_nproc(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nproc, source = processes_per_node(options.gpus_per_node, options.allocation, os.environ)
    job.log(f"{options.nnodes} node(s) x {nproc} process(es) per node (from {source})")
    job.answer([str(nproc)])


def ask_node_command(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    if not words:
        raise UsageError("node-command needs -- RDZV_ID PROGRAM...; example: -- 42 -m app.train")
    if options.step == "mpi":
        job.answer(["", *words[1:]])
        return
    if options.step == "task":
        task_env = ["/bin/sh", "-c", shell_text("app/launch/srun_task_env.sh"), "ddp-task", options.nproc]
        job.answer(["", *(task_env if options.workload in ("script", "module") else []), "python", *words[1:]])
        return
    numa = numa_binding(options.numa_binding, options.launch, options.image, options.probe_root)
    if numa.said:
        job.log(numa.said)
    plan = Plan(nnodes=whole("DDP_NNODES", options.nnodes), nproc=whole("DDP_NPROC", options.nproc),
                rdzv_host=options.rdzv_host, rdzv_port=whole("RDZV_PORT", options.rdzv_port),
                join_timeout_s=whole("RDZV_JOIN_TIMEOUT_S", options.join_timeout, example=600), numa=numa.args)
    job.answer([options.rdzv_owner, *plan.torchrun_argv(words[0], words[1:])])


def ask_launch_check(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    if not words:
        raise UsageError("launch-check needs -- LAUNCHER...; example: -- srun --ntasks-per-node=1")
    nnodes = whole("DDP_NNODES", options.nnodes)
    nodes = [node for node in sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0") if node]
    check = run_launch_check(words, nodes, nnodes)
    job.log(passed(check, nnodes))
    job.answer([word for pair in check.names.items() for word in pair])


def ask_workload(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    what = workload(words, options.config, options.run_dir, options.check_site, options.scheduler, job.script,
                    options.cwd)
    exports = import_path_env(what.kind, REPO, os.environ, job.log)
    job.answer([what.kind, str(len(exports)), *exports, *what.argv])


def said_binds(job: Job, options: argparse.Namespace) -> List[str]:
    """What the container binds, as apptainer arguments; its warnings go to the job log."""
    binds = container_binds(options.fabric, options.run_dir, options.binds, options.probe_root,
                            options.host_libfabric_dir, os.environ.get("LD_LIBRARY_PATH", ""))
    for warning in binds.warnings:
        job.log(warning)
    return binds.args


def ask_binds(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(said_binds(job, options))


def ask_image(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    resolved = resolve_image(options.image, options.apptainer, options.verify, options.no_https, options.cache,
                             os.environ, options.dry_run)
    for line in resolved.said:
        job.log(line)
    job.answer([resolved.sif, resolved.digest, resolved.pull])


def ask_container(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    if not options.dry_run:
        make_run_dir(options)
    plan = container(options.image, options.apptainer, options.apptainer_args, options.launch, options.workload,
                     options.dry_run, said_binds(job, options), POLICY_FILE)
    for line in plan.said:
        job.log(line)
    preflight = options.preflight
    if plan.host_program:
        preflight, said = host_python_preflight(plan.host_program, options.workload, preflight)
        if said:
            job.log(said)
    argv = plan.argv
    if options.image != "none" and isfile(options.image):
        check_image_arch(plan.runtime, options.image, os.environ)
    if argv and options.workload == "nccl-tests":
        argv = ["/bin/sh", "-c", shell_text("app/launch/pmix_binds.sh"), "ddp-pmix-binds",
                slurm_tmpfs(options.scheduler, os.environ), *argv]
    job.answer([plan.runtime, plan.policy, preflight, *argv])


def ask_rendezvous(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    meeting = rendezvous(options.head_node, options.port, options.given, options.ifaces, options.dry_run)
    job.log(meeting.said)
    exports = []  # type: List[str]
    if options.step == "task":
        exports = env_defaults(job.log, os.environ, [("MASTER_ADDR", meeting.host, "rank 0's rendezvous address"),
                                                     ("MASTER_PORT", options.port, "rank 0's rendezvous port")])
    job.answer([meeting.host, meeting.owner, *exports])


def ask_config_check(job: Job, options: argparse.Namespace, words: List[str]) -> int:
    count = whole("container words", options.container_words)
    job.answer([])
    return config_check(job.log, options.workload, options.image, options.apptainer, options.dry_run == "1",
                        words[:count], words[count:], whole("DDP_NNODES", options.nnodes),
                        whole("DDP_NPROC", options.nproc))


#: The workload kinds (app/launch/workload.py) that are your own program; "": not said (the library's own tests)
OWN_PROGRAMS = ("script", "module", "")


def ask_deepspeed_hostfile(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nproc, path = whole("DDP_NPROC", options.nproc), os.path.join(options.run_dir, "hostfile")
    if options.dry_run:
        job.log(f"DRY_RUN=1: would write {path} ({options.nnodes} line(s) like '{words[0]} slots={nproc}')")
    else:
        make_run_dir(options)
        write_hostfile(path, hostfile_text(words, nproc), group_readable=options.run_dir_mode == "750")
        job.log(f"wrote {path} for the deepspeed launcher ({options.nnodes} node(s) x {nproc} slot(s))")
    # Only your own program may be started by DeepSpeed's launcher: train, check and nccl-tests never are
    if options.workload in OWN_PROGRAMS:
        job.log(launch_line(path, options.scheduler, whole("DDP_NNODES", options.nnodes), words[0], options.port))
    job.answer([])


def ask_job(job: Job, options: argparse.Namespace, words: List[str]) -> int:
    return run_job(job.script, PBS if options.scheduler == "pbs" else SLURM, words)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python3 -m app.launch", description=__doc__.split("\n\n")[0].split(": ")[1],
                                  formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n")[1])
    top.add_argument("--script", default="job", help="the job script's name, for messages")
    top.add_argument("--answer-fd", type=int, help="write the answer NUL-separated to this file descriptor")
    questions = top.add_subparsers(dest="question", metavar="QUESTION")
    questions.required = True

    def question(name: str, ask, help_text: str, *required: str, **optional: str) -> argparse.ArgumentParser:
        """A question; each of REQUIRED is a required --FLAG (its help: the flag's knob), each of OPTIONAL
        (flag_name="default|help") an optional one."""
        added = questions.add_parser(name, help=help_text)
        for flag in required:
            added.add_argument("--" + flag, required=True, help=flag.upper().replace("-", "_"))
        for flag, default_help in optional.items():
            default, _, flag_help = default_help.partition("|")
            added.add_argument("--" + flag.replace("_", "-"), default=default, help=flag_help)
        added.set_defaults(ask=ask)
        return added

    whole_job = question("job", ask_job, "the whole job: -- the job's arguments (jobscripts/slurm.sh, mn5.sh and, "
                         "with --scheduler=pbs, gh200-pbs.sh start it); exit: the job's")
    question("allocation", ask_allocation, "the job's allocation; answer: JOB_ID SUBMIT_DIR GPUS_PER_NODE NODES...",
             "scheduler")
    question("knob-names", ask_knob_names, "the knobs the job script hands over when set (docs/knobs.md)")
    question("knobs", ask_knobs, "every knob with its default, checked; stdin: the knobs the user set, NUL-separated "
             "NAME=VALUE; answer: N, N NAME=VALUE to assign, the ones to export", "job-id", "submit-dir", "nnodes")
    question("run-dir", ask_run_dir, "create RUN_DIR, or check that only you can write it", "run-dir", "scheduler",
             run_dir_mode="700|RUN_DIR_MODE")
    question("nproc", ask_nproc, "processes per node (GPUS_PER_NODE, allocation, CUDA_VISIBLE_DEVICES, nvidia-smi -L), "
             "checked against --gpus-per-task", gpus_per_node="|GPUS_PER_NODE as the user set it",
             allocation="|GPUs a node as the scheduler says", nnodes="?|nodes of the job, for the log line")
    question("node-command", ask_node_command, "what one launcher task runs for -- RDZV_ID PROGRAM...; answer: the "
             "node that hosts the store (or nothing), then the command", "nnodes", "nproc", "rdzv-port",
             "join-timeout", step="torchrun|torchrun, task or mpi", rdzv_host="|the head node's address",
             rdzv_owner="|the node that hosts the store", numa_binding="auto|NUMA_BINDING", launch="torchrun|LAUNCH",
             image="|IMAGE", probe_root="|prefix for /sys (tests)", workload="|the workload's kind")
    question("launch-check", ask_launch_check, "one process on every node? runs -- LAUNCHER... once; stdin: the "
             "nodes, NUL-separated; answer: HOSTNAME SCHEDULER_NAME pairs", "nnodes")
    what = question("workload", ask_workload, "what runs on every node: -- the job's arguments; answer: KIND then "
                    "torchrun's trailing arguments (or the MPI program)", "run-dir", config="demo|CONFIG",
                    check_site="|CHECK_SITE", cwd=".|where a SCRIPT.py is looked for")
    question("binds", ask_binds, "what the container binds (the run directory, the fabric's devices and host "
                     "libraries, BINDS), as apptainer arguments", "fabric", "run-dir", binds="|BINDS",
                     probe_root="|prefix for /dev and the host's libraries (tests)",
                     host_libfabric_dir="|HOST_LIBFABRIC_DIR")
    image = question("image", ask_image, "IMAGE=oras://... pulled into the checkout (once per digest) and its "
                     "signature verified; answer: the image file, its digest and the reference that pulls it "
                     "again (both empty for a local file)", "image", apptainer="apptainer|APPTAINER",
                     verify="auto|IMAGE_VERIFY", no_https="0|IMAGE_NO_HTTPS", cache="|IMAGE_CACHE")
    image.add_argument("--dry-run", action="store_true", help="DRY_RUN=1: only say what would be pulled")
    box = question("container", ask_container, "the container command of every step; checks the image or your "
                   "python; answer: RUNTIME POLICY PREFLIGHT ARGV...", "image", "fabric", "run-dir",
                   apptainer="apptainer|APPTAINER", apptainer_args="|APPTAINER_ARGS", launch="torchrun|LAUNCH",
                   workload="|the workload's kind", preflight="1|PREFLIGHT", run_dir_mode="700|RUN_DIR_MODE",
                   binds="|BINDS", probe_root="|prefix for /dev and the host's libraries (tests)",
                   host_libfabric_dir="|HOST_LIBFABRIC_DIR")
    box.add_argument("--dry-run", action="store_true", help="DRY_RUN=1: a missing image or runtime only warns")
    meet = question("rendezvous", ask_rendezvous, "where torchrun meets and who hosts the store; answer: HOST OWNER, "
                    "then NAME=VALUE to export", "head-node", "port", given="|RDZV_HOST", ifaces="ib0 hsn0|RDZV_IFACES",
                    step="torchrun|torchrun or task")
    meet.add_argument("--dry-run", action="store_true", help="DRY_RUN=1 outside a job")
    question("config-check", ask_config_check, "train: the trainer's --dry-run for this allocation; -- CONTAINER... "
             "WORKLOAD...", "workload", "image", "nnodes", "nproc", "container-words", apptainer="apptainer|APPTAINER",
             dry_run="0|DRY_RUN")
    hostfile = question("deepspeed-hostfile", ask_deepspeed_hostfile, "write RUN_DIR/hostfile for DeepSpeed's "
                        "launcher: -- NODES...", "run-dir", "nproc", "nnodes", "port",
                        run_dir_mode="700|RUN_DIR_MODE (750: the group may read it)",
                        workload="|the workload's kind: the launch line is said for your own script or module only")
    hostfile.add_argument("--dry-run", action="store_true", help="only say what would be written")
    question("fabric", ask_fabric, "FABRIC checked (auto: detected here) and its policy previewed; answer: the fabric, "
             "then NAME=VALUE to export", "fabric", "nnodes", "run-dir", probe_root="|prefix for /dev and /sys (tests)")
    question("finish", ask_finish, "how the job ends: requeue after a snapshot USR1 asked for; exit: the job's",
             "rc", "job-id", "run-dir", preempted="|the signal that asked for a snapshot, if any",
             requeue="1|REQUEUE", jobscript="|this job script, for a PBS resubmission")
    question("heal", ask_heal, "leave the blamed nodes out and requeue, requeue, or give up: -- the job's NODES; "
             "stdin: the launch check's pairs; exit: 75 or RC", "rc", "reason", "max-requeues", "job-id", "run-dir",
             image="|IMAGE, for history.jsonl", jobscript="|this job script, for a PBS resubmission")
    add_pbs_questions(questions)
    for added in (whole_job, what, hostfile, *(questions.choices[name] for name in ("finish", "heal", "container"))):
        added.add_argument("--scheduler", default="slurm", choices=("slurm", "pbs"), help="DDP_SCHEDULER")
    return top


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    words = []  # type: List[str]
    if "--" in argv:
        words = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    options = parser().parse_args(argv)
    job = Job(options.script, options.answer_fd)
    try:
        code = options.ask(job, options, words)
    except UsageError as error:
        error_line(options.script, str(error))
        return exitcodes.USAGE
    return exitcodes.OK if code is None else code
