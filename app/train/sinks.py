"""Optional copies of the metrics for dashboards: TensorBoard and Weights & Biases (offline).

`metrics.jsonl` stays the record of a run; these mirror each step's numbers and are turned on with one
key each (`run.tensorboard=true`, `run.wandb_project=NAME`). Their libraries are imported only when
asked for, and their absence is found before the ranks join (`missing_libraries`), not at step one.
"""

from __future__ import annotations

import importlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from app.train.config import Config

#: Record keys that are positions, not measurements.
_NOT_PLOTTED = {"step", "epoch", "time"}


class MetricsSink(Protocol):
    def write(self, record: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


def missing_libraries(config: Config, environ: Mapping[str, str] = os.environ) -> list[str]:
    """A one-line problem per sink that is asked for but cannot be imported, with the remedy that works here:
    pip where the trainer runs in an environment of yours, the image extension inside an image (read-only)."""
    wanted = []
    if config.run.tensorboard:
        wanted.append(("run.tensorboard=true", "tensorboard", "run.tensorboard=false"))
    if config.run.wandb_project:
        wanted.append((f"run.wandb_project={config.run.wandb_project!r}", "wandb", "leave run.wandb_project empty"))
    image = environ.get("APPTAINER_CONTAINER") or environ.get("SINGULARITY_CONTAINER")
    problems = []
    for setting, module, off in wanted:
        if _imports(module):
            continue
        if image:
            remedy = (f"the image {image} has none: add it with make image-extend IMAGE={image} WHEELS=DIR OUT=my.sif "
                      f"PACKAGES={module} (docs/packages.md) and run with IMAGE=my.sif")
        else:
            remedy = f"pip install {module}"
        problems.append(f"{setting} needs the {module} package: {remedy} (or {off})")
    return problems


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def open_sinks(config: Config, run_dir: Path, start_step: int) -> list[MetricsSink]:
    sinks: list[MetricsSink] = []
    if config.run.tensorboard:
        sinks.append(TensorBoardSink(run_dir / "tensorboard", start_step))
    if config.run.wandb_project:
        sinks.append(WandbSink(config.run.wandb_project, run_dir, config))
    return sinks


def _scalars(record: dict[str, Any]) -> dict[str, float]:
    return {key: value for key, value in record.items()
            if key not in _NOT_PLOTTED and isinstance(value, (int, float)) and not isinstance(value, bool)}


class TensorBoardSink:
    def __init__(self, directory: Path, start_step: int) -> None:
        from torch.utils.tensorboard import SummaryWriter

        # purge_step: a resumed run's events replace those the previous attempt logged after its snapshot.
        self.writer = SummaryWriter(str(directory), purge_step=start_step or None)

    def write(self, record: dict[str, Any]) -> None:
        for key, value in _scalars(record).items():
            self.writer.add_scalar(key, value, record["step"])

    def close(self) -> None:
        self.writer.close()


class WandbSink:
    """An offline W&B run in <run.dir>/wandb; every attempt of the run (requeues, restarts) logs to the same
    run id, kept in <run.dir>/wandb-run-id. Upload from a node with internet: `wandb sync <run.dir>/wandb`."""

    def __init__(self, project: str, run_dir: Path, config: Config) -> None:
        import wandb

        from app.common.typedconfig import to_dict

        id_file = run_dir / "wandb-run-id"
        run_id = id_file.read_text().strip() if id_file.exists() else secrets.token_hex(4)
        id_file.write_text(run_id + "\n")
        os.environ.setdefault("WANDB_SILENT", "true")  # its banner would interleave with the progress lines
        self.run = wandb.init(project=project, dir=str(run_dir), mode="offline", id=run_id, resume="allow",
                              config=to_dict(config))

    def write(self, record: dict[str, Any]) -> None:
        self.run.log(_scalars(record), step=record["step"])

    def close(self) -> None:
        self.run.finish()
