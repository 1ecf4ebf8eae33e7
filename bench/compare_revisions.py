"""Benchmark: is this checkout's trainer as fast as another revision's? (for refactors)

    python -m bench.compare_revisions --against REV [--repeats 5] [--markdown BENCHMARKS.md]

REV is checked out into a temporary git worktree; then `app.train` runs from each tree alternately
(A B A B ..., so load drift on a shared machine hits both), 2 ranks through torchrun on CPU, on the
two workloads of `bench.trainer_throughput` with the same settings. The figure is the median of the
per-pair ratios this/REV; above 1 means this checkout is faster.
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
from bench.trainer_throughput import EPOCHS, GPT_STEPS, TIMEOUT_S

REPO = Path(__file__).resolve().parents[1]
WORKLOADS = {
    f"regression, {EPOCHS} epochs": ["--config", "regression", f"train.epochs={EPOCHS}", "snapshot.every=160"],
    f"GPT tiny, {GPT_STEPS} steps": ["--config", "demo", f"train.max_steps={GPT_STEPS}", "snapshot.every=100"],
}


def samples_per_s(tree: Path, run_dir: Path, args: list[str]) -> float:
    """One `app.train` run from `tree`'s sources; its summary's samples/s."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "-m", "app.train",
               *args, *_training_only(tree), "run.log_every=1000", f"run.dir={run_dir}"]  # a fresh dir: no resume
    result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                            check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} in {tree} failed:\n{result.stderr[-3000:]}")
    return json.loads((run_dir / "summary.json").read_text())["samples_per_s"]


def _training_only(tree: Path) -> list[str]:
    """Both trees do the same work: a trainer that can validate is told not to (the demo config turns it on
    where it exists; an older tree has no such key)."""
    return ["train.eval_every=0"] if "eval_every" in (tree / "app" / "train" / "config.py").read_text() else []


def compare(other: Path, repeats: int, work: Path) -> dict[str, dict]:
    results = {}
    for name, args in WORKLOADS.items():
        ours, theirs, ratios = [], [], []
        for index in range(repeats):
            a = samples_per_s(REPO, work / f"this-{len(results)}-{index}", args)
            b = samples_per_s(other, work / f"other-{len(results)}-{index}", args)
            ours.append(a)
            theirs.append(b)
            ratios.append(a / b)
            print(f"  {name} {index}: this {a:.0f} samples/s, other {b:.0f}, ratio {a / b:.3f}", flush=True)
        results[name] = {"this": statistics.median(ours), "other": statistics.median(theirs),
                         "ratio": statistics.median(ratios), "ratios": ratios}
    return results


def render(rev: str, repeats: int, results: dict[str, dict]) -> str:
    lines = [
        "## app.train against an earlier revision",
        "",
        f"Command: `python -m bench.compare_revisions --against {rev} --repeats {repeats}` ({platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch {torch.__version__}, gloo, 2 ranks via torchrun; runs alternate between "
        f"the trees; load average {os.getloadavg()[0]:.1f} when it finished).",
        "",
        f"| workload | this checkout samples/s | {rev} samples/s | this / {rev} (median of pairs) | per-pair ratios |",
        "|---|---:|---:|---:|---|",
    ]
    for name, r in results.items():
        lines.append(f"| {name} | {r['this']:.0f} | {r['other']:.0f} | **{r['ratio']:.3f}** | "
                     + ", ".join(f"{x:.3f}" for x in r["ratios"]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="a git revision, e.g. a commit before a refactor")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-revisions-") as tmp:
        other = Path(tmp) / "other"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(other), args.against],
                       check=True, capture_output=True)
        try:
            results = compare(other, args.repeats, Path(tmp) / "runs")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)], check=False)
    text = render(args.against, args.repeats, results)
    publish(text, args.markdown, "bench.compare_revisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
