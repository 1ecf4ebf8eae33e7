"""How the model is spread over the ranks: `dist.strategy` ddp (a full copy per rank) or fsdp (FSDP2).

DDP keeps parameters, gradients and optimizer state whole on every rank: about 16 bytes per parameter
with AdamW before activations. FSDP2 (`torch.distributed.fsdp.fully_shard`, what torchtitan builds on)
keeps 1/N of each on each of N ranks and gathers a unit's parameters just before it runs:
- units: each transformer block of the GPT workload, then the root (embeddings, final norm, head); a
  user's workload names its own (`Workload.shard_units`), else the root alone is one unit;
- `dist.reshard_after_forward`: true frees a unit's gathered parameters after its forward and gathers
  them again for backward (ZeRO-3: least memory); false keeps them to backward (ZeRO-2-like: less
  communication, more memory);
- on GPU with bf16, parameters are gathered and computed in bf16 and gradients reduced in fp32
  (`MixedPrecisionPolicy`), the master copy staying fp32;
- gradient accumulation reduce-scatters gradients once per optimizer step, not per micro-batch
  (`set_requires_gradient_sync(False)` before the others, as DDP's `no_sync`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator

import torch
import torch.utils.checkpoint
from torch import nn
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from app.common.errors import UsageError

#: The workload's blocks (Workload.shard_units): what fsdp shards, checkpointing recomputes and
#: train.compile_scope=blocks compiles, one by one.
ShardUnits = Callable[[nn.Module], list[nn.Module]]


def shard(model: nn.Module, units: ShardUnits | None, *, reshard_after_forward: bool,
          precision: str, device: torch.device) -> nn.Module:
    """fully_shard each unit, then the root, in place; the optimizer must be built after this."""
    if not any(p.requires_grad for p in model.parameters()):
        raise UsageError("dist.strategy=fsdp: the workload's model has no trainable parameters to shard; "
                         "use dist.strategy=ddp")
    policy = MixedPrecisionPolicy()
    if device.type == "cuda" and precision == "bf16":
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for unit in units(model) if units is not None else []:
        fully_shard(unit, reshard_after_forward=reshard_after_forward, mp_policy=policy)
    # The root's parameters (embeddings, head) are needed again first thing in backward: keep them.
    fully_shard(model, reshard_after_forward=False, mp_policy=policy)
    return model


def checkpoint_activations(model: nn.Module, units: ShardUnits | None) -> None:
    """train.activation_checkpointing: each unit keeps only its input and runs its forward again in backward.

    The unit's `forward` is replaced on the instance (not wrapped in another module, as torch's
    checkpoint_wrapper does), so parameter names and snapshots stay those of the plain model. Dropout
    draws the same numbers again in the recompute (torch.utils.checkpoint restores the RNG state)."""
    if units is None:
        raise UsageError("train.activation_checkpointing=true: the workload names no blocks to checkpoint "
                         "(Workload.shard_units); set train.activation_checkpointing=false")
    for unit in units(model):
        unit.forward = functools.partial(_recomputed, unit.forward)


def _recomputed(forward: Callable[..., torch.Tensor], *args: object, **kwargs: object) -> torch.Tensor:
    return torch.utils.checkpoint.checkpoint(forward, *args, use_reentrant=False, **kwargs)


def compile_blocks(model: nn.Module, units: ShardUnits | None) -> None:
    """train.compile_scope=blocks: each unit compiled in place (`nn.Module.compile`: parameter names and
    snapshots stay the plain model's), after fsdp's fully_shard and activation checkpointing, as torchtitan
    orders them. Identical blocks share one compiled graph (dynamo treats their parameters as inputs); the
    DDP reducer's and FSDP's hooks run between blocks, so no graph is split at gradient buckets."""
    if units is None:
        raise UsageError("train.compile_scope=blocks: the workload names no blocks to compile "
                         "(Workload.shard_units); set train.compile_scope=model")
    for unit in units(model):
        unit.compile()


def gradient_sync(model: nn.Module, sync: bool) -> contextlib.AbstractContextManager[None]:
    """Around a micro-batch's forward and backward: reduce gradients only when `sync` (the last one)."""
    if sync:
        return contextlib.nullcontext()
    if isinstance(model, DistributedDataParallel):
        return model.no_sync()
    if isinstance(model, FSDPModule):
        return _fsdp_no_sync(model)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _fsdp_no_sync(model: FSDPModule) -> Iterator[None]:
    model.set_requires_gradient_sync(False)
    try:
        yield
    finally:
        model.set_requires_gradient_sync(True)


def measure_and_clip(model: nn.Module, max_norm: float) -> torch.Tensor:
    """The norm of the whole gradient (every shard's part under fsdp: a collective there), clipped to
    `max_norm` when that is positive."""
    params = [p for p in model.parameters() if p.grad is not None]
    if max_norm > 0:
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
    else:
        norm = torch.nn.utils.get_total_norm([p.grad for p in params])
    # Sharded gradients give a DTensor whose value is pending a reduction over the shards: complete it.
    return (norm.full_tensor() if isinstance(norm, DTensor) else norm).detach()


def local_bytes(tensors: Iterator[torch.Tensor]) -> int:
    """Bytes this rank holds of these tensors (a DTensor's local shard, else the whole tensor)."""
    total = 0
    for tensor in tensors:
        local = tensor.to_local() if hasattr(tensor, "to_local") else tensor
        total += local.numel() * local.element_size()
    return total


def optimizer_tensors(optimizer: torch.optim.Optimizer) -> Iterator[torch.Tensor]:
    for state in optimizer.state.values():
        yield from (value for value in state.values() if isinstance(value, torch.Tensor) and value.dim() > 0)
