"""Benchmark on one GPU: app.train against a hand-written loop of the same model, tokens/s and MFU.

    python -m bench.gpu_train [--runs gpt2:16 gpt2-medium:16] [--steps 30] [--warmup 10] [--pairs 2]
                              [--markdown BENCHMARKS.md]

For each `size:micro-batch`, run alternately (A B A B ...), each in a fresh process:
  A. `torchrun --nproc-per-node=1 -m app.train --config gpt2-h100` (NCCL, DDP, bf16 autocast,
     torch.compile, fused AdamW, gradient clipping, per-step metrics, a snapshot at the end);
     throughput over the steps after the warm-up, from its metrics.jsonl;
  B. `python -m bench.gpu_train hand ...`: the shortest hand-written loop of the same model class
     (compile, bf16 autocast, fused AdamW, clipping, the same micro-batches per step), no DDP.
The figure is the median of the per-pair ratios A/B. MFU = tokens/s x the model's training FLOPs per
token (`GPT.flops_per_token`: 6N + attention) / 989 TFLOP/s, the H100/H200 dense bf16 datasheet peak.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from app.train.summary import PEAK_BF16_FLOPS
from app.train.workloads.gpt import GPT, PRESETS, next_token_loss
from app.train.workloads.tokens import TokenWindows, synthetic_token_stream

REPO = Path(__file__).resolve().parents[1]
GRAD_ACCUM = 4  # as app/train/configs/gpt2-h100.yaml
PEAK = PEAK_BF16_FLOPS["H200"]


def tokens_needed(size: str, batch: int, steps: int) -> int:
    return (steps + 2) * batch * GRAD_ACCUM * (PRESETS[size].block_size + 1)


def flops_per_token(size: str) -> float:
    with torch.device("meta"):
        return GPT(PRESETS[size]).flops_per_token()


def hand_loop(size: str, batch: int, steps: int, warmup: int) -> dict:
    """What a user writes by hand: nanoGPT's loop, one GPU."""
    device = torch.device("cuda")
    torch.manual_seed(1234)
    shape = PRESETS[size]
    data = TokenWindows(synthetic_token_stream(tokens_needed(size, batch, steps), shape.vocab_size, 1234),
                        shape.block_size)
    model = GPT(shape).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1, fused=True)
    compiled = torch.compile(model)
    order = torch.randperm(len(data), generator=torch.Generator().manual_seed(0))
    per_step = batch * GRAD_ACCUM
    for step in range(steps):
        if step == warmup:
            torch.cuda.synchronize()
            started = time.perf_counter()
        for micro in range(GRAD_ACCUM):
            first = step * per_step + micro * batch
            inputs, targets = (t.pin_memory().to(device, non_blocking=True)
                               for t in data.get_batch(order[first : first + batch]))
            with torch.autocast("cuda", torch.bfloat16):
                loss = next_token_loss(compiled(inputs), targets)
            (loss / GRAD_ACCUM).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    return {"tokens_per_s": (steps - warmup) * per_step * shape.block_size / elapsed,
            "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30, "loss": loss.item()}


def run_hand(size: str, batch: int, steps: int, warmup: int) -> dict:
    command = [sys.executable, "-m", "bench.gpu_train", "hand", size, str(batch), str(steps), str(warmup)]
    output = _run(command)
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])


def run_app(size: str, batch: int, steps: int, warmup: int, run_dir: Path) -> dict:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1",
               "-m", "app.train", "--config", "gpt2-h100", f"run.dir={run_dir}", f"model.size={size}",
               f"train.batch_size={batch}", f"train.max_steps={steps}",
               f"data.tokens={tokens_needed(size, batch, steps)}", "snapshot.every=0",
               "run.log_every=10", "run.progress=lines"]
    _run(command)
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    steady = [r for r in records if r["step"] > warmup]
    tokens = sum(r["tokens_per_s"] * r["step_time_s"] for r in steady)
    summary = json.loads((run_dir / "summary.json").read_text())
    return {"tokens_per_s": tokens / sum(r["step_time_s"] for r in steady),
            "peak_memory_gib": summary.get("peak_memory_gib", float("nan")), "loss": summary["final_loss"],
            "whole_run_mfu": summary.get("mfu", float("nan"))}


def _run(command: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return result.stdout + result.stderr


def measure(size: str, batch: int, args: argparse.Namespace, work: Path) -> dict:
    ours, hand, ratios = [], [], []
    for index in range(args.pairs):
        a = run_app(size, batch, args.steps, args.warmup, work / f"{size}-{batch}-{index}")
        b = run_hand(size, batch, args.steps, args.warmup)
        ours.append(a)
        hand.append(b)
        ratios.append(a["tokens_per_s"] / b["tokens_per_s"])
        print(f"  {size} batch {batch} pair {index}: app.train {a['tokens_per_s']:.0f} tokens/s, "
              f"hand {b['tokens_per_s']:.0f}, ratio {ratios[-1]:.3f}", flush=True)
    fpt = flops_per_token(size)
    median = statistics.median
    return {"size": size, "batch": batch, "ratios": ratios, "ratio": median(ratios),
            "ours": median(r["tokens_per_s"] for r in ours), "hand": median(r["tokens_per_s"] for r in hand),
            "mfu": median(r["tokens_per_s"] for r in ours) * fpt / PEAK,
            "hand_mfu": median(r["tokens_per_s"] for r in hand) * fpt / PEAK,
            "memory": ours[-1]["peak_memory_gib"], "hand_memory": hand[-1]["peak_memory_gib"]}


def render(results: list[dict], args: argparse.Namespace) -> str:
    from app.common.provenance import versions

    vers = versions()
    runs = " ".join(f"{r['size']}:{r['batch']}" for r in results)
    lines = [
        "## app.train on one GPU: against a hand-written loop, tokens/s and MFU",
        "",
        f"Command (on the GPU machine): `python -m bench.gpu_train --runs {runs} --steps {args.steps} "
        f"--warmup {args.warmup} --pairs {args.pairs}`",
        f"({torch.cuda.get_device_name()}, torch {vers['torch']}, CUDA {vers['cuda']}, NCCL {vers['nccl']}; "
        f"sequence 1024, {GRAD_ACCUM} micro-batches per step, bf16 autocast, torch.compile, fused AdamW; "
        f"throughput over steps {args.warmup + 1}-{args.steps}, after compilation; pairs run alternately).",
        "",
        "| model | micro-batch | app.train tokens/s | hand loop tokens/s | app.train / hand (median of pairs) "
        "| MFU app.train | MFU hand | peak memory app.train / hand (GiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['size']} | {r['batch']} | {r['ours']:,.0f} | {r['hand']:,.0f} | **{r['ratio']:.3f}** "
            f"({', '.join(f'{x:.3f}' for x in r['ratios'])}) | **{100 * r['mfu']:.1f}%** | {100 * r['hand_mfu']:.1f}% "
            f"| {r['memory']:.1f} / {r['hand_memory']:.1f} |"
        )
    lines += ["", f"MFU against {PEAK / 1e12:.0f} TFLOP/s (dense bf16 datasheet peak of the H100/H200). "
              "Targets: app.train >= 0.97x the hand loop; MFU >= 45% at the best size."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hand"]:
        size, batch, steps, warmup = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        print(json.dumps(hand_loop(size, batch, steps, warmup)), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=["gpt2:16"], help="SIZE:MICRO_BATCH, e.g. gpt2-medium:16")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the figure (compilation)")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--markdown", type=Path, help="rewrite this file's section (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench.gpu_train needs a CUDA GPU; none is visible here", file=sys.stderr)
        return 2
    from bench.markdown import publish

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in args.runs:
            size, batch = run.split(":")
            results.append(measure(size, int(batch), args, Path(tmp)))
    publish(render(results, args), args.markdown, "bench.gpu_train")
    return 0


if __name__ == "__main__":
    sys.exit(main())
