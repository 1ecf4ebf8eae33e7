"""Benchmark: dist.strategy=fsdp against ddp on CPU (gloo), side by side in one run.

    python -m bench.fsdp [--repeats 3] [--parts bytes,throughput,accumulation,snapshots] [--markdown BENCHMARKS.md]

1. Per-rank parameter + optimizer bytes (from summary.json) for the GPT `small` and `gpt2` presets on 2
   and 4 ranks, one step each (`model.block_size=128` for gpt2: the count of parameters barely moves and
   the step stays short on CPU). Target: fsdp <= 1.1/N of ddp's.
2. Steady-state step throughput, GPT small (per-rank batch 8, 24 steps), 2 ranks: ddp, fsdp with
   reshard_after_forward=true (ZeRO-3) and false (ZeRO-2-like), run in turn (ddp, z3, z2, ddp, ...) so
   load drift hits all three; the figure is the median of each repeat's samples/s over steps 6 to the
   end, as a ratio to the same repeat's ddp.
   Target: >= 0.85x.
3. With gradient accumulation (GPT small, 2 ranks, 4 micro-batches of 2 a step, 24 steps): ddp, fsdp with
   each block gathered once a step (`dist.gather_once_per_step=true`, the default) and in every
   micro-batch (`false`), in turn as in 2; the figure is each fsdp's median samples/s against ddp's, and
   the one against the other.
4. Snapshot write and restore, gpt2 preset, 2 ranks: sharded (every rank writes its shard, DCP) against
   single-file (rank 0 writes; `snapshot.background=false` so both are the time the loop waits), then the
   same written in the background (the default): how long the loop waits for the copy off the training
   path; all from the trainer's own log lines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from bench.markdown import publish

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200
SMALL = ["--config", "demo", "model.size=small", "data.tokens=400000", "run.log_every=1", "run.progress=lines"]
GPT2 = ["--config", "demo", "model.size=gpt2", "model.block_size=128", "train.batch_size=2", "data.tokens=20000",
        "run.progress=lines"]


def train(ranks: int, run_dir: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}",
               "-m", "app.train", *args, f"run.dir={run_dir}"]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return result.stderr


def state_bytes(work: Path) -> list[str]:
    rows = []
    for name, args in (("small", SMALL), ("gpt2", GPT2)):
        for ranks in (2, 4):
            held = {}
            for strategy in ("ddp", "fsdp"):
                run_dir = work / f"bytes-{name}-{ranks}-{strategy}"
                train(ranks, run_dir, *args, "train.max_steps=1", f"dist.strategy={strategy}")
                summary = json.loads((run_dir / "summary.json").read_text())
                held[strategy] = summary["param_bytes_per_rank"] + summary["optimizer_bytes_per_rank"]
            ratio = held["fsdp"] / held["ddp"]
            rows.append(f"| {name} | {ranks} | {held['ddp'] / 2**20:.1f} | {held['fsdp'] / 2**20:.1f} | "
                        f"**{ratio:.3f}** (1.1/N = {1.1 / ranks:.3f}) |")
            print(rows[-1], flush=True)
    return rows


def steady_rate(run_dir: Path) -> float:
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return statistics.median(r["samples_per_s"] for r in records[5:])


def throughput(work: Path, repeats: int) -> dict[str, list[float]]:
    settings = {"ddp": ["dist.strategy=ddp"], "zero3": ["dist.strategy=fsdp"],
                "zero2": ["dist.strategy=fsdp", "dist.reshard_after_forward=false"]}
    ratios: dict[str, list[float]] = {"zero3": [], "zero2": []}
    for index in range(repeats):
        rates = {}
        for name, extra in settings.items():
            run_dir = work / f"rate-{name}-{index}"
            train(2, run_dir, *SMALL, "train.batch_size=8", "train.max_steps=24", "snapshot.every=0", *extra)
            rates[name] = steady_rate(run_dir)
        for name in ratios:
            ratios[name].append(rates[name] / rates["ddp"])
        print(f"  repeat {index}: " + ", ".join(f"{k} {v:.1f} samples/s" for k, v in rates.items()), flush=True)
    return ratios


def accumulation(work: Path, repeats: int) -> dict[str, list[float]]:
    settings = {"ddp": ["dist.strategy=ddp"],
                "once": ["dist.strategy=fsdp", "dist.gather_once_per_step=true"],
                "per-micro-batch": ["dist.strategy=fsdp", "dist.gather_once_per_step=false"]}
    rates: dict[str, list[float]] = {name: [] for name in settings}
    for index in range(repeats):
        for name, extra in settings.items():
            run_dir = work / f"accumulation-{name}-{index}"
            train(2, run_dir, *SMALL, "train.batch_size=2", "train.grad_accum=4", "train.max_steps=24",
                  "snapshot.every=0", *extra)
            rates[name].append(steady_rate(run_dir))
        print(f"  repeat {index}: " + ", ".join(f"{k} {v[-1]:.1f} samples/s" for k, v in rates.items()), flush=True)
    return rates


def snapshot_times(work: Path) -> dict[str, tuple[float, float, float, float]]:
    times = {}
    for strategy in ("ddp", "fsdp"):
        run_dir = work / f"snap-{strategy}"
        common = [*GPT2, f"dist.strategy={strategy}", "snapshot.every=0", "snapshot.background=false"]
        wrote = train(2, run_dir, *common, "train.max_steps=1")
        loaded = train(2, run_dir, *common, "train.max_steps=2")
        write_s = float(re.findall(r"snapshot written: \S+ \(step 1, ([\d.]+)s", wrote)[-1])
        load_s = float(re.findall(r"read and restored in ([\d.]+)s", loaded)[-1])
        background = train(2, work / f"snap-{strategy}-background", *GPT2, f"dist.strategy={strategy}",
                           "snapshot.every=1", "train.max_steps=3")
        waited = re.findall(r"snapshot written: \S+ \(step (\d), [\d.]+s in the background.*the loop waited "
                            r"([\d.]+)s\)", background)
        first_s, second_s = (float(dict(waited)[step]) for step in ("1", "2"))
        times[strategy] = (write_s, load_s, first_s, second_s)
        print(f"  {strategy}: write {write_s:.2f} s, restore {load_s:.2f} s, background: the loop waits "
              f"{first_s:.2f} s, then {second_s:.2f} s", flush=True)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parts", default="bytes,throughput,accumulation,snapshots", help="which of the four to run")
    parser.add_argument("--markdown", type=Path, help="rewrite this file's sections (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    command = (f"Command: `python -m bench.fsdp --repeats {args.repeats} --parts {{part}}` ({platform.machine()}, "
               f"{os.cpu_count()} CPUs, torch {torch.__version__}, gloo, torchrun).")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if "bytes" in parts:
            text = "\n".join(["## Sharded training (dist.strategy=fsdp): state held per rank", "",
                              command.format(part="bytes"), "",
                              "Parameters + AdamW state held per rank (summary.json), one step:", "",
                              "| preset | ranks | ddp MiB | fsdp MiB | fsdp / ddp |", "|---|---:|---:|---:|---:|",
                              *state_bytes(work)])
            publish(text, args.markdown, "bench.fsdp.bytes")
        if "throughput" in parts:
            ratios = throughput(work, args.repeats)
            median = {name: statistics.median(values) for name, values in ratios.items()}
            text = "\n".join([
                "## Sharded training: step throughput against DDP", "", command.format(part="throughput"), "",
                f"GPT small, per-rank batch 8, 2 ranks, fsdp / ddp samples/s (median of {args.repeats} repeats, "
                f"target >= 0.85): ZeRO-3 (`reshard_after_forward=true`) **{median['zero3']:.2f}** (" +
                ", ".join(f"{r:.2f}" for r in ratios["zero3"]) + f"), ZeRO-2-like (`false`) "
                f"**{median['zero2']:.2f}** (" + ", ".join(f"{r:.2f}" for r in ratios["zero2"]) + ")."])
            publish(text, args.markdown, "bench.fsdp.throughput")
        if "accumulation" in parts:
            rates = accumulation(work, args.repeats)
            ratios = {name: [r / d for r, d in zip(rates[name], rates["ddp"], strict=True)]
                      for name in ("once", "per-micro-batch")}
            once_over = [o / p for o, p in zip(rates["once"], rates["per-micro-batch"], strict=True)]
            text = "\n".join([
                "## Sharded training: gradient accumulation, blocks gathered once a step", "",
                command.format(part="accumulation"), "",
                f"GPT small (6 blocks), 2 ranks, 4 micro-batches of 2 samples a step, fsdp / ddp samples/s (median "
                f"of {args.repeats} repeats, run in turn): each block gathered once a step "
                "(`dist.gather_once_per_step=true`, 7 all-gathers a step) "
                f"**{statistics.median(ratios['once']):.2f}** ("
                + ", ".join(f"{r:.2f}" for r in ratios["once"]) + "), in every micro-batch (`false`, 52) "
                f"**{statistics.median(ratios['per-micro-batch']):.2f}** ("
                + ", ".join(f"{r:.2f}" for r in ratios["per-micro-batch"]) + "); once a step against every "
                f"micro-batch: **{statistics.median(once_over):.2f}x** ("
                + ", ".join(f"{r:.2f}" for r in once_over) + ")."])
            publish(text, args.markdown, "bench.fsdp.accumulation")
        if "snapshots" in parts:
            times = snapshot_times(work)
            text = "\n".join([
                "## Sharded training: snapshot write and restore", "", command.format(part="snapshots"), "",
                "The gpt2 preset (124M parameters with AdamW state), 2 ranks, the time the loop waits: single-file "
                f"(ddp, rank 0 writes) {times['ddp'][0]:.2f} s to write and {times['ddp'][1]:.2f} s to read and "
                f"restore; sharded (fsdp, each rank its half, DCP) {times['fsdp'][0]:.2f} s and "
                f"{times['fsdp'][1]:.2f} s. The sharded write includes rank 0 hashing every shard for the manifest "
                "(and every rank hashes them again before a restore). Written in the background "
                "(`snapshot.background`, the default) the loop waits only for the copy off the training path: "
                f"single-file {times['ddp'][3]:.2f} s, sharded {times['fsdp'][3]:.2f} s (`dcp.async_save`), at the "
                "second snapshot; the first also allocates the copy's memory: "
                f"{times['ddp'][2]:.2f} s and {times['fsdp'][2]:.2f} s."])
            publish(text, args.markdown, "bench.fsdp.snapshots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
