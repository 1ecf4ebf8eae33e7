"""Benchmark: is `app.check`'s all_reduce busbw what a minimal hand-written torch.distributed loop gets?

    python -m bench.check_allreduce [--ranks 2] [--repeats 5] [--markdown BENCHMARKS.md]

One run starts `--ranks` gloo processes on this machine (CPU; NCCL on GPU when available). Each rank,
per message size, alternately runs (a) the check's own measurement (`app.check.collectives.make_op`
+ `time_op`, the check's iteration count) and (b) a bare loop: warm up, barrier, `perf_counter`
around N `dist.all_reduce` calls. Both take the slowest rank's time, as nccl-tests and the check do.
The median over repeats is reported; the target is check/bare >= 0.95. Then it times the whole
default check (`torchrun --standalone --nproc-per-node=2 -m app.check`, target < 30 s), and, when
nccl-tests' `all_reduce_perf` is on PATH and a GPU is present, runs it over the same sizes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from bench.markdown import publish

REPO = Path(__file__).resolve().parents[1]
RANK_TIMEOUT_S = 600


def _worker(repeats: int) -> None:
    import torch
    import torch.distributed as dist

    from app.check import collectives as coll

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    store = dist.TCPStore(
        os.environ["MASTER_ADDR"],
        int(os.environ["MASTER_PORT"]),
        world,
        is_master=rank == 0,
        timeout=timedelta(seconds=120),
    )
    cuda = torch.cuda.is_available()
    device = torch.device("cuda", rank % max(1, torch.cuda.device_count())) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if cuda else "gloo", store=store, rank=rank, world_size=world)
    scope = coll.Scope("all", f"all ranks ({world})", tuple(range(world)))
    sizes = coll.DEFAULT_SIZES_GPU if cuda else coll.DEFAULT_SIZES_CPU

    def slowest(seconds: float) -> float:
        t = torch.tensor([seconds], dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t.item())

    def bare(nbytes: int, iters: int) -> float:
        buf = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
        for _ in range(2):
            dist.all_reduce(buf)
        dist.barrier()
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(buf)
        if cuda:
            torch.cuda.synchronize()
        return (time.perf_counter() - start) / iters

    lines = []
    for size in sizes:
        check_t, bare_t = [], []
        for repeat in range(repeats):
            op, _, nbytes = coll.make_op("all_reduce", scope, None, rank, device, size)
            iters = coll.iterations(nbytes, device)
            order = ("check", "bare") if repeat % 2 == 0 else ("bare", "check")
            for which in order:
                if which == "check":
                    check_t.append(slowest(coll.time_op(op, iters, device, None)))
                else:
                    bare_t.append(slowest(bare(nbytes, iters)))
        factor = coll.bus_factor("all_reduce", world)
        ours, theirs = statistics.median(check_t), statistics.median(bare_t)
        # Each repeat's two measurements ran back to back: their ratio cancels slow drifts in machine load.
        paired = statistics.median(b / c for c, b in zip(check_t, bare_t, strict=True))
        lines.append(
            f"{nbytes}\t{iters}\t{nbytes / ours / 1e9 * factor:.4f}\t{nbytes / theirs / 1e9 * factor:.4f}"
            f"\t{paired:.4f}"
        )
    if rank == 0:
        print("\n".join(lines), flush=True)
    dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def compare_busbw(ranks: int, repeats: int) -> list[tuple[int, int, float, float, float]]:
    port = str(_free_port())
    procs = []
    for rank in range(ranks):
        env = dict(
            os.environ,
            RANK=str(rank),
            WORLD_SIZE=str(ranks),
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
            OMP_NUM_THREADS="1",
            PYTHONPATH=str(REPO),
        )
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "bench.check_allreduce", "--worker", str(repeats)],
                env=env,
                cwd=REPO,
                stdout=subprocess.PIPE,
                text=True,
            )
        )
    outs = [p.communicate(timeout=RANK_TIMEOUT_S)[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"benchmark ranks failed: {[p.returncode for p in procs]}")
    rows = []
    for line in outs[0].strip().splitlines():
        size, iters, ours, theirs, paired = line.split("\t")
        rows.append((int(size), int(iters), float(ours), float(theirs), float(paired)))
    return rows


def time_default_check(ranks: int, repeats: int) -> list[float]:
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                f"--nproc-per-node={ranks}",
                "-m",
                "app.check",
            ],
            cwd=REPO,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            capture_output=True,
            text=True,
            timeout=RANK_TIMEOUT_S,
        )
        walls.append(time.perf_counter() - start)
        if out.returncode != 0:
            raise SystemExit(f"the default check failed (exit {out.returncode}):\n{out.stdout[-2000:]}")
    return walls


def nccl_tests_busbw(sizes: list[int]) -> str:
    exe = shutil.which("all_reduce_perf")
    if exe is None:
        return "all_reduce_perf (nccl-tests) not on PATH: not run."
    import torch

    if not torch.cuda.is_available():
        return "all_reduce_perf found but no GPU: not run."
    out = subprocess.run(
        [exe, "-b", str(min(sizes)), "-e", str(max(sizes)), "-f", "8", "-g", "1"],
        capture_output=True,
        text=True,
        timeout=RANK_TIMEOUT_S,
    )
    return "all_reduce_perf output:\n\n```\n" + out.stdout.strip() + "\n```"


def render(rows, walls, ranks: int, repeats: int, nccl_tests: str) -> str:
    import platform

    import torch

    lines = [
        "## app.check all_reduce vs a bare torch.distributed loop",
        "",
        f"Command: `python -m bench.check_allreduce --ranks {ranks} --repeats {repeats}` "
        f"({platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"{'NCCL' if torch.cuda.is_available() else 'gloo on CPU'}, {ranks} ranks on one machine; "
        f"median of {repeats} alternating repeats; slowest rank's time; load average "
        f"{os.getloadavg()[0]:.1f} when it finished).",
        "",
        "| size (B) | iters | app.check busbw (GB/s) | bare loop busbw (GB/s) | check / bare (paired) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for size, iters, ours, theirs, paired in rows:
        lines.append(f"| {size} | {iters} | {ours:.4f} | {theirs:.4f} | {paired:.3f} |")
    ratio = statistics.geometric_mean([paired for *_, paired in rows])
    lines += [
        "",
        f"Geometric mean over sizes of the paired check/bare ratio: **{ratio:.3f}** (target >= 0.95). "
        "busbw columns are medians; the ratio is the median of back-to-back pairs, which cancels load drift "
        "on a shared machine. Both sides run the same gloo/NCCL calls, so per-size ratios away from 1 are "
        "scheduling noise (large under a high load average); the geometric mean is the figure to compare.",
        "",
        f"Whole default check, `torchrun --standalone --nproc-per-node={ranks} -m app.check` (start-up, node "
        f"checks, rendezvous, 5 collectives x 4 sizes, report): "
        f"{', '.join(f'{w:.1f}' for w in walls)} s; "
        f"median **{statistics.median(walls):.1f} s** (target < 30 s).",
        "",
        nccl_tests,
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.check_allreduce", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", default="", help="replace this benchmark's section in this file")
    parser.add_argument("--worker", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker)
        return 0
    rows = compare_busbw(args.ranks, args.repeats)
    walls = time_default_check(args.ranks, 3)
    from app.check.collectives import DEFAULT_SIZES_CPU

    section = render(rows, walls, args.ranks, args.repeats, nccl_tests_busbw(list(DEFAULT_SIZES_CPU)))
    publish(section, Path(args.markdown) if args.markdown else None, "bench.check_allreduce")
    return 0


if __name__ == "__main__":
    sys.exit(main())
