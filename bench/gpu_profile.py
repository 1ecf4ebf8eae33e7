"""One steady-state training step of `app.train` and of the hand-written loop under torch.profiler.

    torchrun --standalone --nproc-per-node=1 -m bench.gpu_profile app PREFIX [--wait 4] -- APP_TRAIN_ARGS...
    python -m bench.gpu_profile hand PREFIX SIZE MICRO_BATCH [--wait 4] [--ddp] [--stats] [--compile]
    python -m bench.gpu_profile compare OUT.txt APP.json HAND.json

The profiler's step is one optimizer step: torch's global optimizer-step hook
(`torch.optim.optimizer.register_optimizer_step_post_hook`) calls `profile.step()` after every
`optimizer.step()`, so app.train runs unchanged (its own `main`, under torchrun). Steps 1 to `wait` run
unrecorded (compilation, allocator warm-up), the next one warms the profiler up, and the one after is
recorded: optimizer step `wait`+2, from just after step `wait`+1's update to just after its own (zero_grad,
the scheduler, the metrics of the step before, data, forward/backward, clipping, update).

Each run writes PREFIX.txt (the top operators by device time and by host time), PREFIX.json (every
operator's self device and host time and calls, and the step's host time) and PREFIX.trace.json.gz (the
chrome trace, for chrome://tracing or Perfetto; left out above 15 MiB). `compare` sets the two JSON files
side by side: the operators whose time differs most between the trainer and the hand loop.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.profiler import ProfilerActivity, profile, schedule

#: The session's files stay under 16 MiB each, easy to copy off a GPU node: leave a margin.
TRACE_LIMIT_BYTES = 15 * 2**20
ROWS = 40


def _total(event: object, *names: str) -> float:
    """The first of these attributes the event has (torch renamed cuda_* to device_* in 2.4), in us."""
    for name in names:
        value = getattr(event, name, None)
        if value is not None:
            return float(value)
    return 0.0


def self_device_us(event: object) -> float:
    return _total(event, "self_device_time_total", "self_cuda_time_total")


#: The trace's categories of work on the device; its gpu_user_annotation events are ranges (a module's forward
#: seen from the device), not work, and counting them counts the kernels inside them twice.
DEVICE_WORK = {"kernel", "gpu_memcpy", "gpu_memset"}


def device_timeline(events: list[dict]) -> dict:
    """From the chrome trace's events: the span from the step's first kernel to the end of its last, the time
    some kernel, copy or memset ran (overlaps counted once), the rest (the device waiting for the host), and that
    idle time in each tenth of the span: where in the step the device starves."""
    work = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("ph") == "X" and e.get("cat") in DEVICE_WORK)
    if not work:
        return {"span_ms": 0.0, "busy_ms": 0.0, "idle_ms": 0.0, "idle_ms_by_tenth": [0.0] * 10}
    start, end = work[0][0], max(stop for _, stop in work)
    tenth = (end - start) / 10
    idle_by_tenth = [0.0] * 10
    busy, reached = 0.0, start
    for begin, stop in work:
        if begin > reached:  # a gap: spread it over the tenths it covers
            for index in range(10):
                low, high = start + index * tenth, start + (index + 1) * tenth
                idle_by_tenth[index] += max(0.0, min(begin, high) - max(reached, low))
        busy += max(0.0, stop - max(begin, reached))
        reached = max(reached, stop)
    return {"span_ms": (end - start) / 1e3, "busy_ms": busy / 1e3, "idle_ms": (end - start - busy) / 1e3,
            "idle_ms_by_tenth": [round(us / 1e3, 3) for us in idle_by_tenth]}


def write_outputs(prof: profile, prefix: Path, label: str) -> dict:
    """The tables, the operator JSON and the compressed chrome trace of the recorded step."""
    on_gpu = torch.cuda.is_available()
    averages = prof.key_averages()
    steps = [e for e in prof.events() if e.name.startswith("ProfilerStep")]
    step_host_ms = sum(e.cpu_time_total for e in steps) / 1e3 / max(1, len(steps))
    ops = {e.key: {"self_device_us": self_device_us(e), "self_host_us": float(e.self_cpu_time_total),
                   "calls": int(e.count)} for e in averages}
    raw = prefix.with_name(prefix.name + ".trace.json")
    prof.export_chrome_trace(str(raw))
    timeline = device_timeline(json.loads(raw.read_text())["traceEvents"])
    summary = {"label": label, "device": torch.cuda.get_device_name() if on_gpu else "cpu",
               "torch": torch.__version__, "step_host_ms": step_host_ms, "device_ms": timeline["busy_ms"],
               "device_timeline": timeline, "ops": ops}
    prefix.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [f"{label}: one optimizer step; host {step_host_ms:.1f} ms; device busy {timeline['busy_ms']:.1f} ms "
             f"of {timeline['span_ms']:.1f} ms, idle by tenth of the step (ms) "
             f"{' '.join(f'{ms:.1f}' for ms in timeline['idle_ms_by_tenth'])}; torch {torch.__version__}, "
             f"{summary['device']}", ""]
    if on_gpu:
        sort = "self_device_time_total" if hasattr(averages[0], "self_device_time_total") else "self_cuda_time_total"
        lines += ["== by self device time", averages.table(sort_by=sort, row_limit=ROWS, max_name_column_width=70), ""]
    lines += ["== by self host time", averages.table(sort_by="self_cpu_time_total", row_limit=ROWS,
                                                     max_name_column_width=70)]
    prefix.with_suffix(".txt").write_text("\n".join(lines) + "\n")
    packed = raw.with_name(raw.name + ".gz")
    with raw.open("rb") as source, gzip.open(packed, "wb", compresslevel=6) as target:
        shutil.copyfileobj(source, target)
    raw.unlink()
    if packed.stat().st_size > TRACE_LIMIT_BYTES:
        note = f"{packed.name}: {packed.stat().st_size / 2**20:.1f} MiB compressed, over {TRACE_LIMIT_BYTES >> 20} MiB"
        packed.unlink()
        with prefix.with_suffix(".txt").open("a") as text:
            text.write(f"\n(the chrome trace is left out: {note})\n")
    return summary


def profiled(run: Callable[[], object], prefix: Path, label: str, wait: int) -> object:
    """Run `run` with the profiler recording optimizer step `wait`+2 (see the module's docstring)."""
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    steps = 0
    prof = profile(activities=activities, schedule=schedule(wait=wait, warmup=1, active=1, repeat=1),
                   on_trace_ready=lambda p: write_outputs(p, prefix, label) if steps >= wait + 2 else None)

    def step(optimizer: object, args: object, kwargs: object) -> None:
        nonlocal steps
        steps += 1
        prof.step()

    handle = register_optimizer_step_post_hook(step)
    try:
        with prof:  # a run that ends inside the recorded step hands a part of it to on_trace_ready: not written
            result = run()
    finally:
        handle.remove()
    if steps < wait + 2:
        raise SystemExit(f"bench.gpu_profile: {label} ran fewer than {wait + 2} optimizer steps; nothing recorded")
    return result


#: The suspects for the trainer's gap, each as the operators (a regular expression on their names) where it
#: shows: its self time and calls in the trainer's step against the hand loop's.
SUSPECTS = {
    "DDP's wrapper and reducer on the host": r"^DistributedDataParallel|Reducer",
    "collectives (the buckets' all-reduce, the statistics' ride)": r"(?i)nccl|^c10d::|allreduce",
    "compiled regions (DDPOptimizer: a graph per bucket)": r"^Torch-Compiled Region|^CompiledFunction",
    "the host waiting for the device": r"Synchronize",
    "copies between host and device and within the device": r"^Memcpy|^Memset|cudaMemcpy|^aten::copy_$",
    "concatenations (the statistics hook joins them to the last bucket)": r"^aten::cat$",
    "the optimizer and gradient clipping": r"^Optimizer\.|[Aa]dam|multi_tensor|^aten::_foreach_norm",
}


def suspects(app: dict, hand: dict) -> list[str]:
    """One line per suspect: self host and device time (ms) and calls in each step."""
    lines = [f"{'suspect':<68} {'app.train host/device (calls)':>30} {'hand host/device (calls)':>28}"]
    for name, pattern in SUSPECTS.items():
        cells = []
        for step in (app, hand):
            ops = [op for key, op in step["ops"].items() if re.search(pattern, key)]
            cells.append(f"{sum(op['self_host_us'] for op in ops) / 1e3:.2f}/"
                         f"{sum(op['self_device_us'] for op in ops) / 1e3:.2f} ({sum(op['calls'] for op in ops)})")
        lines.append(f"{name:<68} {cells[0]:>30} {cells[1]:>28}")
    return lines


def compare(out: Path, app: dict, hand: dict, rows: int = 30) -> str:
    """The operators whose self time differs most between the two steps (device time where there is one)."""
    key = "self_device_us" if app["device_ms"] > 0 else "self_host_us"
    names = set(app["ops"]) | set(hand["ops"])
    zero = {"self_device_us": 0.0, "self_host_us": 0.0, "calls": 0}
    delta = sorted(names, key=lambda n: -abs(app["ops"].get(n, zero)[key] - hand["ops"].get(n, zero)[key]))
    what = "device" if key == "self_device_us" else "host"
    lines = [f"{app['label']} against {hand['label']}, one optimizer step each ({app['device']}, torch {app['torch']})",
             f"step host time: {app['step_host_ms']:.1f} ms against {hand['step_host_ms']:.1f} ms; "
             f"device busy (kernels, copies; overlaps once): {app['device_ms']:.1f} ms "
             f"against {hand['device_ms']:.1f} ms",
             *[f"device idle by tenth of the step (ms), {step['label']}: "
               f"{' '.join(f'{ms:.1f}' for ms in step.get('device_timeline', {}).get('idle_ms_by_tenth', []))}"
               for step in (app, hand)], "",
             "the suspects (self host / device time in ms, calls):", *suspects(app, hand), "",
             f"operators by the difference of their self {what} time (ms; calls in brackets):",
             f"{'operator':<72} {'app.train':>14} {'hand':>14} {'difference':>10}"]
    for name in delta[:rows]:
        a, h = app["ops"].get(name, zero), hand["ops"].get(name, zero)
        lines.append(f"{name[:72]:<72} {a[key] / 1e3:>8.2f} ({a['calls']:>3}) {h[key] / 1e3:>8.2f} ({h['calls']:>3}) "
                     f"{(a[key] - h[key]) / 1e3:>+10.2f}")
    text = "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    app_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    app = sub.add_parser("app", help="app.train's own main, its arguments after --")
    app.add_argument("prefix", type=Path)
    app.add_argument("--wait", type=int, default=4)
    hand = sub.add_parser("hand", help="the hand-written loop of bench.gpu_train")
    hand.add_argument("prefix", type=Path)
    hand.add_argument("size")
    hand.add_argument("batch", type=int)
    hand.add_argument("--wait", type=int, default=4)
    hand.add_argument("--ddp", action="store_true")
    hand.add_argument("--stats", action="store_true")
    hand.add_argument("--compile", action="store_true")
    both = sub.add_parser("compare", help="the operators whose time differs most")
    both.add_argument("out", type=Path)
    both.add_argument("app", type=Path)
    both.add_argument("hand", type=Path)
    args = parser.parse_args(argv)
    if args.what == "compare":
        print(compare(args.out, json.loads(args.app.read_text()), json.loads(args.hand.read_text())))
        return 0
    if args.what == "app":
        from app.train.cli import main as train

        code = profiled(lambda: train(app_args), args.prefix, "app.train", args.wait)
        return int(code or 0)
    from bench.gpu_train import HandLoop, hand_loop

    loop = HandLoop(ddp=args.ddp, stats=args.stats, compile=args.compile)
    steps = args.wait + 2
    result = profiled(lambda: hand_loop(args.size, args.batch, steps, 1, loop), args.prefix, f"hand loop {loop.name}",
                      args.wait)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
