"""Train a model with DistributedDataParallel.

    python -m app.train --config demo train.max_steps=50            # one process
    torchrun --standalone --nproc-per-node=2 -m app.train --config demo
    srun --ntasks-per-node=4 python -m app.train --config gpt2       # one task per GPU
    torchrun --nnodes=$NNODES --nproc-per-node=4 --rdzv-backend=c10d \\
        --rdzv-endpoint=$HEAD:29500 --rdzv-id=$JOB -m app.train ...  # on every node

run.dir (and snapshot.dir) must be yours and writable by no one else: a new one is created 0700 (mkdir -m 750 it
first to let your group read); one another user owns or can write is refused (exit 2).

Exit codes: 0 done (or already complete: nothing changed), 2 bad config or environment, 3 rendezvous
failed, 4 a rank stopped answering (named in the log and summary.json) or a collective timed out, 9 a
snapshot could not be written (no space, quota or I/O error on snapshot.dir's file system: free space or give
another snapshot.dir, then run again to resume), 75 stopped by SIGTERM/SIGUSR1/SIGINT after writing a snapshot
(requeue to resume).
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import NoReturn

from app.common.cluster import detect_environment
from app.common.compile_cache import private_compile_caches
from app.common.distributed import end_process, hostname, init_distributed, shutdown, store_client
from app.common.fabric_env import ensure_fabric_policy
from app.common.logs import setup_logging
from app.common.typedconfig import describe, load_config
from app.host.common import exitcodes
from app.host.common.errors import UsageError, exits_cleanly
from app.host.common.private_dir import PRIVATE, ensure_private_dir, group_readable_mode, probe_writable
from app.train import failure_budget as budget
from app.train.config import Config
from app.train.sinks import missing_libraries

log = logging.getLogger("app.train")
CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m app.train",
        description="Train with DDP. Settings: --config FILE.yaml (or a shipped name), then key=value overrides.",
        epilog="keys (section.key = default):\n" + "\n".join(describe(Config)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shipped = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
    parser.add_argument("--config", help=f"YAML file, or one of: {shipped}")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config as YAML and exit")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what the run would do (batch, steps, parameters, memory per rank, step time) "
                             "and exit, joining no process group")
    parser.add_argument("--world-size", type=int, metavar="N",
                        help="with --dry-run: plan for N ranks (default: the launcher's, else 1)")
    parser.add_argument("--nodes", type=int, metavar="N",
                        help=f"with --dry-run: plan failures for N nodes (default: world size / "
                             f"{budget.GPUS_PER_NODE})")
    parser.add_argument("--node-mtbf-hours", type=float, metavar="H",
                        help=f"with --dry-run: a node's mean time between failures (default {budget.NODE_MTBF_H:,.0f}: "
                             "Llama 3's rate)")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="e.g. train.batch_size=32 optim.lr=3e-4")
    return parser.parse_intermixed_args(argv)  # flags and key=value in any order


def is_path(name: str) -> bool:
    """Whether `--config`/`--site` NAME names a file: it has a `/` or ends .yaml/.yml. A bare name is always a
    shipped one: a file of that name in the working directory (the job's, which others may write) is not read."""
    return "/" in name or name.endswith((".yaml", ".yml"))


def resolve_config_path(name: str | None) -> str | None:
    """A path as given, or a bare name of a config shipped in app/train/configs (see `is_path`)."""
    if name is None or (is_path(name) and os.path.exists(name)):
        return name
    shipped = CONFIG_DIR / f"{name}.yaml"
    if not is_path(name) and shipped.exists():
        return str(shipped)
    names = sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))
    stem = Path(name).stem
    if is_path(name) and stem in names:
        raise UsageError(f"--config {name!r}: no such file from {os.getcwd()}; to use the shipped one: --config {stem}")
    if is_path(name):
        raise UsageError(f"--config {name!r}: no such file from {os.getcwd()}; example: --config {names[0]}")
    raise UsageError(f"--config {name!r}: no shipped config of that name ({', '.join(names)}); example: --config "
                     f"{names[0]}, or a file of your own by its path: --config ./{name}.yaml")


def check_writable(directory: Path, key: str, mode: int = PRIVATE) -> None:
    """Fail before joining the job (not at the first snapshot, an hour in) if we cannot write here, or if
    another user owns or can write the directory or can rename it or a directory above it
    (app/host/common/private_dir.py); a new one is created `mode`."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{key}={str(directory)!r} is a file, not a directory; example: {key}=$SCRATCH/runs/demo")
    ensure_private_dir(directory, key, mode, example="$SCRATCH/runs/demo", parents=True)
    probe_writable(directory, key)


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.world_size is not None and (not args.dry_run or args.world_size < 1):
        raise UsageError("--world-size N (N >= 1) plans a --dry-run; example: --dry-run --world-size 16")
    if args.nodes is not None and (not args.dry_run or args.nodes < 1):
        raise UsageError("--nodes N (N >= 1) plans a --dry-run; example: --dry-run --world-size 4096 --nodes 1024")
    if args.node_mtbf_hours is not None and (not args.dry_run or args.node_mtbf_hours <= 0):
        raise UsageError("--node-mtbf-hours H (H > 0) plans a --dry-run; example: --dry-run --node-mtbf-hours 10000")
    config = load_config(Config, resolve_config_path(args.config), args.overrides)
    if args.print_config:
        from app.train.dry_run import print_config

        print_config(config)
        return exitcodes.OK
    problems = missing_libraries(config)
    if problems:
        raise UsageError("; ".join(problems))
    environment = detect_environment(os.environ)
    if args.dry_run:
        from app.train.dry_run import dry_run  # heavy (builds the model), and only for this

        world = (args.world_size, "--world-size") if args.world_size else (environment.world_size(), environment.name)
        dry_run(config, *world, nodes=args.nodes, node_mtbf_h=args.node_mtbf_hours)
        return exitcodes.OK
    setup_logging(hostname(), environment.rank())
    # Under `apptainer exec`, nothing applied the fabric policy: apply it before NCCL starts.
    ensure_fabric_policy(environment.local_rank())
    for line in private_compile_caches():  # before anything compiles: what is in these caches runs as you
        if environment.local_rank() == 0:
            log.info(line)
    run_dir = Path(config.run.dir)
    snapshot_dir = Path(config.snapshot.dir) if config.snapshot.dir else run_dir / "snapshots"
    check_writable(run_dir, "run.dir")
    check_writable(snapshot_dir, "snapshot.dir", group_readable_mode(run_dir, PRIVATE))
    from app.train.assemble import run_training  # the heavy imports wait until the input is known to be valid

    ctx = init_distributed(environment, config.dist.backend, config.dist.timeout_s)
    # The hang watch's heartbeats travel through the rendezvous store, on a connection of their own.
    watch_store = store_client(environment, timeout_s=10.0)
    try:
        result = run_training(config, ctx, run_dir, snapshot_dir, watch_store)
    finally:
        shutdown()
    return exitcodes.PREEMPTED if result.status == "preempted" else exitcodes.OK


def command() -> NoReturn:
    """`python -m app.train` and the `app-train` script: run, then end the process with main's code."""
    end_process(main())

