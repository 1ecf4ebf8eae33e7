"""Benchmark on one GPU: app.train against a hand-written loop, the best model size for MFU, fsdp against ddp.

    python -m bench.gpu_train [--parts pairs mfu sharded] [--runs gpt2-medium:16 gpt2:16]
                              [--who plain app-model ddp ddp-stats] [--pairs 1]
                              [--mfu gpt2-xl:8:2048 gpt2-xl:12:2048] [--sharded gpt2:8]
                              [--fsdp-gathering once per-micro-batch]
                              [--steps 25] [--warmup 10] [--results R.jsonl] [--markdown BENCHMARKS.md]
                              [--dry-run]
    python -m bench.gpu_train misses RESULTS.jsonl [--all]

pairs: for each `size:micro-batch`, `pairs` times, each of --who in turn, each in a fresh process:
  the hand loop (`python -m bench.gpu_train hand ...`: nanoGPT's loop of the same model class, the whole model
  compiled, bf16 autocast, fused AdamW, clipping, the same micro-batches per step) in one of its forms:
    plain      no process group, no DDP;
    ddp        wrapped in DDP at world size 1 as app.train wraps it (gradient_as_bucket_view, no_sync on
               all but the last micro-batch, compiled around the wrapper: DDPOptimizer's graph per bucket);
    ddp-stats  and app.train's statistics hook (app.train.stats_hook.StepStats) carrying the loss;
  or `torchrun --nproc-per-node=1 -m app.train --config gpt2-h100` (app-model, app-blocks: its
  train.compile_scope; bf16, torch.compile, fused AdamW, clipping, per-step metrics; at world size 1 no DDP,
  as there is nothing to all-reduce). app.train / plain is the trainer's own cost (per-step metrics, data plan,
  progress); ddp / plain and ddp-stats / ddp are what DDP and the statistics hook cost a rank among several.
  Each figure against plain is the median of the per-pair ratios.
mfu: for each `size:micro-batch:sequence`, first one eager forward/backward/update in a fresh process
  (`fits`): where that runs out of memory, the case runs with train.activation_checkpointing (it pays only
  where it lets the micro-batch fit: it costs a third more compute, which MFU does not count); then
  app.train (compile_scope blocks): tokens/s, MFU, peak memory; where app.train runs out of memory without
  checkpointing though the probe fit, once more with it.
sharded: ddp and fsdp at world size 1 and 2 (two ranks share the GPU, each its own NCCL_HOSTID, so NCCL
  treats them as two hosts), a snapshot every 10 steps: parameter + optimizer bytes and peak memory per
  rank, tokens/s of the job (fsdp's against ddp's at the same world size), and how long the loop waited for
  each background snapshot. fsdp runs once for each --fsdp-gathering (the first at both world sizes, then
  the others): `once` gathers each
  block once per optimizer step (dist.gather_once_per_step=true, the trainer's default), `per-micro-batch`
  in every micro-batch (false, what the trainer did before); each record names it (`gathering`), and only
  the default is held to the target.
misses: the pairs and sharded cases of a results file that fell short of their targets (TARGETS), one
  `part size micro-batch` line each (every case with --all): bench/gpu_session.sh profiles a step of each.
MFU = tokens/s x the model's training FLOPs per token (`GPT.flops_per_token`: 6N + attention, at the run's
sequence length) / the GPU's dense bf16 peak (app.train.summary.peak_bf16_flops). Every result is appended
to --results as it comes, so a call stopped at its time limit keeps what it measured.
--dry-run: the same plumbing on the CPU with the tiny model, fp32 and no compilation (tests/bench); its
figures mean nothing and every record says `"dry_run": true`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from app.train.stats_hook import StepStats
from app.train.summary import peak_bf16_flops
from app.train.workloads.gpt import GPT, PRESETS, GPTShape, next_token_loss
from app.train.workloads.tokens import TokenWindows, synthetic_token_stream

REPO = Path(__file__).resolve().parents[1]
GRAD_ACCUM = 4  # as app/train/configs/gpt2-h100.yaml
WAITED = re.compile(r"snapshot written: .*the loop waited ([\d.]+)s")
#: The dry run's stand-ins: every case runs the tiny model at this micro-batch, on the CPU.
DRY_SIZE, DRY_BATCH = "tiny", 2


@dataclasses.dataclass(frozen=True)
class HandLoop:
    """Which parts of app.train's step path the hand loop takes on (see the module's docstring)."""

    ddp: bool = False
    stats: bool = False
    compile: bool = True

    @property
    def name(self) -> str:
        return "ddp-stats" if self.stats else "ddp" if self.ddp else "plain"

    @classmethod
    def named(cls, name: str, compile: bool = True) -> HandLoop:
        return cls(ddp=name != "plain", stats=name == "ddp-stats", compile=compile)


def shape_of(size: str, sequence: int = 0) -> GPTShape:
    return dataclasses.replace(PRESETS[size], block_size=sequence or PRESETS[size].block_size)


def tokens_needed(shape: GPTShape, batch: int, steps: int, ranks: int = 1, grad_accum: int = GRAD_ACCUM) -> int:
    return (steps + 2) * batch * grad_accum * ranks * (shape.block_size + 1)


def flops_per_token(shape: GPTShape) -> float:
    with torch.device("meta"):
        return GPT(shape).flops_per_token()


def peak_flops() -> float | None:
    return peak_bf16_flops(torch.cuda.get_device_name()) if torch.cuda.is_available() else None


def mfu(tokens_per_s: float, shape: GPTShape) -> float | None:
    peak = peak_flops()
    return tokens_per_s * flops_per_token(shape) / peak if peak else None


def device_here() -> torch.device:
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


def hand_loop(size: str, batch: int, steps: int, warmup: int, loop: HandLoop = HandLoop()) -> dict:
    """What a user writes by hand: nanoGPT's loop, one GPU (the CPU in a dry run), in `loop`'s form."""
    device = device_here()
    cuda = device.type == "cuda"
    torch.manual_seed(1234)
    shape = shape_of(size)
    data = TokenWindows(synthetic_token_stream(tokens_needed(shape, batch, steps), shape.vocab_size, 1234),
                        shape.block_size)
    model = GPT(shape).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1, fused=cuda)
    wrapped: torch.nn.Module = model
    stats = StepStats(1)
    if loop.ddp:  # world size 1, as app.train's one-GPU run: a process group of one on an in-memory store
        dist.init_process_group("nccl" if cuda else "gloo", store=dist.HashStore(), rank=0, world_size=1)
        wrapped = DistributedDataParallel(model, device_ids=[device.index] if cuda else None,
                                          gradient_as_bucket_view=True)
        if loop.stats:
            stats.attach(wrapped)
    ddp = wrapped
    compiled = torch.compile(wrapped) if loop.compile else wrapped
    order = torch.randperm(len(data), generator=torch.Generator().manual_seed(0))
    per_step = batch * GRAD_ACCUM
    flag = torch.zeros((), device=device)
    started = time.perf_counter()
    for step in range(steps):
        if step == warmup:
            if cuda:
                torch.cuda.synchronize()
            started = time.perf_counter()
        loss_sum = None
        for micro in range(GRAD_ACCUM):
            first = step * per_step + micro * batch
            inputs, targets = (t.pin_memory().to(device, non_blocking=True) if cuda else t
                               for t in data.get_batch(order[first : first + batch]))
            last = micro == GRAD_ACCUM - 1
            with ddp.no_sync() if loop.ddp and not last else contextlib.nullcontext(), \
                    torch.autocast(device.type, torch.bfloat16, enabled=cuda):
                loss = next_token_loss(compiled(inputs), targets)
                if loop.stats:
                    part = loss.detach().float() * len(inputs)
                    loss_sum = part if loss_sum is None else loss_sum + part
                    if last:
                        stats.submit(torch.stack([loss_sum, flag]))
                (loss / GRAD_ACCUM).backward()
        if loop.stats:
            stats.take().to("cpu", non_blocking=cuda)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - started
    result = {"tokens_per_s": (steps - warmup) * per_step * shape.block_size / elapsed,
              "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30 if cuda else float("nan"),
              "loss": loss.item()}
    if loop.ddp:
        del compiled, ddp, wrapped
        dist.destroy_process_group()
    return result


def fits(size: str, batch: int, sequence: int) -> dict:
    """One eager micro-batch forward/backward, an update, and a second forward/backward (gradients and AdamW
    state now held): does the step fit without activation checkpointing? Eager keeps more activations than
    the compiled step, so a fit here is a fit there."""
    device = device_here()
    cuda = device.type == "cuda"
    shape = shape_of(size, sequence)
    try:
        model = GPT(shape).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, fused=cuda)
        tokens = torch.randint(0, shape.vocab_size, (batch, shape.block_size + 1), device=device)
        for _ in range(2):
            with torch.autocast(device.type, torch.bfloat16, enabled=cuda):
                loss = next_token_loss(model(tokens[:, :-1]), tokens[:, 1:])
            loss.backward()
            optimizer.step()
        if cuda:
            torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError:
        return {"fits": False, "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30}
    return {"fits": True, "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30 if cuda else float("nan")}


def run_child(args: list[str]) -> dict:
    """`python -m bench.gpu_train ARGS` in a fresh process: its last JSON line."""
    output = _run([[sys.executable, "-m", "bench.gpu_train", *args]])[0]
    return json.loads([line for line in output.splitlines() if line.startswith("{")][-1])


def run_hand(size: str, batch: int, steps: int, warmup: int, loop: HandLoop) -> dict:
    return run_child(["hand", size, str(batch), str(steps), str(warmup), loop.name, str(int(loop.compile))])


def run_app(size: str, batch: int, steps: int, warmup: int, run_dir: Path, *overrides: str,
            ranks: int = 1, sequence: int = 0, grad_accum: int = GRAD_ACCUM) -> dict:
    """app.train on `ranks` torchrun agents (one rank each, each its own NCCL_HOSTID); steady throughput
    of the job, rank 0's memory, the loop's waits for snapshots."""
    shape = shape_of(size, sequence)
    args = ["-m", "app.train", "--config", "gpt2-h100", f"run.dir={run_dir}", f"model.size={size}",
            f"model.block_size={shape.block_size}", f"train.batch_size={batch}", f"train.grad_accum={grad_accum}",
            f"train.max_steps={steps}", f"data.tokens={tokens_needed(shape, batch, steps, ranks, grad_accum)}",
            "run.log_every=5", "run.progress=lines", "snapshot.every=0", *overrides]
    if not torch.cuda.is_available():  # the dry run: no compilation on the CPU (minutes of C++ builds)
        args.append("train.compile=false")
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
    shape = shape_of(size)
    for index in range(args.pairs):
        plain: float | None = None
        for who in args.who:
            if who.startswith("app-"):
                result = run_app(size, batch, args.steps, args.warmup, work / f"{size}-{batch}-{who}-{index}",
                                 f"train.compile_scope={who.removeprefix('app-')}")
            else:
                result = run_hand(size, batch, args.steps, args.warmup, HandLoop.named(who, compile=not args.dry_run))
                who = f"hand-{who}"
            plain = result["tokens_per_s"] if who == "hand-plain" else plain
            record({"part": "pairs", "size": size, "batch": batch, "pair": index, "who": who, **result,
                    "mfu": mfu(result["tokens_per_s"], shape),
                    "ratio": result["tokens_per_s"] / plain if plain and who != "hand-plain" else None})


def measure_mfu(case: str, args: argparse.Namespace, work: Path, record) -> None:
    size, batch, sequence = case.split(":")
    shape = shape_of(size, int(sequence))
    probe = run_child(["fits", size, batch, sequence])
    checkpointing, out_of_memory_without = not probe["fits"], False
    while True:
        overrides = ["train.compile_scope=blocks", f"train.activation_checkpointing={str(checkpointing).lower()}"]
        try:
            ours = run_app(size, int(batch), args.steps, args.warmup,
                           work / f"mfu-{size}-{batch}-{sequence}-{'ac' if checkpointing else 'full'}", *overrides,
                           sequence=int(sequence), grad_accum=args.mfu_grad_accum)
            break
        except RuntimeError as error:
            # The probe is the bare model: the trainer's step also holds DDP's buckets and its statistics
            # (gpt2-xl at micro-batch 16: 78 GiB probed, 84 GiB in the trainer), so a near fit can still fail
            if checkpointing or not re.search(r"(?i)out of memory|OutOfMemoryError", str(error)):
                raise
            checkpointing, out_of_memory_without = True, True
    record({"part": "mfu", "size": size, "batch": int(batch), "sequence": shape.block_size,
            "grad_accum": args.mfu_grad_accum, "activation_checkpointing": checkpointing,
            "out_of_memory_without": out_of_memory_without, "eager_probe_peak_gib": probe["peak_memory_gib"],
            **ours, "mfu": mfu(ours["tokens_per_s"], shape)})


#: --fsdp-gathering: its dist.gather_once_per_step
GATHERING = {"once": "true", "per-micro-batch": "false"}


def measure_sharded(size: str, batch: int, args: argparse.Namespace, work: Path, record) -> None:
    """ddp then fsdp with the first --fsdp-gathering at world size 1, then 2; the other gatherings after
    (the comparisons: a part that runs out of time keeps the figures held to the target)."""
    first, *others = args.fsdp_gathering
    cases = [(ranks, strategy, gathering) for ranks in (1, 2) for strategy, gathering in (("ddp", None),
                                                                                         ("fsdp", first))]
    cases += [(ranks, "fsdp", gathering) for gathering in others for ranks in (1, 2)]
    ddp: dict[int, float] = {}
    for ranks, strategy, gathering in cases:
        settings = [f"dist.gather_once_per_step={GATHERING[gathering]}"] if gathering else []
        ours = run_app(size, batch, args.steps, args.warmup,
                       work / f"sh-{size}-{strategy}-{gathering or 'all'}-{ranks}", f"dist.strategy={strategy}",
                       *settings, f"train.compile_scope={args.size_scope}", "snapshot.every=10", ranks=ranks)
        if strategy == "ddp":
            ddp[ranks] = ours["tokens_per_s"]
        record({"part": "sharded", "size": size, "batch": batch, "who": strategy, "gathering": gathering,
                "grad_accum": GRAD_ACCUM, "ranks": ranks, **ours, "mfu": mfu(ours["tokens_per_s"], shape_of(size)),
                "ratio": ours["tokens_per_s"] / ddp[ranks] if ranks in ddp and strategy == "fsdp" else None})


#: The targets a case is held to: app.train against the hand loop without DDP, fsdp against ddp
TARGETS = {"pairs": 1.0, "sharded": 0.9}


def misses(results: list[dict], every: bool = False) -> list[tuple[str, str, int]]:
    """(part, size, micro-batch) of each case whose ratio fell short of its target (every case with `every`),
    once each, in the order measured: what bench/gpu_session.sh's profile part records a step of."""
    found: dict[tuple[str, str, int], None] = {}
    for r in results:
        part = r.get("part")
        held = part != "sharded" or r.get("gathering", "once") == "once"  # the trainer's default only
        if part in TARGETS and held and r.get("ratio") is not None and (every or r["ratio"] < TARGETS[part]):
            found[(part, r["size"], r["batch"])] = None
    return list(found)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _gib(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def render(results: list[dict], args: argparse.Namespace) -> dict[str, str]:
    from app.common.software_versions import versions

    vers = versions()
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU (dry run: the figures mean nothing)"
    peak = peak_flops()
    where = (f"{device}, torch {vers['torch']}, CUDA {vers['cuda']}, NCCL {vers['nccl']}; "
             f"{GRAD_ACCUM} micro-batches per step, bf16 autocast, torch.compile, fused AdamW; "
             f"throughput over steps {args.warmup + 1}-{args.steps}, after compilation; "
             f"MFU against {peak / 1e12 if peak else float('nan'):.0f} TFLOP/s dense bf16")
    median = statistics.median
    sections = {}
    pairs = [r for r in results if r["part"] == "pairs"]
    if pairs:
        lines = ["## app.train on one GPU against a hand-written loop", "",
                 f"Command (on a GPU node): `python -m bench.gpu_train --parts pairs --runs "
                 f"{' '.join(args.runs)} --who {' '.join(args.who)} "
                 f"--pairs {args.pairs} --steps {args.steps} --warmup {args.warmup}` ({where}; sequence 1024; "
                 "each run a fresh process, in turn).", "",
                 "| model | micro-batch | who | tokens/s | / hand loop without DDP (median of pairs) | MFU | "
                 "peak memory (GiB) |", "|---|---:|---|---:|---:|---:|---:|"]
        for size, batch in dict.fromkeys((r["size"], r["batch"]) for r in pairs):
            mine = [r for r in pairs if (r["size"], r["batch"]) == (size, batch)]
            for who in dict.fromkeys(r["who"] for r in mine):
                rows = [r for r in mine if r["who"] == who]
                ratios = [r["ratio"] for r in rows if r.get("ratio")]
                ratio = (f"**{median(ratios):.3f}** ({', '.join(f'{x:.3f}' for x in ratios)})"
                         if ratios and who != "hand-plain" else "")
                mfus = [r["mfu"] for r in rows if r["mfu"] is not None]
                memory = [r["peak_memory_gib"] for r in rows if r["peak_memory_gib"] is not None]
                lines.append(f"| {size} | {batch} | {who} | {median(r['tokens_per_s'] for r in rows):,.0f} | "
                             f"{ratio} | {_percent(median(mfus) if mfus else None)} | "
                             f"{_gib(max(memory, default=None))} |")
        sections["bench.gpu_train"] = "\n".join(lines)
    sizes = [r for r in results if r["part"] == "mfu"]
    if sizes:
        lines = ["## app.train on one GPU: model size and MFU", "",
                 f"Command: `python -m bench.gpu_train --parts mfu --mfu {' '.join(args.mfu)} --mfu-grad-accum "
                 f"{args.mfu_grad_accum} --steps {args.steps} --warmup {args.warmup}` ({where}; compile_scope "
                 f"blocks; {args.mfu_grad_accum} micro-batches per step; activation checkpointing only where one "
                 "eager micro-batch step ran out of memory without it).", "",
                 "| model | parameters | micro-batch | sequence | activation checkpointing | tokens/s | MFU | "
                 "peak memory (GiB) |", "|---|---:|---:|---:|---|---:|---:|---:|"]
        for r in sizes:
            with torch.device("meta"):
                count = GPT(shape_of(r["size"], r["sequence"])).num_parameters()
            lines.append(f"| {r['size']} | {count / 1e6:,.0f}M | {r['batch']} | {r['sequence']} | "
                         f"{'yes' if r['activation_checkpointing'] else 'no'} | {r['tokens_per_s']:,.0f} | "
                         f"**{_percent(r['mfu'])}** | {_gib(r['peak_memory_gib'])} |")
        sections["bench.gpu_train.sizes"] = "\n".join(lines)
    sharded = [r for r in results if r["part"] == "sharded"]
    if sharded:
        lines = ["## Sharded training on the GPU: fsdp against ddp", "",
                 f"Command: `python -m bench.gpu_train --parts sharded --sharded {' '.join(args.sharded)} "
                 f"--steps {args.steps} --warmup {args.warmup}` ({where}; compile_scope {args.size_scope}; world "
                 "size 2 is two ranks on the one GPU, each its own NCCL_HOSTID, so NCCL joins them through its "
                 f"network transport as two hosts; {GRAD_ACCUM} micro-batches a step; fsdp gathers each block "
                 "once a step (dist.gather_once_per_step=true, the default) or in every micro-batch (false); "
                 "a background snapshot every 10 steps).", "",
                 "| model | micro-batch | strategy | ranks | params + AdamW state per rank (GiB) | peak memory "
                 "rank 0 (GiB) | tokens/s (job) | / ddp | MFU (the GPU) | loop waited per snapshot (s) |",
                 "|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
        for r in sharded:
            waits = ", ".join(f"{w:.2f}" for w in r["snapshot_waits_s"]) or "-"
            ratio = f"**{r['ratio']:.3f}**" if r.get("ratio") else ""
            who = {"once": "fsdp, each block gathered once a step",
                   "per-micro-batch": "fsdp, gathered in every micro-batch"}.get(r.get("gathering"), r["who"])
            lines.append(f"| {r['size']} | {r['batch']} | {who} | {r['ranks']} | {r['state_gib_per_rank']:.2f} "
                         f"| {_gib(r['peak_memory_gib'])} | {r['tokens_per_s']:,.0f} | {ratio} | "
                         f"{_percent(r['mfu'])} | {waits} |")
        sections["bench.gpu_train.sharded"] = "\n".join(lines)
    return sections


def _json_value(value: object) -> object:
    """NaN (no CUDA memory figure on the CPU) as null: results.jsonl stays strict JSON."""
    return None if isinstance(value, float) and math.isnan(value) else value


def scratch() -> str | None:
    """Memory-backed /dev/shm where it has room for gpt2-xl's last snapshot (18 GB; every run writes one at its
    end, after the measured steps) and its copy, else the default temporary directory."""
    try:
        stat = os.statvfs("/dev/shm")
    except OSError:
        return None
    return "/dev/shm" if stat.f_bavail * stat.f_frsize > 48 * 2**30 else None


def _dry(spec: str, fields: int) -> str:
    """A case of the dry run: the tiny model at a small micro-batch (and its own sequence length)."""
    return ":".join([DRY_SIZE, str(DRY_BATCH), "0"][:fields])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hand"]:
        size, batch, steps, warmup, name, compiled = argv[1:7]
        loop = HandLoop.named(name, compile=compiled == "1")
        print(json.dumps(hand_loop(size, int(batch), int(steps), int(warmup), loop)), flush=True)
        return 0
    if argv[:1] == ["misses"]:  # misses RESULTS.jsonl [--all]: one `part size micro-batch` line each
        records = [json.loads(line) for line in Path(argv[1]).read_text().splitlines() if line.strip()]
        for part, size, batch in misses(records, every="--all" in argv[2:]):
            print(part, size, batch)
        return 0
    if argv[:1] == ["fits"]:
        print(json.dumps(fits(argv[1], int(argv[2]), int(argv[3]))), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["pairs"], choices=["pairs", "mfu", "sharded"])
    parser.add_argument("--runs", nargs="+", default=["gpt2-medium:16", "gpt2:16"],
                        help="SIZE:MICRO_BATCH, e.g. gpt2-medium:16")
    parser.add_argument("--who", nargs="+", default=["plain", "app-model", "ddp", "ddp-stats"],
                        choices=["plain", "ddp", "ddp-stats", "app-model", "app-blocks"],
                        help="in this order: the hand loop's forms and app.train's train.compile_scope values "
                             "(plain first: the others are set against it)")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--mfu", nargs="+", default=["gpt2-xl:8:2048", "gpt2-xl:12:2048", "gpt2-xl:16:1024"],
                        help="SIZE:MICRO_BATCH:SEQUENCE, best guess first")
    parser.add_argument("--mfu-grad-accum", type=int, default=2,
                        help="micro-batches per step in the mfu runs (fewer: the same MFU in less time)")
    parser.add_argument("--size-scope", default="blocks", choices=["model", "blocks"])
    parser.add_argument("--sharded", nargs="+", default=["gpt2:8"])
    parser.add_argument("--fsdp-gathering", nargs="+", default=["once", "per-micro-batch"], choices=list(GATHERING),
                        help="the sharded part's fsdp runs, in this order: each block gathered once per "
                             "optimizer step (dist.gather_once_per_step=true) or in every micro-batch (false)")
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the figure (compilation)")
    parser.add_argument("--results", type=Path, help="append each result to this JSON-lines file as it comes")
    parser.add_argument("--markdown", type=Path, help="rewrite this file's sections (e.g. BENCHMARKS.md)")
    parser.add_argument("--dry-run", action="store_true", help="the plumbing on the CPU: tiny model, no compile")
    args = parser.parse_args(argv)
    if args.dry_run:
        args.runs, args.sharded = [_dry(r, 2) for r in args.runs], [_dry(r, 2) for r in args.sharded[:1]]
        args.mfu = [_dry(r, 3) for r in args.mfu[:1]]
    elif not torch.cuda.is_available():
        print("bench.gpu_train needs a CUDA GPU; none is visible here (--dry-run runs the plumbing on the CPU)",
              file=sys.stderr)
        return 2
    from bench.markdown import publish

    results: list[dict] = []

    def record(result: dict) -> None:
        result = {key: _json_value(value) for key, value in result.items()}
        result = {**result, "dry_run": True} if args.dry_run else result
        results.append(result)
        print(json.dumps(result), flush=True)
        if args.results:
            with args.results.open("a") as file:
                file.write(json.dumps(result) + "\n")

    cases = {"pairs": args.runs, "mfu": args.mfu, "sharded": args.sharded}
    with tempfile.TemporaryDirectory(dir=scratch()) as tmp:
        for part in args.parts:
            for case in cases[part]:
                try:
                    if part == "mfu":
                        measure_mfu(case, args, Path(tmp), record)
                    else:
                        size, batch = case.split(":")
                        (measure_pairs if part == "pairs" else measure_sharded)(size, int(batch), args, Path(tmp),
                                                                               record)
                except RuntimeError as err:  # one case that does not fit must not lose the others
                    record({"part": part, "case": case, "error": str(err)[-2000:]})
    for name, text in render([r for r in results if "error" not in r], args).items():
        publish(text, args.markdown, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
