"""Run the trainer inside the test process, at world size one: the whole run (assembly, loop, snapshots,
outputs, summary) on a gloo group over an in-memory store, in about a second, without a subprocess.
What needs real processes (torchrun, several ranks, SIGKILL, hangs) stays in the process tests."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

from app.common.cluster import detect_environment
from app.common.distributed import init_distributed, shutdown
from app.common.signals import STOP_SIGNALS
from app.common.typedconfig import load_config
from app.train.assemble import run_training
from app.train.cli import check_writable, resolve_config_path
from app.train.config import Config
from app.train.loop import TrainResult


def train_here(run_dir: Path, *overrides: str, config: str = "regression") -> TrainResult:
    """`python -m app.train --config CONFIG run.dir=RUN_DIR OVERRIDES...`, in this process."""
    settings = load_config(Config, resolve_config_path(config), [f"run.dir={run_dir}", "run.progress=lines",
                                                                  *overrides])
    snapshot_dir = Path(settings.snapshot.dir) if settings.snapshot.dir else run_dir / "snapshots"
    check_writable(run_dir, "run.dir")  # as the command line does: it makes both
    check_writable(snapshot_dir, "snapshot.dir")
    handlers = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    ctx = init_distributed(detect_environment({}), "gloo")
    try:
        return run_training(settings, ctx, run_dir, snapshot_dir)
    finally:
        shutdown()
        for signum, handler in handlers.items():  # the trainer installs its stop handlers
            signal.signal(signum, handler)


def metrics(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def params(run_dir: Path) -> str:
    return json.loads((run_dir / "summary.json").read_text())["params_sha256"]
