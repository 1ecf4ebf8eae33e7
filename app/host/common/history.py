"""`history.jsonl` in the run directory, its one writer: a line per attempt of a run and a line per job-script
event, for a campaign of requeued jobs.

Each trainer start appends: attempt number, time, scheduler job id, hosts, launcher, image (a registry image's digest
and the reference that pulls it again too), the step it starts from, and how the previous attempt ended, read from
the summary.json that attempt left (completed, preempted by a signal, hung and who held it up) or, when it left none,
that it was killed or crashed. The job scripts add their own lines between attempts through this module's command
line (`"event": "requeue"` when they leave a bad node out and requeue, `"gave-up"` at their limit;
app/host/launch/bad_node_requeue.py); the next attempt quotes the reason. Standard library only: the job scripts run it
with the host's python3, before any venv and outside the image.

    python3 -m app.host.common.history event RUN_DIR EVENT REASON [--hosts a,b | --hosts-from -] [--excluded b]
                                     [--job-id J] [--image I]
    python3 -m app.host.common.history requeues-in-a-row RUN_DIR
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from app.host.common import exitcodes, scheduler_env
from app.host.common.jsonl import json_objects
from app.host.common.private_dir import PRIVATE_FILE, group_readable_mode
from app.host.common.provenance import image_provenance
from app.host.common.regular_files import MAX_SUMMARY_BYTES, read_regular, require_regular


def previous_ending(run_dir: Path, previous: Optional[Mapping[str, Any]]) -> Optional[str]:
    """How the attempt recorded in `previous` ended; None for a run's first attempt."""
    if previous is None:
        return None
    if "event" in previous:  # the job scripts' line: they said why
        return f"{previous['event']}: {previous.get('reason', '')}"
    summary = run_dir / "summary.json"
    try:
        if summary.stat().st_mtime >= previous["started_unix"]:
            data = json.loads(read_regular(summary, MAX_SUMMARY_BYTES))
            if data["status"] == "hung":
                return f"hung at step {data['step']}: {data['hang']['message']}"
            how = f" by {data['signal']}" if data.get("signal") else ""
            return f"{data['status']}{how} at step {data['step']}"
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        pass
    return "left no summary: killed (SIGKILL, out of memory, time limit, node failure) or crashed; see its log"


def _append(path: Path, entry: Mapping[str, Any]) -> None:
    """One line at the end; after a line cut short (no newline: a crash mid-write) a newline first, so the cut
    line stays the only one lost."""
    # Non-blocking and checked on the descriptor: a FIFO left in the run directory must not hold the job up.
    # Its owner's (the group may read where the run directory lets it): it names the job's hosts and image.
    mode = group_readable_mode(path.parent, PRIVATE_FILE)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    try:
        require_regular(fd, path)
        size = os.fstat(fd).st_size
        cut = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        # Text as it came (a reason naming a path with an é, read under a C locale): not \\u escapes of surrogates
        try:
            line = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate no byte made (a \ud800 read from a damaged line): escaped
            line = json.dumps(entry).encode("ascii")
        os.write(fd, b"\n" * cut + line + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def append_event(run_dir: Path, event: str, reason: str, *, hosts: List[str], excluded: List[str],
                 job_id: Optional[str], image: Optional[str]) -> Dict[str, Any]:
    """A job script's line: it requeued leaving `excluded` out, or gave up."""
    entry = {"event": event, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "job_id": job_id, "hosts": hosts,
             "image": image, "excluded": excluded, "reason": reason}
    _append(run_dir / "history.jsonl", entry)
    return entry


def requeues_in_a_row(run_dir: Path) -> int:
    """Bad-node requeues since training last got past the step it started from (a trainer attempt whose
    start_step is beyond every earlier one resets the count)."""
    count, furthest = 0, None
    for entry in json_objects(run_dir / "history.jsonl"):
        if isinstance(entry.get("start_step"), int):
            if furthest is None or entry["start_step"] > furthest:
                count, furthest = 0, entry["start_step"]
        elif entry.get("event") == "requeue":
            count += 1
    return count


def append_attempt(run_dir: Path, *, start_step: int, hosts: List[str], launcher: str,
                   env: Mapping[str, str], total_steps: Optional[int] = None) -> Dict[str, Any]:
    """Append this attempt's line (rank 0, before training) and return it."""
    entries = json_objects(run_dir / "history.jsonl")
    previous = entries[-1] if entries else None
    image = image_provenance() or {}
    entry = {
        "attempt": sum("attempt" in e for e in entries) + 1,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "started_unix": time.time(),
        "job_id": scheduler_env.job_id(env),
        "hosts": sorted(set(hosts)),
        "launcher": launcher,
        "image": image.get("image"),
        # A registry image's digest and the reference that pulls exactly it again (null for a local file)
        "image_digest": image.get("digest"),
        "image_pull": image.get("pull"),
        # A local image's sha256 (`sha256sum FILE` matches it; null for a registry image, named by its digest)
        "image_sha256": image.get("sha256"),
        "start_step": start_step,
        "total_steps": total_steps,
        "previous_attempt": previous_ending(run_dir, previous),
    }
    _append(run_dir / "history.jsonl", entry)
    return entry


def _names(text: str) -> List[str]:
    return [name for name in text.split(",") if name]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m app.host.common.history", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    commands.required = True
    event = commands.add_parser("event", help="append a job script's event (requeue, gave-up)")
    event.add_argument("run_dir", type=Path)
    event.add_argument("event", choices=["requeue", "gave-up"])
    event.add_argument("reason")
    hosts = event.add_mutually_exclusive_group()
    hosts.add_argument("--hosts", default="", help="the job's nodes, comma-separated")
    # One argument may hold 128 KiB at most (Linux's MAX_ARG_STRLEN): 4096 FQDN node names are more.
    hosts.add_argument("--hosts-from", type=argparse.FileType("r"), metavar="FILE",
                       help="the job's nodes, one a line or comma-separated, read from FILE ('-': stdin)")
    event.add_argument("--excluded", default="", help="the nodes left out, comma-separated")
    event.add_argument("--job-id", default=None)
    event.add_argument("--image", default=None)
    count = commands.add_parser("requeues-in-a-row", help="print the bad-node requeues since training last got further")
    count.add_argument("run_dir", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "event":
            names = args.hosts_from.read().replace("\n", ",") if args.hosts_from else args.hosts
            append_event(args.run_dir, args.event, args.reason, hosts=_names(names), excluded=_names(args.excluded),
                         job_id=args.job_id or None, image=args.image or None)
        else:
            print(requeues_in_a_row(args.run_dir))
    except OSError as err:
        where = err.filename or args.run_dir / "history.jsonl"  # a failed write (a full disk) names no file
        print(f"error: {where}: {err.strerror}; history.jsonl must be a regular file the job can read and "
              f"append to (remove what is there, or give another RUN_DIR)", file=sys.stderr)
        return exitcodes.USAGE
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
