"""Benchmark: `python -m app.diagnose` on one large generated job log: wall time and peak memory.

    python -m bench.diagnose_large_log [--size-mb 1024] [--log /tmp/diagnose-large.log] [--keep]

The log is a two-node job's output as a real one looks: the launch line, NCCL's INFO lines on Slingshot,
then training steps with a torch warning and an NCCL channel line every 30 lines (about 100 bytes a line), one
200 KB `srun ...` line in the middle, and a collective timeout at the end. `app.diagnose` runs under
`/usr/bin/time -v` (GNU time) for its elapsed time and maximum resident set size; it must name the timeout.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

HEAD = (
    "srun --ntasks-per-node=1 torchrun --nnodes=2 --nproc-per-node=4 --rdzv-backend=c10d train.py\n"
    "nid001:101:201 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.17.1\n"
    "nid001:101:201 [0] NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)\n"
    "nid001:101:201 [0] NCCL INFO Using network AWS Libfabric\n"
)
#: Thirty lines: training steps, a torch warning, and one NCCL INFO line (a new communicator's channel).
BODY = (
    "step {i} loss 2.{i:04d} lr 3.0e-04 grad_norm 0.98 tokens/s 181234 mfu 0.41 data 0.003s step_time 0.421s\n" * 28
    + "[W1126 10:00:{s:02d}.123456 ProcessGroupNCCL.cpp:1234] Warning: a collective took longer than usual\n"
    + "nid001:101:201 [0] NCCL INFO Channel {c:02d}/0 : 0[0] -> 4[0] [send] via NET/AWS Libfabric/0/GDRDMA\n"
)
TAIL = "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=99, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.\n"  # noqa: E501


def write_log(path: Path, size: int) -> None:
    with open(path, "w") as out:
        out.write(HEAD)
        written, i, long_line_done = len(HEAD), 0, False
        while written < size:
            block = "".join(BODY.format(i=i + k, c=(i + k) % 32, s=(i + k) % 60) for k in range(100))
            out.write(block)
            written += len(block)
            i += 100
            if not long_line_done and written > size // 2:
                out.write("srun " * 40_000 + "\n")
                long_line_done = True
        out.write(TAIL)


def measure(path: Path) -> dict[str, float | str]:
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "app.diagnose", str(path)]
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.monotonic() - started
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    first = result.stdout.splitlines()[0] if result.stdout else ""
    return {"wall_s": wall, "max_rss_mb": rss_kb / 1024, "exit": result.returncode, "first": first,
            "notes": [line for line in result.stdout.splitlines() if line.startswith("note:")]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the generated log (MiB)")
    parser.add_argument("--log", type=Path, default=Path("/tmp/diagnose-large.log"), help="where to write it")
    parser.add_argument("--keep", action="store_true", help="keep the log afterwards")
    args = parser.parse_args(argv)
    write_log(args.log, args.size_mb << 20)
    try:
        figures = measure(args.log)
    finally:
        if not args.keep:
            args.log.unlink(missing_ok=True)
    print(f"log {args.size_mb} MiB: {figures['wall_s']:.1f} s, peak RSS {figures['max_rss_mb']:.0f} MiB, "
          f"exit {figures['exit']}; first finding: {figures['first']}")
    for note in figures["notes"]:
        print(note)
    return 0 if figures["exit"] == 0 and "[nccl-watchdog]" in figures["first"] else 1


if __name__ == "__main__":
    sys.exit(main())
