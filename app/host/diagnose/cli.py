"""The command line of `python -m app.diagnose` and `app-diagnose`; see app/host/diagnose/__init__.py."""

import argparse
import sys
from typing import Optional, Sequence

from app.host.common import exitcodes
from app.host.common.errors import exit_with
from app.host.diagnose.causes import CAUSES
from app.host.diagnose.core import diagnose_reading, format_findings
from app.host.diagnose.layers import VERDICTS, place
from app.host.diagnose.reading import Limits, Reading, UnreadableInput

#: A cause was recognised (the report is on stdout).
FOUND = exitcodes.OK
#: The logs were read but show no cause this tool knows.
NOTHING_RECOGNISED = exitcodes.NOTHING_RECOGNISED
#: A path could not be read (missing, unreadable, an empty directory): exitcodes.USAGE, as for every entry point.
UNREADABLE = exitcodes.USAGE


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m app.diagnose",
        description="Read a failed job's logs and name the cause and its fix, most likely first.",
        epilog=f"exit codes: {FOUND} cause found, {NOTHING_RECOGNISED} nothing recognised, "
               f"{UNREADABLE} a log could not be read",
    )
    parser.add_argument("logs", nargs="*", metavar="LOG",
                        help="a job's output (ddp-<jobid>.out, ddp.o<jobid>, slurm-<jobid>.out) or a run directory")
    parser.add_argument("--list", action="store_true", help="list the causes it recognises and exit")
    args = parser.parse_args(argv)
    if not args.logs and not args.list:
        parser.error("give at least one LOG, e.g. python -m app.diagnose ddp-1234.out runs/1234")
    return args


def main(argv: Optional[Sequence[str]] = None, limits: Optional[Limits] = None) -> int:
    args = parse_args(argv)
    if args.list:
        for cause in (*CAUSES, *VERDICTS):
            print(f"{cause.key:<28} {place(cause.key)[0]:<11} {cause.cause}")
        return FOUND
    reading = Reading(limits or Limits())
    try:
        findings = diagnose_reading(reading, args.logs)
    except UnreadableInput as error:
        print(f"app.diagnose: error: {error}", file=sys.stderr)
        return UNREADABLE
    print(format_findings(findings, reading.lines, args.logs))
    for note in reading.notes:
        print(f"note: {note}")
    # A layer verdict alone names no cause: the exit code says so (the report still says where to look).
    return FOUND if any(not finding.is_verdict for finding in findings) else NOTHING_RECOGNISED


def command() -> None:
    exit_with(main)
