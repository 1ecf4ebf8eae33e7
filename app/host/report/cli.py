"""`python -m app.report RUN_DIR` (or `app-report RUN_DIR`): a short text summary of a run and a PNG of its curves.

Works on a finished run and on one still training (read-only: it writes only the PNG). The PNG needs
matplotlib (pip install 'app[plot]'); without it the text comes alone, with that hint. The text is the report: a
run directory you may read but not write (a colleague's, shared with RUN_DIR_MODE=750) gets it, and one line
saying why no picture was written and that --png PATH puts it elsewhere.
Exit codes: 0 done; 2 not a run directory, one you may not read, or a --png PATH that cannot be written (checked
before the run is read); 141 whatever read its output stopped reading (`| head`).
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from app.host.common.access import why_unwritable
from app.host.common.errors import UsageError, exit_with, exits_cleanly
from app.host.report.figure import draw, have_matplotlib
from app.host.report.run_record import read_run
from app.host.report.text import summary_lines


@exits_cleanly
def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the trainer's run.dir")
    parser.add_argument("--png", type=Path, metavar="PATH", help="where to write the picture "
                        "(default: RUN_DIR/report.png)")
    args = parser.parse_args(argv)
    if args.png is not None:
        _check_png(args.png)
    run = read_run(args.run_dir)
    for line in summary_lines(run):
        print(line)
    if not run.steps:
        return 0
    if not have_matplotlib():
        print("no picture: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return 0
    png = args.png or args.run_dir / "report.png"
    why = why_unwritable(str(png))
    if why is None:
        try:
            draw(run, png)
        except OSError as error:  # the file system full, or the directory changed since the check
            why = (error.strerror or str(error)).lower()
    if why is not None and args.png is not None:
        raise UsageError(_png_refusal(png, why))
    if why is not None:
        print(f"no picture: cannot write {png}: {why}; to draw it, give --png PATH in a directory you can write, "
              f"e.g. --png ~/report.png", file=sys.stderr)
        return 0
    print(f"picture: {png}")
    return 0


def _check_png(png: Path) -> None:
    """--png PATH that cannot be written is a bad command line: refused before the run is read."""
    why = why_unwritable(str(png))
    if why is not None:
        raise UsageError(_png_refusal(png, why))


def _png_refusal(png: Path, why: str) -> str:
    return f"--png {png}: cannot write it: {why}; give a --png path in a directory you can write, e.g. --png report.png"


def command() -> None:
    """`python -m app.report` and the `app-report` script."""
    exit_with(main)
