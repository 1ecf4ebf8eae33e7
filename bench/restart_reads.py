"""Benchmark: bytes a restart reads from the run directory, against the number of ranks.

    python -m bench.restart_reads [--ranks 1 2 4] [--preset tiny] [--against REV ...] [--markdown BENCHMARKS.md]

For each world size and strategy: the real trainer (torchrun, gloo) trains to step 8 with a snapshot every
4 steps, the newest snapshot is deleted, and the run is started again, so it resumes from step 4's. A
`sitecustomize` on the workers' path (outside the trainer) wraps every file under snapshots/ a rank opens for
reading and writes down, at close, the bytes the program took from it: the figure is their sum (a region
read twice counts twice; what the filesystem serves may be less, from the page cache). A Python audit hook
(PEP 578) beside it logs each file opened with its size: the last column counts those files whole, as this
benchmark did before. The 4096-rank line extrapolates ddp's bytes read per snapshot byte, linearly in the
ranks through the two largest worlds (none for fsdp: see FSDP_READS).
With --against REV ... the same runs are made from each REV's sources too (temporary git worktrees), side by side.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.markdown import publish
from bench.read_audit import install_hook, opened

REPO = Path(__file__).resolve().parents[1]

def _torchrun(ranks: int, args: list[str], env: dict[str, str], tree: Path) -> None:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}",
               "-m", "app.train", *args]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")


def measure(ranks: int, strategy: str, preset: str, work: Path, tree: Path = REPO) -> dict[str, float]:
    """One world's restart, with the trainer from `tree`: bytes of the snapshot, and read by rank 0 and the rest."""
    run_dir = work / f"{strategy}-{ranks}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE", "MASTER_"))}
    env.update(CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(tree))
    args = ["--config", "demo", f"model.size={preset}", "data.tokens=200000", "snapshot.every=4",
            "train.max_steps=8", f"dist.strategy={strategy}", f"run.dir={run_dir}"]
    _torchrun(ranks, args, env, tree)
    snapshots = run_dir / "snapshots"
    for newest in snapshots.glob("step-00000008*"):
        shutil.rmtree(newest) if newest.is_dir() else newest.unlink()
    snapshot = snapshots / ("step-00000004.pt" if strategy == "ddp" else "step-00000004")
    size = (snapshot.stat().st_size if snapshot.is_file()
            else sum(p.stat().st_size for p in snapshot.iterdir()))
    logs = work / f"logs-{strategy}-{ranks}"
    _torchrun(ranks, args, {**env, **install_hook(logs, tree)}, tree)
    per_rank = [sum(n for n, _ in opened(logs, rank, snapshot, "reads")) for rank in range(ranks)]
    whole_files = sum(s for rank in range(ranks) for s, _ in opened(logs, rank, snapshot))
    return {"size": size, "rank0": per_rank[0], "others": sum(per_rank[1:]),
            "other_max": max(per_rank[1:], default=0), "total": sum(per_rank), "whole_files": whole_files}


def _per_byte(measured: dict[str, float]) -> float:
    """Bytes all ranks read per byte of the snapshot."""
    return measured["total"] / measured["size"]


FSDP_READS = ("fsdp, this checkout: rank 0 verifies every file (its sha256 in the manifest) and reads DCP's "
              "`.metadata`, which it sends to the others; each other rank reads its own shard file and, from rank "
              "0's, the items every rank holds alike (the optimizer's step counters and param groups, saved by rank "
              "0: a fixed amount per parameter tensor whatever the number of ranks). So all ranks read about two "
              "snapshots plus N times those items, which are a few percent of this tiny model's snapshot and a far "
              "smaller share of a real model's; the table gives no 4096-rank line for fsdp.")


def table(rows: list[tuple[int, str, dict[str, float]]], extrapolate_to: int) -> str:
    lines = ["| strategy | ranks | snapshot (MB) | rank 0 reads (MB) | each other rank, most (MB) | all ranks (MB) "
             "| all ranks / snapshot | files opened, counted whole / snapshot |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for ranks, strategy, m in rows:
        lines.append(f"| {strategy} | {ranks} | {m['size'] / 1e6:.1f} | {m['rank0'] / 1e6:.1f} | "
                     f"{m['other_max'] / 1e6:.1f} | {m['total'] / 1e6:.1f} | {_per_byte(m):.2f} | "
                     f"{m['whole_files'] / m['size']:.2f} |")
    # ddp only: an fsdp rank reads its own shards and the items every rank holds alike (see FSDP_READS), whose
    # share of this tiny model's snapshot is far larger than a real model's: a line through them says little.
    for strategy in sorted({s for _, s, _ in rows} & {"ddp"}):
        measured = sorted((r, m) for r, s, m in rows if s == strategy and r >= 2)
        if len(measured) < 2:
            continue
        # Reads per snapshot byte, linear in the ranks through the two largest worlds measured: a restart where
        # every rank reads everything grows by one snapshot's worth (or two: hashed, then loaded) per rank; one
        # where rank 0 reads and sends stays flat.
        (small, at_small), (large, at_large) = measured[-2], measured[-1]
        slope = (_per_byte(at_large) - _per_byte(at_small)) / (large - small)
        projected = _per_byte(at_large) + slope * (extrapolate_to - large)
        lines.append(f"| {strategy} | {extrapolate_to} (from {small} and {large}) | | | | "
                     f"{projected:.0f} x the snapshot | {projected:.2f} | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--preset", default="tiny", help="model.size of the demo config (default: tiny)")
    parser.add_argument("--extrapolate-to", type=int, default=4096)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--against", metavar="REV", nargs="+", default=[],
                        help="measure these revisions' trainers too, e.g. the commits before changes")
    args = parser.parse_args(argv)
    trees = {"this checkout": REPO}
    with tempfile.TemporaryDirectory(prefix="restart-reads-") as tmp:
        for rev in args.against:
            trees[rev] = Path(tmp) / f"against-{rev}"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(trees[rev]), rev],
                           check=True, capture_output=True)
        try:
            tables = {name: table([(ranks, strategy, measure(ranks, strategy, args.preset, Path(tmp) / name, tree))
                                   for strategy in ("ddp", "fsdp") for ranks in args.ranks], args.extrapolate_to)
                      for name, tree in trees.items()}
        finally:
            for rev in args.against:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(trees[rev])], check=False)
    command = (f"python -m bench.restart_reads --ranks {' '.join(map(str, args.ranks))} --preset {args.preset}"
               + (f" --against {' '.join(args.against)}" if args.against else ""))
    text = (f"## A restart: bytes read from the run directory\n\nCommand: `{command}` ({platform.machine()}, "
            f"real torchrun workers on gloo; a wrapper outside the trainer counts the bytes each rank takes from "
            f"the snapshot's files; the last column counts the files it opens, whole, as this table did before; "
            f"the ddp 4096 line extrapolates the reads per snapshot byte linearly in the ranks).\n\n"
            + "\n\n".join(f"{name}:\n\n{rows}" for name, rows in tables.items()) + f"\n\n{FSDP_READS}\n")
    publish(text, args.markdown, "bench.restart_reads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
