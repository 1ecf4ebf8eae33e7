"""`python -m app.report RUN_DIR` (or `app-report RUN_DIR`): a short text summary of a run and a PNG of its curves.

Works on a finished run and on one still training (read-only: it writes only the PNG). The PNG needs
matplotlib (pip install 'app[plot]'); without it the text comes alone, with that hint.
Exit codes: 0 done, 2 not a run directory.
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from app.host.common.errors import exit_with, exits_cleanly
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
    run = read_run(args.run_dir)
    for line in summary_lines(run):
        print(line)
    if not run.steps:
        return 0
    if not have_matplotlib():
        print("no picture: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return 0
    png = args.png or args.run_dir / "report.png"
    draw(run, png)
    print(f"picture: {png}")
    return 0


def command() -> None:
    """`python -m app.report` and the `app-report` script."""
    exit_with(main)
