"""Benchmark: does `app.train` cost anything over the trainers users write by hand?

    python -m bench.trainer_throughput [--repeats 5] [--markdown BENCHMARKS.md]

Two side-by-side comparisons, 2 ranks on CPU through torchrun, run alternately (A B A B ...) so load
drift on a shared machine hits both; the figure is the median of the per-pair ratios:

1. Regression (the DDP tutorial's Linear(20,1), 2048 samples, per-rank batch 32, SGD):
   `app.train --config regression` (with per-step metrics and a snapshot every 160 steps) against
   `bench.tutorial_ddp` (the tutorial's trainer, a snapshot every 5 epochs = 160 steps). Target >= 1.0x.
2. GPT tiny: `app.train --config demo` against `bench.minimal_gpt_ddp`, the same number of steps.
   Target >= 0.97x.

Then one `app.train` run of each workload with `run.breakdown=true` shows where a step's time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from bench.markdown import publish

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 900
EPOCHS = 50  # 50 x 32 = 1600 optimizer steps on the regression workload
GPT_STEPS = 190  # one epoch of the demo's 400k-token stream at 2 x 16 samples per step


def torchrun(module: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
               "-m", module, *args]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                            check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return result.stdout + result.stderr


def app_train(run_dir: Path, *args: str) -> dict:
    torchrun("app.train", *args, f"run.dir={run_dir}")  # a fresh dir each run: nothing to resume
    return json.loads((run_dir / "summary.json").read_text())


def last_json(output: str) -> dict:
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])


def regression_pair(work: Path, index: int) -> tuple[float, float]:
    ours = app_train(work / f"reg-{index}", "--config", "regression", f"train.epochs={EPOCHS}", "snapshot.every=160",
                     "run.log_every=1000")["samples_per_s"]
    tutorial = last_json(torchrun("bench.tutorial_ddp", str(EPOCHS), "5", "--batch_size", "32",
                                  "--snapshot_path", str(work / f"tutorial-{index}.pt")))["samples_per_s"]
    return ours, tutorial


def gpt_pair(work: Path, index: int) -> tuple[float, float]:
    ours = app_train(work / f"gpt-{index}", "--config", "demo", f"train.max_steps={GPT_STEPS}",
                     "snapshot.every=100", "run.log_every=1000")["samples_per_s"]
    minimal = last_json(torchrun("bench.minimal_gpt_ddp", str(GPT_STEPS)))["samples_per_s"]
    return ours, minimal


def measure(pair, repeats: int, work: Path) -> dict:
    ours, theirs, ratios = [], [], []
    for index in range(repeats):
        a, b = pair(work, index)
        ours.append(a)
        theirs.append(b)
        ratios.append(a / b)
        print(f"  {pair.__name__} {index}: ours {a:.0f} samples/s, reference {b:.0f}, ratio {a / b:.3f}", flush=True)
    return {"ours": statistics.median(ours), "theirs": statistics.median(theirs), "ratio": statistics.median(ratios),
            "ratios": ratios}


def breakdown(work: Path, name: str, *args: str) -> dict:
    return app_train(work / f"breakdown-{name}", *args, "run.breakdown=true", "run.log_every=1000")


def render(repeats: int, regression: dict, gpt: dict, breakdowns: dict[str, dict]) -> str:
    load = os.getloadavg()[0]
    lines = [
        "## app.train against hand-written trainers",
        "",
        f"Command: `python -m bench.trainer_throughput --repeats {repeats}` "
        f"({platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {torch.__version__}, gloo, 2 ranks via torchrun on one machine; pairs run alternately; load average "
        f"{load:.1f} when it finished).",
        "",
        "| workload | app.train samples/s | reference | reference samples/s "
        "| app.train / reference (median of pairs) | target |",
        "|---|---:|---|---:|---:|---:|",
        f"| regression, Linear(20,1), batch 32/rank, {EPOCHS} epochs | {regression['ours']:.0f} | DDP tutorial trainer "
        f"(`bench/tutorial_ddp.py`) | {regression['theirs']:.0f} | **{regression['ratio']:.3f}** | >= 1.0 |",
        f"| GPT tiny, batch 16/rank, {GPT_STEPS} steps | {gpt['ours']:.0f} | minimal DDP loop "
        f"(`bench/minimal_gpt_ddp.py`) | {gpt['theirs']:.0f} | **{gpt['ratio']:.3f}** | >= 0.97 |",
        "",
        "Per-pair ratios: regression " + ", ".join(f"{r:.3f}" for r in regression["ratios"])
        + "; GPT " + ", ".join(f"{r:.3f}" for r in gpt["ratios"]) + ".",
        "app.train does more per step than either reference: per-step JSON metrics, snapshots (atomic, checksummed),",
        "signal handling and the global loss all-reduce.",
        "",
        "Step-time breakdown printed by `app.train ... run.breakdown=true` (ms per step, rank 0):",
        "",
        "| workload | data | compute | exposed communication | optimizer |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, summary in breakdowns.items():
        ms = summary["breakdown_ms_per_step"]
        cells = " | ".join(f"{ms[phase]:.2f}" for phase in ("data", "compute", "comm_wait", "optimizer"))
        lines.append(f"| {name} | {cells} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("regression: app.train vs the tutorial trainer", flush=True)
        regression = measure(regression_pair, args.repeats, work)
        print("gpt: app.train vs a minimal DDP loop", flush=True)
        gpt = measure(gpt_pair, args.repeats, work)
        breakdowns = {
            "regression": breakdown(work, "regression", "--config", "regression", "train.epochs=10"),
            "GPT tiny": breakdown(work, "gpt", "--config", "demo", f"train.max_steps={GPT_STEPS}"),
        }
    text = render(args.repeats, regression, gpt, breakdowns)
    publish(text, args.markdown, "bench.trainer_throughput")
    return 0


if __name__ == "__main__":
    sys.exit(main())
