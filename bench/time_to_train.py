"""The time to train a fixed amount of work on N nodes when nodes fail: the model `--dry-run` prints
(app/train/failure_budget.py), tabled over job sizes.

    python -m bench.time_to_train [--gpu-hours 100000] [--nodes 64 256 1024 2048] [--markdown BENCHMARKS.md]

Each term, and where it comes from:
- the work: `--gpu-hours` of steps at perfect scaling, so the work takes gpu_hours / (4 N) hours on N nodes;
- failures: a node's MTBF from Llama 3's rate (failure_budget.NODE_MTBF_H), the job's = that / N;
- a snapshot's cost: 0.15 s (`--dry-run` for gpt2-h100: 1.49 GB copied to host memory at an assumed 10 GB/s,
  snapshot.background) and 30 s (a 7B model's 84 GB of fp32 state written at 2.8 GB/s, no background);
- a failure's restart: the hang deadline (dist.hang_timeout_s, 90 s by default; the simulated world of 1024
  ranks in this file's neighbour section heard its verdict 3-6 s after it), the requeue and the start-up
  (60 s and 120 s, assumed: dry_run.ASSUMED_REQUEUE_S, ASSUMED_START_S), then half an interval of work.
The interval is Daly's optimum for each row; the last column compares it with a fixed snapshot.every of
100 GPT-2 steps (14 s at --dry-run's step time).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.train import failure_budget as budget
from app.train.dry_run import ASSUMED_REQUEUE_S, ASSUMED_START_S
from bench.markdown import publish

HANG_DEADLINE_S = 90.0  # dist.hang_timeout_s's default: half of dist.timeout_s = 180 s
SNAPSHOT_COSTS_S = {"0.15 s (GPT-2, background)": 0.15, "30 s (7B, written in line)": 30.0}
FIXED_INTERVAL_S = 100 * 0.142  # snapshot.every=100 at --dry-run's 142 ms gpt2-h100 step


def rows(gpu_hours: float, nodes: list[int]) -> list[str]:
    restart_s = budget.Restart(HANG_DEADLINE_S, ASSUMED_REQUEUE_S, ASSUMED_START_S).total_s
    lines = []
    for label, snapshot_s in SNAPSHOT_COSTS_S.items():
        for n in nodes:
            work_s = gpu_hours * 3600 / (budget.GPUS_PER_NODE * n)
            mtbf_s = budget.job_mtbf_s(n)
            best_s = budget.snapshot_interval_s(snapshot_s, mtbf_s)
            wall_s = budget.time_to_train_s(work_s, best_s, snapshot_s, restart_s, mtbf_s)
            fixed_s = budget.time_to_train_s(work_s, FIXED_INTERVAL_S, snapshot_s, restart_s, mtbf_s)
            lines.append(f"| {label} | {n} | {mtbf_s / 3600:.1f} | {best_s / 60:.1f} | {work_s / 3600:.1f} | "
                         f"{wall_s / 3600:.1f} | {budget.expected_failures(wall_s, mtbf_s):.1f} | "
                         f"{(wall_s / work_s - 1) * 100:.1f} | {(fixed_s / work_s - 1) * 100:.1f} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu-hours", type=float, default=100_000)
    parser.add_argument("--nodes", type=int, nargs="+", default=[64, 256, 1024, 2048])
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    command = (f"python -m bench.time_to_train --gpu-hours {args.gpu_hours:g} "
               f"--nodes {' '.join(map(str, args.nodes))}")
    header = ("| snapshot costs | nodes | job MTBF (h) | Daly interval (min) | work (h) | expected wall time (h) "
              "| failures | overhead at Daly's interval (%) | overhead at snapshot.every=100 (%) |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    text = (f"## Time to train on N nodes, with failures (model)\n\nCommand: `{command}`. Not a measurement: "
            f"the model of `--dry-run` (app/train/failure_budget.py) over job sizes; each term's source is in "
            f"bench/time_to_train.py: the node MTBF from Llama 3's rate ({budget.NODE_MTBF_H:,.0f} h for 4 GPUs), "
            f"a restart of {HANG_DEADLINE_S:.0f} s to detect (the hang deadline; measured verdicts come 3-6 s "
            f"after it, section above) + {ASSUMED_REQUEUE_S:.0f} s requeue + {ASSUMED_START_S:.0f} s start "
            f"(both assumed).\n\n{header}\n" + "\n".join(rows(args.gpu_hours, args.nodes)) + "\n")
    publish(text, args.markdown, "bench.time_to_train")
    return 0


if __name__ == "__main__":
    sys.exit(main())
