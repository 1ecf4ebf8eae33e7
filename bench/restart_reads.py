"""Benchmark: bytes a restart reads from the run directory, against the number of ranks.

    python -m bench.restart_reads [--ranks 1 2 4] [--preset tiny] [--against REV] [--markdown BENCHMARKS.md]

For each world size and strategy: the real trainer (torchrun, gloo) trains to step 8 with a snapshot every
4 steps, the newest snapshot is deleted, and the run is started again, so it resumes from step 4's. A
Python audit hook (PEP 578; a `sitecustomize` on the workers' path, outside the trainer) logs every file
under snapshots/ a rank opens for reading, with its size; the figure is the sum of those sizes: whole
files, so DCP's partial reads of a shard file count in full (an upper bound). The 4096-rank line
extrapolates ddp's bytes read per snapshot byte, linearly in the ranks through the two largest worlds.
With --against REV the same runs are made from REV's sources too (a temporary git worktree), side by side.
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

REPO = Path(__file__).resolve().parents[1]

AUDIT_HOOK = '''
import os, sys
_log = os.path.join(os.environ["SNAPSHOT_OPEN_LOG"], "opens-" + os.environ.get("RANK", "x") + ".txt")

def _reads(mode, flags):
    if isinstance(mode, str):
        return "r" in mode and "+" not in mode
    return isinstance(flags, int) and flags & os.O_ACCMODE == os.O_RDONLY

def _hook(event, args):
    if event == "open" and isinstance(args[0], str) and "/snapshots/" in args[0] and _reads(args[1], args[2]):
        with open(_log, "a") as out:
            out.write(f"{os.stat(args[0]).st_size} {args[0]}\\n")

sys.addaudithook(_hook)
'''


def install_hook(directory: Path, tree: Path = REPO) -> dict[str, str]:
    """A sitecustomize logging into `directory`; the environment variables that make workers load it (and the
    app from `tree`)."""
    hooks = directory / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "sitecustomize.py").write_text(AUDIT_HOOK)
    return {"PYTHONPATH": f"{hooks}{os.pathsep}{tree}", "SNAPSHOT_OPEN_LOG": str(directory)}


def opened(directory: Path, rank: int, snapshot: Path) -> list[tuple[int, str]]:
    """(size, name relative to the snapshots directory) of each file of `snapshot` rank `rank` opened."""
    log = directory / f"opens-{rank}.txt"
    found = []
    for line in (log.read_text().splitlines() if log.exists() else []):
        size, path = line.split(" ", 1)
        if Path(path) == snapshot or Path(path).is_relative_to(snapshot):
            found.append((int(size), os.path.relpath(path, snapshot.parent)))
    return found


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
    per_rank = [sum(s for s, _ in opened(logs, rank, snapshot)) for rank in range(ranks)]
    return {"size": size, "rank0": per_rank[0], "others": sum(per_rank[1:]),
            "other_max": max(per_rank[1:], default=0), "total": sum(per_rank)}


def _per_byte(measured: dict[str, float]) -> float:
    """Bytes all ranks read per byte of the snapshot."""
    return measured["total"] / measured["size"]


def table(rows: list[tuple[int, str, dict[str, float]]], extrapolate_to: int) -> str:
    lines = ["| strategy | ranks | snapshot (MB) | rank 0 reads (MB) | each other rank, most (MB) | all ranks (MB) "
             "| all ranks / snapshot |", "|---|---:|---:|---:|---:|---:|---:|"]
    for ranks, strategy, m in rows:
        lines.append(f"| {strategy} | {ranks} | {m['size'] / 1e6:.1f} | {m['rank0'] / 1e6:.1f} | "
                     f"{m['other_max'] / 1e6:.1f} | {m['total'] / 1e6:.1f} | {_per_byte(m):.2f} |")
    # ddp only: DCP reads part of a shard file and the whole-file count overstates it by an amount that
    # depends on the world size (every rank reads the pieces of replicated state one rank saved).
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
                     f"{projected:.0f} x the snapshot | {projected:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--preset", default="tiny", help="model.size of the demo config (default: tiny)")
    parser.add_argument("--extrapolate-to", type=int, default=4096)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--against", metavar="REV", help="measure REV's trainer too, e.g. the commit before a change")
    args = parser.parse_args(argv)
    trees = {"this checkout": REPO}
    with tempfile.TemporaryDirectory(prefix="restart-reads-") as tmp:
        if args.against:
            trees[args.against] = Path(tmp) / "against"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(trees[args.against]),
                            args.against], check=True, capture_output=True)
        try:
            tables = {name: table([(ranks, strategy, measure(ranks, strategy, args.preset, Path(tmp) / name, tree))
                                   for strategy in ("ddp", "fsdp") for ranks in args.ranks], args.extrapolate_to)
                      for name, tree in trees.items()}
        finally:
            if args.against:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(trees[args.against])],
                               check=False)
    command = (f"python -m bench.restart_reads --ranks {' '.join(map(str, args.ranks))} --preset {args.preset}"
               + (f" --against {args.against}" if args.against else ""))
    text = (f"## A restart: bytes read from the run directory\n\nCommand: `{command}` ({platform.machine()}, "
            f"real torchrun workers on gloo; an audit hook outside the trainer logs each snapshot file a rank "
            f"opens, counted whole, so fsdp's figures are upper bounds: DCP reads the parts of the shard files a "
            f"rank needs; the last ddp line extrapolates the reads per snapshot byte linearly in the ranks).\n\n"
            + "\n\n".join(f"{name}:\n\n{rows}" for name, rows in tables.items()) + "\n")
    publish(text, args.markdown, "bench.restart_reads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
