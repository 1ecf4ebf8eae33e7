"""Healing a job (standard library only): a preflight or a workload failed and named the nodes to blame in
RUN_DIR/nodes-to-exclude.txt; the job is requeued without them (exclude), requeued as it was where the scheduler
cannot leave a node out (requeue), or, after MAX_REQUEUES such requeues in a row with no training progress between,
it gives up (give-up). Each is a line of history.jsonl, beside the trainer's line per attempt.

The job (app/host/launch/job.py JobRun.requeue_for_bad_nodes) ends with requeue_for_bad_nodes()'s code: 75 after a
requeue, RC after giving up (its line on stderr); bad input raises UsageError (one line on stderr, exit 2).
"""

import collections
import os
import re
from pathlib import Path
from typing import Callable, Dict, List, Mapping, NamedTuple, Sequence, Tuple

from app.host.common import exitcodes
from app.host.common.errors import UsageError
from app.host.common.history import append_event, requeues_in_a_row
from app.host.launch.launch_check import scheduler_names
from app.host.launch.requeue import requeue
from app.host.launch.say import error_line
from app.host.launch.workload import submit_command

EXCLUDE = "exclude"
REQUEUE = "requeue"
GIVE_UP = "give-up"

#: Whether the scheduler can requeue a job so that it avoids given nodes.
LEAVES_NODES_OUT = {
    # scontrol update JobId=... ExcNodeList=... after scontrol requeue (slurm.schedmd.com/scontrol.html)
    "slurm": True,
    # A select statement names the hosts a chunk must run on (host=NAME), never those it must not: a node filter
    # for that was designed and never shipped (pbspro.atlassian.net "node_filter"), and taking a node offline
    # (pbsnodes -o) needs operator rights. The job is resubmitted as it was; the next preflight checks the nodes.
    "pbs": False,
}
#: A node name as a scheduler and a resolver take it (RFC 1123 labels, dots between; no option, no shell word).
NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

RequeueEvidence = collections.namedtuple(
    "RequeueEvidence", "scheduler reason nodes requeues_in_a_row max_requeues check_command run_dir")
RequeueEvidence.__doc__ = """What the decision rests on: the scheduler (slurm, pbs), what failed (reason), the blamed
nodes (scheduler names), bad-node requeues in a row so far (history.jsonl), MAX_REQUEUES, and for the message the
submit command of a check and the run directory."""

Decision = collections.namedtuple("Decision", "action nodes message history_reason")
Decision.__doc__ = """One of EXCLUDE, REQUEUE, GIVE_UP; the nodes it concerns; the job log's line (the error line
on GIVE_UP); history.jsonl's reason."""


def decide(evidence: RequeueEvidence) -> Decision:
    """The bad-node requeue's decision: give up at MAX_REQUEUES requeues in a row, else requeue, without the nodes
    where the scheduler can leave them out."""
    reason, nodes = evidence.reason, ",".join(evidence.nodes)
    done, limit = evidence.requeues_in_a_row, evidence.max_requeues
    if done >= limit:
        return Decision(
            GIVE_UP, evidence.nodes,
            f"giving up after {done} requeue(s) in a row for bad nodes (MAX_REQUEUES={limit}): {reason}, blaming "
            f"{nodes}; see {evidence.run_dir}/history.jsonl, check the nodes ({evidence.check_command}) and resubmit "
            f"with RUN_DIR={evidence.run_dir} to resume",
            f"{reason}; blamed {nodes}; {done} requeue(s) in a row already")
    count = f"{done + 1} of at most {limit} in a row"
    if LEAVES_NODES_OUT[evidence.scheduler]:
        return Decision(EXCLUDE, evidence.nodes, f"{reason}: leaving out {nodes} and requeueing ({count})",
                        f"{reason}; left out {nodes}")
    scheduler, them = evidence.scheduler.upper(), "it" if len(evidence.nodes) == 1 else "them"
    return Decision(
        REQUEUE, evidence.nodes,
        f"{reason}: requeueing as before ({count}); {scheduler} cannot leave {nodes} out of a resubmission: ask your "
        f"site to take {them} offline (pbsnodes -o {nodes}, operator rights); the next preflight checks whatever "
        "nodes the job gets",
        f"{reason}; blamed {nodes} ({scheduler} cannot leave {them} out)")


def read_nodes(text: str) -> Tuple[str, ...]:
    """The blamed nodes, comma- or newline-separated, each once, in their order."""
    nodes: List[str] = []
    for name in re.split(r"[,\s]+", text.strip()):
        if not name or name in nodes:
            continue
        if not NODE_NAME.fullmatch(name):
            raise UsageError(f"{name!r} is not a node name (letters, digits, . _ -, a letter or digit first); the "
                             "blamed nodes come from nodes-to-exclude.txt in the run directory")
        nodes.append(name)
    if not nodes:
        raise UsageError("no blamed node on stdin (comma- or newline-separated names, example: node2,node7)")
    return tuple(nodes)


def whole_number(text: str, what: str, example: str) -> int:
    if not re.fullmatch("[0-9]+", text):
        raise UsageError(f"{what} is not a whole number; {example}")
    return int(text)


def read_facts(scheduler: str, reason: str, nodes_text: str, requeues_in_a_row: str, max_requeues: str,
               check_command: str, run_dir: str) -> RequeueEvidence:
    """The facts as the job script passes them (text), checked."""
    if scheduler not in LEAVES_NODES_OUT:
        raise UsageError("scheduler {!r} is not one of {}".format(scheduler, ", ".join(sorted(LEAVES_NODES_OUT))))
    return RequeueEvidence(
        scheduler=scheduler, reason=reason, nodes=read_nodes(nodes_text),
        requeues_in_a_row=whole_number(
            requeues_in_a_row, f"history.jsonl's requeues in a row ({requeues_in_a_row!r})",
            "app.host.common.history requeues-in-a-row RUN_DIR prints it, example: 2"),
        max_requeues=whole_number(max_requeues, f"MAX_REQUEUES={max_requeues}", "example: MAX_REQUEUES=3"),
        check_command=check_command, run_dir=run_dir)


class RequeuedJob(NamedTuple):
    """The job a bad-node requeue concerns: its scheduler, run directory, id, image, job script and the environment it
    started in (for a PBS resubmission), nodes, and what each node calls itself -> its scheduler name (the launch
    check's pairs)."""

    scheduler: str
    run_dir: str
    job_id: str
    image: str
    jobscript: str
    started_env: Mapping[str, str]
    nodes: Sequence[str]
    name_of: Dict[str, str]


def requeue_for_bad_nodes(log: Callable[[str], None], script: str, job: RequeuedJob, rc: int, reason: str,
                          max_requeues: str) -> int:
    """Leave the nodes of RUN_DIR/nodes-to-exclude.txt out and requeue (75), requeue as before where the scheduler
    cannot leave a node out (75), or give up at MAX_REQUEUES (RC, its line on stderr); each is a line of
    history.jsonl."""
    exclude_file = os.path.join(job.run_dir, "nodes-to-exclude.txt")
    try:
        with open(exclude_file, encoding="utf-8", errors="surrogateescape") as blamed:
            hosts = sorted({line.strip() for line in blamed if line.strip()})
        nodes = scheduler_names(hosts, job.name_of)
        if nodes != hosts:
            log(f"the blamed hosts {','.join(hosts)} are {job.scheduler} node(s) {','.join(nodes)}")
        run_dir = Path(job.run_dir)
        decision = decide(read_facts(job.scheduler, reason, ",".join(nodes), str(requeues_in_a_row(run_dir)),
                                     max_requeues, submit_command(job.scheduler, script, ["check"]), job.run_dir))
        event = "gave-up" if decision.action == GIVE_UP else "requeue"
        append_event(run_dir, event, decision.history_reason, hosts=list(job.nodes), excluded=list(decision.nodes),
                     job_id=job.job_id or None, image=job.image or None)
    except OSError as err:
        raise UsageError(f"{err.filename or exclude_file}: {err.strerror}; history.jsonl and nodes-to-exclude.txt must "
                         "be regular files the job can read and append to (remove what is there, or give another "
                         "RUN_DIR)") from None
    if decision.action == GIVE_UP:
        error_line(script, decision.message)
        return rc
    log(decision.message)
    requeue(log, script, job.scheduler, job.job_id, decision.nodes if decision.action == EXCLUDE else [],
            job.run_dir, job.jobscript, job.started_env)
    return exitcodes.PREEMPTED
