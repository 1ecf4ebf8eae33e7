"""`python -m app.train.export SNAPSHOT OUT.pt` (or `app-export`): the model of a snapshot as one plain state dict.

For inference or fine-tuning elsewhere: OUT.pt holds `{parameter name: tensor}`, full (unsharded) and on
CPU, loadable with `torch.load(OUT.pt, weights_only=True)` into the unwrapped model (`GPT(shape)` for the
built-in workload). SNAPSHOT is a sharded snapshot directory (`snapshots/step-00000100/`, dist.strategy=fsdp;
needs no process group and any number of ranks may have written it) or a single-file one (`step-00000100.pt`).
Exit codes: 0 written, 2 not a snapshot or OUT not a path you can write, 9 OUT's file system is full, over
quota or failing (one line says which).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn

import torch
from torch.distributed.checkpoint.default_planner import _EmptyStateDictLoadPlanner
from torch.distributed.checkpoint.state_dict_loader import _load_state_dict

from app.common.atomic import write_atomic
from app.host.common.errors import UsageError, exits_cleanly
from app.train.snapshot import dcp_metadata, layout
from app.train.snapshot.write_failures import FILE_SYSTEM_FAILED, os_error_in, storage_error


class _ModelOnlyPlanner(layout.WeightsOnlyLoadPlanner, _EmptyStateDictLoadPlanner):
    """Rebuild the `model` entries from the snapshot's metadata (no model needed), reading weights only."""


def load_model_state(snapshot: Path) -> dict[str, torch.Tensor]:
    """The full model state dict of a snapshot, sharded or not (`UsageError` when it is neither or damaged)."""
    newest = layout.listing(snapshot / "snapshots") or layout.listing(snapshot)
    if newest:  # a run directory or its snapshots/, given for one of the snapshots in it
        raise UsageError(f"{snapshot} is not a snapshot but holds snapshots; give one of them, e.g. the newest: "
                         f"python -m app.train.export {newest[0]} model.pt")
    problem = layout.verify(snapshot)
    if problem is None and snapshot.is_dir():
        try:
            dcp_metadata.read(snapshot / layout.METADATA)
        except (dcp_metadata.UnsafeMetadata, OSError) as err:
            problem = f"its {layout.METADATA} is refused: {err}"
    if problem is not None:
        raise UsageError(f"{snapshot} is not a usable snapshot: {problem}; "
                         "example: python -m app.train.export runs/demo/snapshots/step-00000100 model.pt")
    if snapshot.is_dir():
        state: dict[str, Any] = {}
        warnings.filterwarnings("ignore", message="torch.distributed is disabled")  # no process group: intended
        # What torch's own dcp_to_torch_save does: dcp.load would fill a copy of an empty dict, not `state`
        _load_state_dict(state, storage_reader=layout.SafeMetadataReader(snapshot),
                         planner=_ModelOnlyPlanner(keys={"model"}), no_dist=True)
        return state["model"]
    return torch.load(snapshot, map_location="cpu", weights_only=True)["model"]


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.train.export", description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="snapshots/step-NNNNNNNN (sharded) or step-NNNNNNNN.pt")
    parser.add_argument("out", type=Path, help="the file to write, e.g. model.pt")
    args = parser.parse_args(argv)
    state = load_model_state(args.snapshot)
    state = {name: tensor.detach().cpu().contiguous() for name, tensor in state.items()}
    try:
        write_atomic(args.out, lambda file: torch.save(state, file))
    except Exception as err:  # torch.save raises a write cut short as a RuntimeError, the OSError its context
        cause = os_error_in(err)
        if cause is None:
            raise
        if cause.errno in FILE_SYSTEM_FAILED:
            raise storage_error(str(args.out), args.out.parent, cause, again="then export again",
                                elsewhere="write it to another file system (e.g. $SCRATCH/model.pt)") from None
        raise UsageError(f"{args.out} could not be written ({cause.strerror}); give a path you can write, "
                         f"e.g. $SCRATCH/model.pt") from None
    size = sum(t.numel() * t.element_size() for t in state.values())
    print(f"wrote {args.out}: {len(state)} tensors, {size / 2**20:.1f} MiB, from {args.snapshot}")
    return 0


def command() -> NoReturn:
    """`python -m app.train.export` and the `app-export` script."""
    sys.exit(main())
