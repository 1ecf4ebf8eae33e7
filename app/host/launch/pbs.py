"""PBS Pro facts for the PBS job (app/host/launch/pbs_job.py, requeue.py): this job's `qstat -f` read, the options of
its resubmission, and the delay of the timer that sends USR1 before the walltime ends. Standard library only, Python
3.6 on: it runs on the batch host's python3 (SLES 15: 3.6), outside the image.
"""

import collections
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Set, Tuple

from app.host.common.errors import UsageError

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

#: Seconds `qstat -f` may take: a server that does not answer must not hold the job's end (its resubmission)
QSTAT_TIMEOUT_S = 60

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


def read_qstat_full(job_id: str) -> str:
    """What `qstat -f JOB_ID` prints on stdout ('' without qstat, or when it hangs); its stderr is dropped, what
    it printed is judged by parse_qstat_full."""
    if shutil.which("qstat") is None:
        return ""
    try:
        shown = subprocess.run(["qstat", "-f", job_id], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=QSTAT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return shown.stdout.decode("utf-8", "surrogateescape")
