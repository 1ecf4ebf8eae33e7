"""`python3 -m app.launch`: the job's plan for the job scripts (jobscripts/lib.sh), one question a call.

    python3 -m app.launch [--script NAME] [--answer-fd FD] QUESTION [OPTIONS] [-- WORDS...]

The answer is a list of words: with --answer-fd, each ends in a NUL on that descriptor (bash reads them with
`mapfile -d ''`, never evaluating them); without, one shell-quoted word a line on stdout. Log lines go to stdout
as the job's log writes them ("[HH:MM:SS NAME] ..."); bad input is one line "NAME: error: ..." on stderr and
exit 2, no traceback. Standard library only: it runs on the batch host's python3 (SLES 15: 3.6), outside the image.
"""

import argparse
import os
import shlex
import sys
import time
from typing import List, Optional, Sequence

from app.common import exitcodes
from app.common.errors import UsageError
from app.launch.binds import container_binds
from app.launch.container import container
from app.launch.deepspeed_hostfile import hostfile_text, launch_line, write_hostfile
from app.launch.fabric import check_fabric
from app.launch.finish import ending
from app.launch.gpus import gpus_per_task, processes_per_node
from app.launch.heal import decide, read_facts
from app.launch.knobs import NAMES, Facts, answer_words, read_given, resolve
from app.launch.launch_check import passed, read_reports, scheduler_names, verdict
from app.launch.numa import numa_binding
from app.launch.pbs_questions import add_questions as add_pbs_questions
from app.launch.plan import Plan
from app.launch.port import free_port
from app.launch.rendezvous import rendezvous
from app.launch.slurm import cpus_warning, slurm_launch
from app.launch.workload import nccl_tests_one_node, submit_command, workload


class Job:
    """Where a question's log lines and answer go."""

    def __init__(self, script: str, answer_fd: Optional[int]) -> None:
        self.script = script
        self.answer_fd = answer_fd

    def log(self, message: str) -> None:
        # As bytes: Python 3.6 under a batch job's C locale writes stdout as ASCII and would stop at a job name or
        # a path with an é; what came in undecodable (surrogateescape) goes out as it came
        line = "[{} {}] {}\n".format(time.strftime("%H:%M:%S"), self.script, message)
        sys.stdout.flush()
        sys.stdout.buffer.write(line.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()

    def answer(self, words: Sequence[str]) -> None:
        if self.answer_fd is None:
            print("\n".join(shlex.quote(word) for word in words))
            return
        with os.fdopen(self.answer_fd, "wb", closefd=False) as out:
            out.write(b"".join(word.encode("utf-8", "surrogateescape") + b"\0" for word in words))


def _whole(name: str, value: str) -> int:
    if not value.isdigit():
        raise UsageError(f"{name}={value} is not a whole number; example: {name}=60")
    return int(value)


def ask_knob_names(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(NAMES)


def ask_knobs(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    facts = Facts(job_id=options.job_id, submit_dir=options.submit_dir, nnodes=options.nnodes)
    job.answer(answer_words(resolve(facts, read_given(sys.stdin.buffer.read()), job.log)))


def ask_fabric(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    fabric = check_fabric(options.fabric, options.detected, options.probe_root, options.fi_provider)
    for line in fabric.said:
        job.log(line)
    job.answer([fabric.name])


def ask_finish(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    end = ending(_whole("RC", options.rc), options.preempted, options.requeue, options.job_id, options.run_dir, words)
    job.answer([str(end.exit_code), end.said, "1" if end.requeue else "0", end.if_requeue_fails])


def ask_heal(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nodes = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    decision = decide(read_facts(options.scheduler, options.reason, nodes, options.requeues_in_a_row,
                                 options.max_requeues, options.check_command, options.run_dir))
    job.answer([decision.action, ",".join(decision.nodes), decision.message, decision.history_reason])


def ask_nproc(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nproc, source = processes_per_node(options.gpus_per_node, options.allocation, os.environ)
    job.log(f"{options.nnodes} node(s) x {nproc} process(es) per node (from {source})")
    job.answer([str(nproc)])


def ask_gpus_per_task(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    per_task = gpus_per_task(os.environ)
    job.answer([per_task] if per_task else [])


def ask_port(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer([str(free_port(options.probe_root))])


def ask_torchrun(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    if not words:
        raise UsageError("torchrun needs -- RDZV_ID PROGRAM...; example: -- 42 -m app.train")
    numa = numa_binding(options.numa_binding, options.launch, options.image, options.probe_root)
    if numa.said:
        job.log(numa.said)
    plan = Plan(nnodes=_whole("DDP_NNODES", options.nnodes), nproc=_whole("DDP_NPROC", options.nproc),
                rdzv_host=options.rdzv_host, rdzv_port=_whole("RDZV_PORT", options.rdzv_port),
                join_timeout_s=_whole("RDZV_JOIN_TIMEOUT_S", options.join_timeout), numa=numa.args)
    job.answer(plan.torchrun_argv(words[0], words[1:]))


def ask_launch_check(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nnodes = _whole("DDP_NNODES", options.nnodes)
    check = read_reports(sys.stdin.read(), words)
    failed = verdict(check, nnodes, words, options.launcher, options.said)
    if failed:
        raise UsageError(failed)
    job.log(passed(check, nnodes))
    job.answer([word for pair in check.names.items() for word in pair])


def ask_scheduler_names(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    given = sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0")
    pairs = given[1:len(given) - (len(given) - 1) % 2]
    name_of = dict(zip(pairs[0::2], pairs[1::2]))
    job.answer([",".join(scheduler_names(given[0].split(","), name_of))])


def ask_workload(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    what = workload(words, options.config, options.run_dir, options.check_site, options.scheduler, job.script,
                    options.cwd)
    job.answer([what.kind, *what.argv])


def ask_submit_command(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer([submit_command(options.scheduler, job.script, words)])


def ask_slurm_launch(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nproc = _whole("DDP_NPROC", options.nproc)
    warning = cpus_warning(nproc, os.environ)
    if warning:
        job.log(warning)
    launch = slurm_launch(options.launch, options.workload, _whole("DDP_NNODES", options.nnodes), nproc, os.environ)
    job.answer([launch.step, str(len(launch.per_node)), *launch.per_node, *launch.launcher])


def ask_binds(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    binds = container_binds(options.fabric, options.run_dir, options.binds, options.probe_root,
                            options.host_libfabric_dir, os.environ.get("LD_LIBRARY_PATH", ""))
    for warning in binds.warnings:
        job.log(warning)
    job.answer(binds.args)


def ask_container(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    binds = container_binds(options.fabric, options.run_dir, options.binds, options.probe_root,
                            options.host_libfabric_dir, os.environ.get("LD_LIBRARY_PATH", ""))
    for warning in binds.warnings:
        job.log(warning)
    plan = container(options.image, options.apptainer, options.apptainer_args, options.launch, options.workload,
                     options.dry_run, binds.args, options.policy_file)
    for line in plan.said:
        job.log(line)
    job.answer([plan.runtime, plan.policy, plan.host_program, *plan.argv])


def ask_rendezvous(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    meeting = rendezvous(options.head_node, options.port, options.given, options.ifaces, options.dry_run)
    job.log(meeting.said)
    job.answer([meeting.host, meeting.owner])


def ask_nccl_tests_one_node(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer([nccl_tests_one_node(_whole("DDP_NPROC", options.nproc))])


def ask_deepspeed_hostfile(job: Job, options: argparse.Namespace, words: List[str]) -> None:
    nproc, path = _whole("DDP_NPROC", options.nproc), os.path.join(options.run_dir, "hostfile")
    if options.dry_run:
        job.log(f"DRY_RUN=1: would write {path} ({options.nnodes} line(s) like '{words[0]} slots={nproc}')")
    else:
        write_hostfile(path, hostfile_text(words, nproc), group_readable=options.run_dir_mode == "750")
        job.log(f"wrote {path} for the deepspeed launcher ({options.nnodes} node(s) x {nproc} slot(s))")
    job.log(launch_line(path, options.scheduler, _whole("DDP_NNODES", options.nnodes), words[0], options.port))
    job.answer([])


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python3 -m app.launch", description=__doc__.split("\n\n")[0].split(": ")[1],
                                  formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n")[1])
    top.add_argument("--script", default="job", help="the job script's name, for messages")
    top.add_argument("--answer-fd", type=int, help="write the answer NUL-separated to this file descriptor")
    questions = top.add_subparsers(dest="question", metavar="QUESTION")
    questions.required = True
    questions.add_parser("knob-names", help="the knobs the job script hands over when set (docs/knobs.md)"
                         ).set_defaults(ask=ask_knob_names)
    knobs = questions.add_parser("knobs", help="every knob with its default, checked; stdin: the knob-names the "
                                 "user set, NUL-separated NAME=VALUE; answer: N, N NAME=VALUE to assign, the ones "
                                 "to export")
    knobs.add_argument("--job-id", required=True, help="DDP_JOB_ID")
    knobs.add_argument("--submit-dir", required=True, help="DDP_SUBMIT_DIR")
    knobs.add_argument("--nnodes", required=True, help="DDP_NNODES")
    knobs.set_defaults(ask=ask_knobs)
    nproc = questions.add_parser("nproc", help="processes per node (GPUS_PER_NODE, allocation, CUDA_VISIBLE_DEVICES,"
                                                " nvidia-smi -L), checked against --gpus-per-task")
    nproc.add_argument("--gpus-per-node", default="", help="GPUS_PER_NODE as the user set it")
    nproc.add_argument("--allocation", default="", help="GPUs a node as the scheduler says")
    nproc.add_argument("--nnodes", default="?", help="nodes of the job, for the log line")
    nproc.set_defaults(ask=ask_nproc)
    questions.add_parser("gpus-per-task", help="the N of --gpus-per-task=N, or nothing").set_defaults(
        ask=ask_gpus_per_task)
    port = questions.add_parser("port", help="a free rendezvous port on this node, at random")
    port.add_argument("--probe-root", default="", help="prefix for /proc (tests)")
    port.set_defaults(ask=ask_port)
    torchrun = questions.add_parser("torchrun", help="one node's torchrun command: ... -- RDZV_ID PROGRAM...")
    for flag, help_text in (("--nnodes", "DDP_NNODES"), ("--nproc", "processes per node"),
                            ("--rdzv-host", "the head node's address"), ("--rdzv-port", "RDZV_PORT"),
                            ("--join-timeout", "RDZV_JOIN_TIMEOUT_S")):
        torchrun.add_argument(flag, required=True, help=help_text)
    torchrun.add_argument("--numa-binding", default="auto", help="NUMA_BINDING")
    torchrun.add_argument("--launch", default="torchrun", help="LAUNCH")
    torchrun.add_argument("--image", default="", help="IMAGE")
    torchrun.add_argument("--probe-root", default="", help="prefix for /sys (tests)")
    torchrun.set_defaults(ask=ask_torchrun)
    check = questions.add_parser("launch-check", help="one process on every node? stdin: the launcher's reports; "
                                 "-- NODES...; answer: HOSTNAME SCHEDULER_NAME pairs")
    check.add_argument("--nnodes", required=True, help="DDP_NNODES")
    check.add_argument("--launcher", default="", help="the launcher's command, for the message")
    check.add_argument("--said", default="", help="what the launcher wrote on stderr, for the message")
    check.set_defaults(ask=ask_launch_check)
    questions.add_parser("scheduler-names", help="hostnames as the scheduler names them; stdin, NUL-separated: "
                         "HOSTS (comma-separated), then the launch check's HOSTNAME SCHEDULER_NAME pairs").set_defaults(
        ask=ask_scheduler_names)
    what = questions.add_parser("workload", help="what runs on every node: -- the job's arguments; answer: KIND "
                                "then torchrun's trailing arguments (or the MPI program)")
    what.add_argument("--config", default="demo", help="CONFIG")
    what.add_argument("--run-dir", required=True, help="RUN_DIR")
    what.add_argument("--check-site", default="", help="CHECK_SITE")
    what.add_argument("--cwd", default=".", help="where a SCRIPT.py is looked for")
    what.set_defaults(ask=ask_workload)
    submit = questions.add_parser("submit-command", help="how to submit this job script with -- WORKLOAD...")
    submit.set_defaults(ask=ask_submit_command)
    slurm = questions.add_parser("slurm-launch", help="Slurm's srun command lines; answer: STEP (torchrun, task, "
                                 "mpi), N, the per-node launcher's N words, then the step's launcher")
    slurm.add_argument("--launch", default="torchrun", help="LAUNCH")
    slurm.add_argument("--workload", required=True, help="the workload's kind")
    slurm.add_argument("--nnodes", required=True, help="DDP_NNODES")
    slurm.add_argument("--nproc", required=True, help="DDP_NPROC")
    slurm.set_defaults(ask=ask_slurm_launch)
    binds = questions.add_parser("binds", help="what the container binds, as apptainer arguments")
    binds.set_defaults(ask=ask_binds)
    box = questions.add_parser("container", help="the container command of every step, and binds' options; answer: "
                               "RUNTIME POLICY HOST_PROGRAM ARGV...")
    box.add_argument("--image", required=True, help="IMAGE (none: no container)")
    box.add_argument("--apptainer", default="apptainer", help="APPTAINER")
    box.add_argument("--apptainer-args", default="", help="APPTAINER_ARGS")
    box.add_argument("--launch", default="torchrun", help="LAUNCH")
    box.add_argument("--workload", default="", help="the workload's kind")
    box.add_argument("--policy-file", required=True, help="this checkout's fabric policy")
    box.add_argument("--dry-run", action="store_true", help="DRY_RUN=1: a missing image or runtime only warns")
    for question in (binds, box):
        question.add_argument("--fabric", required=True, help="FABRIC (infiniband, roce, slingshot, none)")
        question.add_argument("--run-dir", required=True, help="RUN_DIR")
        question.add_argument("--binds", default="", help="BINDS")
        question.add_argument("--probe-root", default="", help="prefix for /dev and the host's libraries (tests)")
        question.add_argument("--host-libfabric-dir", default="", help="HOST_LIBFABRIC_DIR")
    box.set_defaults(ask=ask_container)
    meet = questions.add_parser("rendezvous", help="where torchrun meets and who hosts the store; answer: HOST OWNER")
    meet.add_argument("--head-node", required=True, help="DDP_HEAD_NODE")
    meet.add_argument("--port", required=True, help="RDZV_PORT")
    meet.add_argument("--given", default="", help="RDZV_HOST")
    meet.add_argument("--ifaces", default="ib0 hsn0", help="RDZV_IFACES")
    meet.add_argument("--dry-run", action="store_true", help="DRY_RUN=1 outside a job")
    meet.set_defaults(ask=ask_rendezvous)
    one_node = questions.add_parser("nccl-tests-one-node", help="the nccl-tests command for one node, for messages")
    one_node.add_argument("--nproc", required=True, help="ranks on the node")
    one_node.set_defaults(ask=ask_nccl_tests_one_node)
    hostfile = questions.add_parser("deepspeed-hostfile", help="write RUN_DIR/hostfile for DeepSpeed's launcher: "
                                    "-- NODES...")
    hostfile.add_argument("--run-dir", required=True, help="RUN_DIR")
    hostfile.add_argument("--run-dir-mode", default="700", help="RUN_DIR_MODE (750: the group may read it)")
    hostfile.add_argument("--nproc", required=True, help="DDP_NPROC")
    hostfile.add_argument("--nnodes", required=True, help="DDP_NNODES")
    hostfile.add_argument("--port", required=True, help="RDZV_PORT")
    hostfile.add_argument("--dry-run", action="store_true", help="only say what would be written")
    hostfile.set_defaults(ask=ask_deepspeed_hostfile)
    fabric = questions.add_parser("fabric", help="FABRIC checked against the head node; answer: the fabric")
    fabric.add_argument("--fabric", required=True, help="FABRIC (infiniband, roce, slingshot, auto, none)")
    fabric.add_argument("--detected", default="", help="what the fabric policy detected, for FABRIC=auto")
    fabric.add_argument("--probe-root", default="", help="prefix for /dev and /sys (tests)")
    fabric.add_argument("--fi-provider", default="", help="FI_PROVIDER as set")
    fabric.set_defaults(ask=ask_fabric)
    end = questions.add_parser("finish", help="how the job ends: -- REQUEUE_CMD...; answer: EXIT_CODE SAID REQUEUE "
                               "IF_REQUEUE_FAILS")
    end.add_argument("--rc", required=True, help="the last step's exit code")
    end.add_argument("--preempted", default="", help="DDP_PREEMPTED: the signal that asked for a snapshot, if any")
    end.add_argument("--requeue", default="1", help="REQUEUE")
    end.add_argument("--job-id", required=True, help="DDP_JOB_ID")
    end.add_argument("--run-dir", required=True, help="RUN_DIR")
    end.set_defaults(ask=ask_finish)
    heal = questions.add_parser("heal", help="leave blamed nodes out and requeue, requeue, or give up (stdin: the "
                                "nodes); answer: ACTION NODES MESSAGE HISTORY_REASON")
    heal.add_argument("--reason", required=True, help="what failed, for the log and history.jsonl")
    heal.add_argument("--requeues-in-a-row", required=True, help="bad-node requeues in a row so far")
    heal.add_argument("--max-requeues", required=True, help="MAX_REQUEUES")
    heal.add_argument("--check-command", required=True, help="how to submit a check of the nodes, for the message")
    heal.add_argument("--run-dir", required=True, help="RUN_DIR, for the message")
    heal.set_defaults(ask=ask_heal)
    add_pbs_questions(questions)
    for question in (what, submit, hostfile, heal):
        question.add_argument("--scheduler", default="slurm", choices=("slurm", "pbs"), help="DDP_SCHEDULER")
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
        options.ask(job, options, words)
    except UsageError as error:
        print(f"{options.script}: error: {error}", file=sys.stderr, flush=True)
        return exitcodes.USAGE
    return exitcodes.OK
