"""PBS Pro facts for jobscripts/lib-pbs.sh: this job's `qstat -f` read, the options of its resubmission, and the
delay of the timer that sends USR1 before the walltime ends (bash keeps the timer itself, the trap and qsub).

    qstat -f JOBID | python3 -m app.launch.pbs options [--job-id JOBID]
        qsub_options=(-A ACCOUNT -q QUEUE -N NAME -l select=... -l walltime=...)  note='...'
    qstat -f JOBID | python3 -m app.launch.pbs timer --walltime-s "$WALLTIME_S" --margin-s 90 --elapsed-s "$SECONDS"
        delay_s=SECONDS (empty: no timer)  note='...'

Each prints bash assignments, every value quoted (app/launch/answer.py). Bad input: one line on stderr, exit 2.
Standard library only, Python 3.6 on: it runs on the nodes' own python3 (SLES 15: 3.6), outside the image.
"""

import argparse
import collections
import re
import shlex
import sys
from typing import Dict, List, Optional, Set, Tuple

from app.common.errors import UsageError, exits_cleanly
from app.launch import answer

# `qstat -f` (PBS Professional Reference Guide, qstat; OpenPBS doc/man1/qstat.1B: "-f [-w] Full display for long
# format. Job, queue or server attributes displayed one to a line", "-w prints each attribute on one unbroken
# line"): "Job Id: ID", then one "    Name = value" per attribute (a resource as Resource_List.NAME). Without -w
# a long value is folded, each further line starting with a tab: OpenPBS prt_attr(), src/cmds/qstat.c, cuts lines
# of CHAR_LINE_LIMIT (78) columns at the value's commas where a piece fits and anywhere inside a piece that does
# not (an exec_vnode of many nodes), so the tab lines join with nothing between.
JOB_ID = re.compile(r"Job Id: (\S+)\s*")
ATTRIBUTE = re.compile(r"    ([A-Za-z][A-Za-z0-9_.-]*) = (.*)")
#: A duration, as PBS takes walltime: [[hours:]minutes:]seconds[.milliseconds] (PBS Professional Reference Guide,
#: "Formats"; OpenPBS doc/man1/pbs_module.7B, pbs.duration).
DURATION = re.compile(r"(?:(?:([0-9]+):)?([0-9]+):)?([0-9]+)(?:\.[0-9]+)?")
#: Job-wide resources the server derives from select (the sums of the chunks' and the node count): PBS refuses
#: them beside a select, so a resubmission leaves them out.
DERIVED_FROM_SELECT = frozenset(("ncpus", "ngpus", "mem", "vmem", "nodect", "mpiprocs", "ompthreads", "nodes"))

Timer = collections.namedtuple("Timer", "delay_s note")
Timer.__doc__ = "When the timer sends USR1 (delay_s seconds from now; None: no timer) and the line saying why."


def parse_qstat_full(text: str) -> Tuple[str, Dict[str, str]]:
    """The job id and the attributes of one job's `qstat -f`, folded values joined; UsageError on anything else."""
    job_id: Optional[str] = None
    attributes: Dict[str, str] = {}
    current: Optional[str] = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("\t"):
            if current is None:
                raise UsageError(f"qstat -f line {number} continues no attribute (a tab first, but no 'Name = value' "
                                 f"before it): {line!r}; run qstat -f yourself to see it")
            attributes[current] += line[1:]
            continue
        current = None
        if not line.strip():
            continue
        header = JOB_ID.fullmatch(line)
        if header and job_id is not None:
            raise UsageError(f"qstat -f shows more than one job ({job_id}, {header.group(1)}); give it this job's id "
                             "alone, example: qstat -f $PBS_JOBID")
        if header:
            job_id = header.group(1)
            continue
        found = ATTRIBUTE.fullmatch(line) if job_id is not None else None
        if found is None:
            raise UsageError(f"qstat -f line {number} is not 'Job Id: ID', '    Name = value' or a continuation (a tab "
                             f"first): {line!r}; run qstat -f yourself to see what prints it (a site wrapper?)")
        current = found.group(1)
        attributes[current] = found.group(2)
    if job_id is None:
        raise UsageError("qstat -f printed nothing; run qstat -f $PBS_JOBID yourself to see why")
    return job_id, attributes


def walltime_seconds(value: str) -> int:
    """A PBS duration, [[hours:]minutes:]seconds[.milliseconds], in whole seconds (the milliseconds dropped)."""
    found = DURATION.fullmatch(value)
    if found is None:
        raise UsageError(f"walltime {value!r} is not a PBS duration, [[hours:]minutes:]seconds[.milliseconds]; "
                         "example: 03:00:00")
    hours, minutes, seconds = (int(part or 0) for part in found.groups())
    return hours * 3600 + minutes * 60 + seconds


def chunk_resources(select: str) -> Set[str]:
    """The resources a select statement asks of its chunks: `2:ncpus=288:ngpus=4+1:bigmem=true` -> ncpus, ngpus,
    bigmem (chunks joined by +, each an optional count, then NAME=VALUE items joined by :)."""
    return {item.split("=", 1)[0] for chunk in select.split("+") for item in chunk.split(":") if "=" in item}


def submission_options(attributes: Dict[str, str]) -> List[str]:
    """The qsub options that submit this job again as it was submitted: account, queue, name, and each resource
    given job-wide (select, place, walltime, site resources), not those inside select's chunks or derived from it."""
    options: List[str] = []
    for flag, name in (("-A", "Account_Name"), ("-q", "queue"), ("-N", "Job_Name")):
        if attributes.get(name):
            options += [flag, attributes[name]]
    inside = DERIVED_FROM_SELECT | chunk_resources(attributes.get("Resource_List.select", ""))
    for key in sorted(attributes):
        resource = key[len("Resource_List."):]
        if key.startswith("Resource_List.") and resource not in inside:
            options += ["-l", f"{resource}={attributes[key]}"]
    return options


def whole_seconds(name: str, value: str) -> int:
    if not re.fullmatch("[0-9]+", value):
        raise UsageError(f"{name}={value} must be whole seconds; example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90")
    return int(value)


def timer_delay(walltime_s: str, margin_s: str, elapsed_s: str, qstat_text: str) -> Timer:
    """USR1 margin_s before the walltime ends, counted from the job's start (elapsed_s ago), at least 1 s from now.
    The walltime: WALLTIME_S when set (whole seconds), else Resource_List.walltime of `qstat -f`."""
    margin = whole_seconds("PREEMPT_MARGIN_S", margin_s)
    elapsed = whole_seconds("the job's elapsed seconds", elapsed_s)
    if walltime_s:
        walltime = whole_seconds("WALLTIME_S", walltime_s)
    else:
        try:
            shown = parse_qstat_full(qstat_text)[1].get("Resource_List.walltime") if qstat_text.strip() else None
            if shown is None:
                why = "said nothing" if not qstat_text.strip() else "shows no Resource_List.walltime"
                return Timer(None, f"walltime unknown (no WALLTIME_S, and qstat -f {why}): no snapshot before the "
                                   "limit; WALLTIME_S=SECONDS sets it")
            walltime = walltime_seconds(shown)
        except UsageError as cause:
            return Timer(None, f"walltime unknown (no WALLTIME_S, and qstat -f: {cause}): no snapshot before the "
                               "limit; WALLTIME_S=SECONDS sets it")
    delay = max(1, walltime - margin - elapsed)
    return Timer(delay, f"USR1 in {delay}s (walltime {walltime}s minus {margin}s margin) for a snapshot before "
                        "the limit")


@exits_cleanly
def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m app.launch.pbs", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="{options,timer}")
    commands.required = True  # add_subparsers(required=...) is Python 3.7
    options = commands.add_parser("options", help="qsub options of this job's resubmission, from qstat -f on stdin")
    options.add_argument("--job-id", default="", help="the job's id, for messages")
    timer = commands.add_parser("timer", help="seconds until USR1, from WALLTIME_S or qstat -f on stdin")
    timer.add_argument("--walltime-s", required=True, help="WALLTIME_S (empty: read qstat -f from stdin)")
    timer.add_argument("--margin-s", required=True, help="PREEMPT_MARGIN_S")
    timer.add_argument("--elapsed-s", required=True, help="seconds the job has run ($SECONDS)")
    args = parser.parse_args(argv)
    if args.command == "options":
        text = answer.read_stdin()
        if not text.strip():
            found: List[str] = []
            note = "warning: qstat -f {}said nothing: resubmitting with the script's #PBS defaults only".format(
                args.job_id + " " if args.job_id else "")
        else:
            found = submission_options(parse_qstat_full(text)[1])
            note = "resubmitting with this job's options: " + " ".join(shlex.quote(o) for o in found)
        answer.emit([answer.array("qsub_options", found), answer.assignment("note", note)])
    else:
        result = timer_delay(args.walltime_s, args.margin_s, args.elapsed_s,
                             answer.read_stdin() if not args.walltime_s else "")
        delay = None if result.delay_s is None else str(result.delay_s)
        answer.emit([answer.assignment("delay_s", delay), answer.assignment("note", result.note)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
