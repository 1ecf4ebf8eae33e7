"""Benchmark: `python -m app.report` on a run of a million steps: wall time and peak memory.

    python -m bench.report_large_run [--steps 1000000] [--run-dir /tmp/report-large-run] [--keep]

The run directory holds what the trainer writes for a GPT run (app/train/step_reports.py): a metrics.jsonl line
a step with its loss, time and speeds, a validation loss every 1000 steps, and a history.jsonl of two attempts.
`app.report` runs under `/usr/bin/time -v` (GNU time) for its elapsed time and maximum resident set size; it
must report the last step.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def write_run(run_dir: Path, steps: int) -> int:
    """The run's files; the size of metrics.jsonl in bytes."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "history.jsonl").write_text(
        json.dumps({"attempt": 1, "start_step": 0, "total_steps": steps, "started_unix": 1.0}) + "\n"
        + json.dumps({"attempt": 2, "start_step": steps // 2, "total_steps": steps, "started_unix": 2.0}) + "\n")
    with open(run_dir / "metrics.jsonl", "w") as out:
        for step in range(1, steps + 1):
            record = {"step": step, "epoch": 0, "loss": 2.0 + 1.0 / step, "lr": 3e-4, "grad_norm": 0.98,
                      "step_time_s": 0.42, "samples_per_s": 152.1, "tokens_per_s": 155812.3,
                      "tokens": step * 65536, "samples": step * 64, "peak_memory_gib": 61.2, "time": 1.7e9 + step}
            if step % 1000 == 0:
                record["val_loss"] = 2.1 + 1.0 / step
            out.write(json.dumps(record) + "\n")
    return (run_dir / "metrics.jsonl").stat().st_size


def measure(run_dir: Path, python: str = sys.executable, cwd: Path = REPO) -> dict[str, float | str]:
    command = ["/usr/bin/time", "-v", python, "-m", "app.report", str(run_dir), "--png", str(run_dir / "r.png")]
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - started
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return {"wall_s": wall, "max_rss_mb": int(rss.group(1)) / 1024 if rss else float("nan"),
            "exit": result.returncode, "first": result.stdout.splitlines()[0] if result.stdout else result.stderr}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="steps in the generated metrics.jsonl")
    parser.add_argument("--run-dir", type=Path, default=Path("/tmp/report-large-run"), help="where to write it")
    parser.add_argument("--keep", action="store_true", help="keep the run directory afterwards")
    args = parser.parse_args(argv)
    size = write_run(args.run_dir, args.steps)
    try:
        figures = measure(args.run_dir)
    finally:
        if not args.keep:
            shutil.rmtree(args.run_dir, ignore_errors=True)
    print(f"{args.steps} steps, metrics.jsonl {size / 2**20:.0f} MiB: {figures['wall_s']:.1f} s, "
          f"peak RSS {figures['max_rss_mb']:.0f} MiB, exit {figures['exit']}; {figures['first']}")
    return 0 if figures["exit"] == 0 and f"step {args.steps}" in str(figures["first"]) else 1


if __name__ == "__main__":
    sys.exit(main())
