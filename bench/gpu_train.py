"""Benchmark on one GPU: app.train against a hand-written loop, the best model size for MFU, fsdp against ddp.

    python -m bench.gpu_train [--parts pairs sizes sharded] [--runs gpt2:16 gpt2-medium:16]
                              [--variants model blocks] [--pairs 2] [--sizes gpt2-large:8 gpt2-xl:8]
                              [--sharded gpt2:8 gpt2-medium:8] [--steps 25] [--warmup 10]
                              [--results R.jsonl] [--markdown BENCHMARKS.md]

pairs: for each `size:micro-batch`, run alternately, each in a fresh process, `pairs` times:
  A. `torchrun --nproc-per-node=1 -m app.train --config gpt2-h100` (NCCL, DDP, bf16 autocast, torch.compile
     with each `train.compile_scope` of --variants, fused AdamW, gradient clipping, per-step metrics);
     throughput over the steps after the warm-up, from its metrics.jsonl;
  B. `python -m bench.gpu_train hand ...`: the shortest hand-written loop of the same model class (the whole
     model compiled, bf16 autocast, fused AdamW, clipping, the same micro-batches per step), no DDP.
  The figure is the median of the per-pair ratios A/B.
sizes: app.train alone on larger presets (compile_scope blocks): tokens/s, MFU, peak memory.
sharded: ddp and fsdp at world size 1 and 2 (two ranks share the GPU, each its own NCCL_HOSTID, so NCCL
  treats them as two hosts), a snapshot every 10 steps: parameter + optimizer bytes and peak memory per
  rank, tokens/s of the job, and how long the loop waited for each background snapshot.
MFU = tokens/s x the model's training FLOPs per token (`GPT.flops_per_token`: 6N + attention) / the GPU's
dense bf16 peak (app.train.summary.peak_bf16_flops). Every result is appended to --results as it comes, so a
call stopped at its time limit keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from app.train.summary import peak_bf16_flops
from app.train.workloads.gpt import GPT, PRESETS, next_token_loss
from app.train.workloads.tokens import TokenWindows, synthetic_token_stream

REPO = Path(__file__).resolve().parents[1]
GRAD_ACCUM = 4  # as app/train/configs/gpt2-h100.yaml
WAITED = re.compile(r"snapshot written: .*the loop waited ([\d.]+)s")


def tokens_needed(size: str, batch: int, steps: int, ranks: int = 1) -> int:
    return (steps + 2) * batch * GRAD_ACCUM * ranks * (PRESETS[size].block_size + 1)


def flops_per_token(size: str) -> float:
    with torch.device("meta"):
        return GPT(PRESETS[size]).flops_per_token()


def peak_flops() -> float:
    return peak_bf16_flops(torch.cuda.get_device_name()) or float("nan")


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
    output = _run([command])[0]
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])


def run_app(size: str, batch: int, steps: int, warmup: int, run_dir: Path, *overrides: str,
            ranks: int = 1) -> dict:
    """app.train on `ranks` torchrun agents (one rank each, each its own NCCL_HOSTID); steady throughput
    of the job, rank 0's memory, the loop's waits for snapshots."""
    args = ["-m", "app.train", "--config", "gpt2-h100", f"run.dir={run_dir}", f"model.size={size}",
            f"train.batch_size={batch}", f"train.max_steps={steps}",
            f"data.tokens={tokens_needed(size, batch, steps, ranks)}", "run.log_every=5", "run.progress=lines",
            "snapshot.every=0", *overrides]
    if ranks == 1:
        commands = [[sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", *args]]
    else:
        endpoint = f"127.0.0.1:{29400 + os.getpid() % 1000}"
        commands = [[sys.executable, "-m", "torch.distributed.run", f"--nnodes={ranks}", "--nproc-per-node=1",
                     "--rdzv-backend=c10d", f"--rdzv-endpoint={endpoint}", f"--rdzv-id={run_dir.name}", *args]
                    for _ in range(ranks)]
    logs = "\n".join(_run(commands, hostids=ranks > 1))
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    steady = [r for r in records if r["step"] > warmup]
    tokens = sum(r["tokens_per_s"] * r["step_time_s"] for r in steady)
    summary = json.loads((run_dir / "summary.json").read_text())
    return {"tokens_per_s": tokens / sum(r["step_time_s"] for r in steady),
            "peak_memory_gib": summary.get("peak_memory_gib", float("nan")), "loss": summary["final_loss"],
            "state_gib_per_rank": (summary.get("param_bytes_per_rank", 0)
                                   + summary.get("optimizer_bytes_per_rank", 0)) / 2**30,
            "snapshot_waits_s": [float(s) for s in WAITED.findall(logs)]}


def _run(commands: list[list[str]], hostids: bool = False) -> list[str]:
    """Run the commands side by side; each one's output. Fails with the output of any that failed."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    processes = [subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env={**env, "NCCL_HOSTID": f"bench-node-{i}"} if hostids else env)
                 for i, command in enumerate(commands)]
    outputs = [p.communicate(timeout=900)[0] for p in processes]
    for command, process, output in zip(commands, processes, outputs, strict=True):
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}):\n{output[-4000:]}")
    return outputs


def measure_pairs(size: str, batch: int, args: argparse.Namespace, work: Path, record) -> None:
    fpt, peak = flops_per_token(size), peak_flops()
    for index in range(args.pairs):
        order = args.variants[index % len(args.variants):] + args.variants[: index % len(args.variants)]
        hand = run_hand(size, batch, args.steps, args.warmup)
        record({"part": "pairs", "size": size, "batch": batch, "pair": index, "who": "hand", **hand,
                "mfu": hand["tokens_per_s"] * fpt / peak})
        for variant in order:
            ours = run_app(size, batch, args.steps, args.warmup, work / f"{size}-{batch}-{variant}-{index}",
                           f"train.compile_scope={variant}")
            record({"part": "pairs", "size": size, "batch": batch, "pair": index, "who": variant, **ours,
                    "mfu": ours["tokens_per_s"] * fpt / peak, "ratio": ours["tokens_per_s"] / hand["tokens_per_s"]})


def measure_size(size: str, batch: int, args: argparse.Namespace, work: Path, record) -> None:
    ours = run_app(size, batch, args.steps, args.warmup, work / f"size-{size}-{batch}",
                   f"train.compile_scope={args.size_scope}")
    record({"part": "sizes", "size": size, "batch": batch, "who": args.size_scope, **ours,
            "mfu": ours["tokens_per_s"] * flops_per_token(size) / peak_flops()})


def measure_sharded(size: str, batch: int, args: argparse.Namespace, work: Path, record) -> None:
    for ranks in (1, 2):
        for strategy in ("ddp", "fsdp"):
            ours = run_app(size, batch, args.steps, args.warmup, work / f"sh-{size}-{strategy}-{ranks}",
                           f"dist.strategy={strategy}", f"train.compile_scope={args.size_scope}",
                           "snapshot.every=10", ranks=ranks)
            record({"part": "sharded", "size": size, "batch": batch, "who": strategy, "ranks": ranks, **ours,
                    "mfu": ours["tokens_per_s"] * flops_per_token(size) / peak_flops()})


def render(results: list[dict], args: argparse.Namespace) -> dict[str, str]:
    from app.common.provenance import versions

    vers = versions()
    where = (f"{torch.cuda.get_device_name()}, torch {vers['torch']}, CUDA {vers['cuda']}, NCCL {vers['nccl']}; "
             f"sequence 1024, {GRAD_ACCUM} micro-batches per step, bf16 autocast, torch.compile, fused AdamW; "
             f"throughput over steps {args.warmup + 1}-{args.steps}, after compilation; "
             f"MFU against {peak_flops() / 1e12:.0f} TFLOP/s dense bf16")
    median = statistics.median
    sections = {}
    pairs = [r for r in results if r["part"] == "pairs"]
    if pairs:
        lines = ["## app.train on one GPU against a hand-written loop", "",
                 f"Command (on the GPU machine): `python -m bench.gpu_train --parts pairs --runs "
                 f"{' '.join(args.runs)} --variants {' '.join(args.variants)} --pairs {args.pairs} "
                 f"--steps {args.steps} --warmup {args.warmup}` ({where}; the hand loop and each variant run in "
                 "turn, each in a fresh process).", "",
                 "| model | micro-batch | who | tokens/s | / hand loop (median of pairs) | MFU | peak memory (GiB) |",
                 "|---|---:|---|---:|---:|---:|---:|"]
        for size, batch in dict.fromkeys((r["size"], r["batch"]) for r in pairs):
            mine = [r for r in pairs if (r["size"], r["batch"]) == (size, batch)]
            for who in ["hand", *args.variants]:
                rows = [r for r in mine if r["who"] == who]
                if not rows:
                    continue
                label = "hand loop" if who == "hand" else f"app.train, compile_scope={who}"
                each = ", ".join(f"{r['ratio']:.3f}" for r in rows if "ratio" in r)
                ratio = "" if who == "hand" else f"**{median(r['ratio'] for r in rows):.3f}** ({each})"
                lines.append(f"| {size} | {batch} | {label} | {median(r['tokens_per_s'] for r in rows):,.0f} | "
                             f"{ratio} | {100 * median(r['mfu'] for r in rows):.1f}% | "
                             f"{max(r['peak_memory_gib'] for r in rows):.1f} |")
        sections["bench.gpu_train"] = "\n".join(lines)
    sizes = [r for r in results if r["part"] == "sizes"]
    if sizes:
        lines = ["## app.train on one GPU: model size and MFU", "",
                 f"Command: `python -m bench.gpu_train --parts sizes --sizes {' '.join(args.sizes)} --size-scope "
                 f"{args.size_scope} --steps {args.steps} --warmup {args.warmup}` ({where}).", "",
                 "| model | parameters | micro-batch | tokens/s | MFU | peak memory (GiB) |",
                 "|---|---:|---:|---:|---:|---:|"]
        for r in sizes:
            with torch.device("meta"):
                count = GPT(PRESETS[r["size"]]).num_parameters()
            lines.append(f"| {r['size']} | {count / 1e6:,.0f}M | {r['batch']} | {r['tokens_per_s']:,.0f} | "
                         f"**{100 * r['mfu']:.1f}%** | {r['peak_memory_gib']:.1f} |")
        sections["bench.gpu_train.sizes"] = "\n".join(lines)
    sharded = [r for r in results if r["part"] == "sharded"]
    if sharded:
        lines = ["## Sharded training on the GPU: fsdp against ddp", "",
                 f"Command: `python -m bench.gpu_train --parts sharded --sharded {' '.join(args.sharded)} "
                 f"--steps {args.steps} --warmup {args.warmup}` ({where}; compile_scope {args.size_scope}; world "
                 "size 2 is two ranks on the one GPU, each its own NCCL_HOSTID, so NCCL joins them through its "
                 "network transport as two hosts; a background snapshot every 10 steps).", "",
                 "| model | micro-batch | strategy | ranks | params + AdamW state per rank (GiB) | peak memory "
                 "rank 0 (GiB) | tokens/s (job) | MFU (the GPU) | loop waited per snapshot (s) |",
                 "|---|---:|---|---:|---:|---:|---:|---:|---|"]
        for r in sharded:
            waits = ", ".join(f"{w:.2f}" for w in r["snapshot_waits_s"]) or "-"
            lines.append(f"| {r['size']} | {r['batch']} | {r['who']} | {r['ranks']} | {r['state_gib_per_rank']:.2f} "
                         f"| {r['peak_memory_gib']:.1f} | {r['tokens_per_s']:,.0f} | {100 * r['mfu']:.1f}% | {waits} |")
        sections["bench.gpu_train.sharded"] = "\n".join(lines)
    return sections


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hand"]:
        size, batch, steps, warmup = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        print(json.dumps(hand_loop(size, batch, steps, warmup)), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["pairs"], choices=["pairs", "sizes", "sharded"])
    parser.add_argument("--runs", nargs="+", default=["gpt2:16"], help="SIZE:MICRO_BATCH, e.g. gpt2-medium:16")
    parser.add_argument("--variants", nargs="+", default=["model", "blocks"], choices=["model", "blocks"],
                        help="train.compile_scope values to pair with the hand loop")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--sizes", nargs="+", default=["gpt2-large:8", "gpt2-xl:8"])
    parser.add_argument("--size-scope", default="blocks", choices=["model", "blocks"])
    parser.add_argument("--sharded", nargs="+", default=["gpt2:8", "gpt2-medium:8"])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the figure (compilation)")
    parser.add_argument("--results", type=Path, help="append each result to this JSON-lines file as it comes")
    parser.add_argument("--markdown", type=Path, help="rewrite this file's sections (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench.gpu_train needs a CUDA GPU; none is visible here", file=sys.stderr)
        return 2
    from bench.markdown import publish

    results: list[dict] = []

    def record(result: dict) -> None:
        results.append(result)
        print(json.dumps(result), flush=True)
        if args.results:
            with args.results.open("a") as file:
                file.write(json.dumps(result) + "\n")

    parts = {"pairs": (measure_pairs, args.runs), "sizes": (measure_size, args.sizes),
             "sharded": (measure_sharded, args.sharded)}
    with tempfile.TemporaryDirectory() as tmp:
        for part in args.parts:
            measure, runs = parts[part]
            for run in runs:
                size, batch = run.split(":")
                try:
                    measure(size, int(batch), args, Path(tmp), record)
                except RuntimeError as err:  # one size that does not fit must not lose the others
                    record({"part": part, "size": size, "batch": int(batch), "error": str(err)[-2000:]})
    for name, text in render([r for r in results if "error" not in r], args).items():
        publish(text, args.markdown, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
