"""A snapshot read on rank 0 and handed to every other rank over the process group, so a restart reads the
run directory once instead of once per rank: at 4096 ranks a 1.5 GB snapshot read by every rank is 6 TB
from GPFS or Lustre at once, where one broadcast over the fabric moves it in about a second.

What is not a tensor (config, position, schedule: small) goes as one JSON message, types kept (wire.py: nothing
that arrives is unpickled); every tensor then goes by `dist.broadcast` on the group's device in rank 0's order,
so each rank holds its copy once. Tensors arrive on this rank's `map_location`, as if it had loaded the file
itself.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from app.common.distributed import group_device
from app.host.common.errors import UsageError
from app.train.snapshot.layout import MAX_EXTRAS_BYTES, Snapshot
from app.train.snapshot.wire import NotSent, from_rank_zero

log = logging.getLogger(__name__)
#: The most a snapshot's values besides its tensors may take as JSON: a sharded snapshot's are its extras.json,
#: so its cap, with as much again for the tags (a single-file snapshot's are kilobytes).
MAX_HEADER_BYTES = 2 * MAX_EXTRAS_BYTES


@dataclass(frozen=True)
class _Slot:
    """Where a tensor stood in the snapshot: what the receiving rank allocates before the broadcast."""

    index: int
    dtype: torch.dtype
    shape: tuple[int, ...]
    on_device: bool  # rank 0 loaded it onto its device (map_location), not into host memory


def _take_tensors(tree: Any, tensors: list[torch.Tensor]) -> Any:
    """`tree` with each tensor replaced by a `_Slot`, the tensors appended to `tensors` in walk order."""
    if isinstance(tree, torch.Tensor):
        tensors.append(tree)
        return _Slot(len(tensors) - 1, tree.dtype, tuple(tree.shape), tree.device.type != "cpu")
    return _rebuilt(tree, lambda value: _take_tensors(value, tensors))


def _put_tensors(tree: Any, tensors: list[torch.Tensor]) -> Any:
    if isinstance(tree, _Slot):
        return tensors[tree.index]
    return _rebuilt(tree, lambda value: _put_tensors(value, tensors))


def _rebuilt(tree: Any, each: Callable[[Any], Any]) -> Any:
    """`tree` with `each` applied to every item of the dicts, lists and tuples in it, their types kept: an
    OrderedDict keeps the `_metadata` torch's state dicts carry (their modules' versions, torch/nn/modules/module.py
    `state_dict`, which `load_state_dict` reads). Any other container is left to `wire` to carry or refuse."""
    kind = type(tree)
    if kind in (dict, OrderedDict):
        rebuilt = kind((key, each(value)) for key, value in tree.items())
        if hasattr(tree, "_metadata"):
            rebuilt._metadata = tree._metadata
        return rebuilt
    if kind in (list, tuple):
        return kind(each(value) for value in tree)
    return tree


def _slots(tree: Any) -> list[_Slot]:
    if isinstance(tree, _Slot):
        return [tree]
    values = tree.values() if isinstance(tree, dict) else tree if isinstance(tree, (list, tuple)) else ()
    return [slot for value in values for slot in _slots(value)]


def share(snapshot: Snapshot | None, map_location: torch.device | str) -> Snapshot | None:
    """Rank 0's `snapshot` (or its None) on every rank; collective, the other ranks pass None. Ranks of a
    world of one, or without a process group, get theirs back."""
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return snapshot
    started, rank, wire = time.perf_counter(), dist.get_rank(), group_device()
    tensors: list[torch.Tensor] = []
    header = None
    if rank == 0 and snapshot is not None:
        header = {"path": snapshot.path, "contents": _take_tensors(snapshot.contents, tensors)}
    try:
        header = from_rank_zero(header, what=f"snapshot {snapshot.path}" if snapshot else "no snapshot",
                                limit=MAX_HEADER_BYTES, kinds=[_Slot])
    except NotSent as err:
        raise UsageError(f"{err}; move that snapshot aside to resume from the one before, or start fresh with "
                         f"another snapshot.dir") from None
    if header is None:
        return None
    path, skeleton = header["path"], header["contents"]
    slots = _slots(skeleton)
    if rank != 0:
        here = torch.device(map_location)
        tensors = [torch.empty(slot.shape, dtype=slot.dtype, device=here if slot.on_device else "cpu")
                   for slot in slots]
    for tensor in tensors:
        moving = tensor.to(wire).contiguous()  # itself where it already is both
        dist.broadcast(moving, src=0)
        if rank != 0 and moving is not tensor:
            tensor.copy_(moving)
    if rank == 0:
        nbytes = sum(t.numel() * t.element_size() for t in tensors)
        log.info("snapshot %s read by rank 0 only, sent to %d ranks over the process group (%.0f MB, %.2fs)",
                 Path(path).name, dist.get_world_size() - 1, nbytes / 1e6, time.perf_counter() - started)
    return Snapshot(path, _put_tensors(skeleton, tensors))
