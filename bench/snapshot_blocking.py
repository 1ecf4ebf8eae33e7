"""Benchmark: how long a snapshot holds the training loop, written in the background vs synchronously.

    python -m bench.snapshot_blocking [--repeats 5] [--dir DIR] [--markdown BENCHMARKS.md]

The state is GPT-2 124M's training state on CPU as the trainer snapshots it (model, AdamW moments after
one step, scheduler-free), about 1.5 GB. Alternately (A B A B ...): A, `SingleFileWriter.write` (the loop
waits for temp file, fsync, rename, checksum); B, `SingleFileWriter.start` (the loop waits
for the copy off the training path; the write is then waited for outside the timing). The figure is
the median of the per-pair ratios B/A. Target: <= 0.10.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from app.train.snapshot import layout
from app.train.snapshot.writers import SingleFileWriter
from app.train.workloads.gpt import GPT, PRESETS
from bench.markdown import publish


def training_state() -> dict:
    torch.manual_seed(0)
    model = GPT(PRESETS["gpt2"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for parameter in model.parameters():
        parameter.grad = torch.zeros_like(parameter)
    optimizer.step()  # creates the moments, as after the first training step
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "position": {"step": 1}}


def state_bytes(tree: object) -> int:
    if isinstance(tree, torch.Tensor):
        return tree.numel() * tree.element_size()
    if isinstance(tree, dict):
        return sum(state_bytes(v) for v in tree.values())
    return sum(state_bytes(v) for v in tree) if isinstance(tree, (list, tuple)) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, help="where to write (default: a temporary directory)")
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    state = training_state()
    size_gb = state_bytes(state) / 1e9
    synchronous, blocking, ratios = [], [], []
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        def keep_two(written: Path) -> None:  # what the snapshot manager does with snapshot.keep=2
            for old in layout.listing(Path(tmp))[2:]:
                layout.remove(old)

        writer = SingleFileWriter(Path(tmp), published=keep_two)
        for index in range(args.repeats):
            started = time.perf_counter()
            writer.write(state, 2 * index)
            sync_s = time.perf_counter() - started
            started = time.perf_counter()
            writer.start(state, 2 * index + 1)
            block_s = time.perf_counter() - started
            writer.wait()
            synchronous.append(sync_s)
            blocking.append(block_s)
            ratios.append(block_s / sync_s)
            print(f"  {index}: synchronous {sync_s:.2f} s, background blocks {block_s:.3f} s, "
                  f"ratio {ratios[-1]:.3f}", flush=True)
    ratio = statistics.median(ratios)
    text = "\n".join([
        "## Snapshot: how long the training loop waits",
        "",
        f"Command: `python -m bench.snapshot_blocking --repeats {args.repeats}` ({platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch {torch.__version__}; GPT-2 124M training state on CPU, {size_gb:.2f} GB; "
        f"written to {'a temporary directory' if args.dir is None else args.dir}; pairs alternate).",
        "",
        "| write | loop waits (median) |",
        "|---|---:|",
        f"| synchronous (`snapshot.background=false`) | {statistics.median(synchronous):.2f} s |",
        f"| background (default): the copy off the training path | {statistics.median(blocking):.3f} s |",
        "",
        f"Background / synchronous, median of pairs: **{ratio:.3f}** (target <= 0.10); pairs "
        + ", ".join(f"{r:.3f}" for r in ratios) + ". The first pair is a run's first background snapshot,",
        "which allocates the copy's memory; later ones copy into it (`SingleFileWriter._copy`).",
    ])
    publish(text, args.markdown, "bench.snapshot_blocking")
    return 0


if __name__ == "__main__":
    sys.exit(main())
