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
  (`set_requires_gradient_sync(False)` before the others, as DDP's `no_sync`), and by default gathers each
  unit once per step, not in every micro-batch (`dist.gather_once_per_step`, `Gathering.step`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
import torch.utils.checkpoint
from torch import nn
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel

from app.host.common.errors import UsageError

#: The workload's blocks (Workload.shard_units): what fsdp shards, checkpointing recomputes and
#: train.compile_scope=blocks compiles, one by one.
ShardUnits = Callable[[nn.Module], list[nn.Module]]


@dataclass(frozen=True)
class Gathering:
    """When fsdp gathers a unit's parameters: `dist.reshard_after_forward` and `dist.gather_once_per_step`."""

    reshard_after_forward: bool = True
    """Each unit's own setting (the root keeps its parameters from forward to backward whatever this is)."""
    once_per_step: bool = True
    """With several micro-batches a step: gather each unit in the first and keep it to the last's backward."""

    @classmethod
    def of(cls, reshard_after_forward: bool | None, gather_once_per_step: bool | None) -> Gathering:
        """From `dist.*` (unset: true, both)."""
        return cls(reshard_after_forward is not False, gather_once_per_step is not False)

    @contextlib.contextmanager
    def step(self, model: nn.Module, micro_batches: int) -> Iterator[None]:
        """Around one optimizer step's micro-batches (`gradient_sync` around each): under fsdp with
        `once_per_step` and more than one micro-batch, each unit is gathered in the first micro-batch's forward
        and kept, through every forward and backward, until the last micro-batch's backward frees it.

        Gathered again per micro-batch, a unit costs a gather before each forward and, when it reshards after
        forward, another before each backward: with 4 micro-batches and 12 blocks, 100 gathers a step become 13
        (tests/train/test_fsdp.py counts them); at world size 1 each is a copy (and a cast to bf16) of the unit
        on the host's critical path. The memory it costs: every unit's gathered parameters at once for the
        whole step, in the compute dtype (2 bytes a parameter with bf16 on GPU, 4 in fp32), on every rank: gpt2
        (124M) +0.25 GB, gpt2-xl (1.5B) +3.1 GB, against units that reshard after forward; against units that
        do not, the peak barely moves (each forward ends with every unit gathered already). The unsharded
        gradients that accumulation without a reduction in between keeps (`set_requires_gradient_sync(False)`,
        fp32: 4 bytes a parameter) are held either way.

        torch 2.13's semantics (torch/distributed/fsdp/_fully_shard/_fully_shard.py, `set_reshard_after_backward`:
        "used during gradient accumulation to trade off higher memory for reduced communication";
        _fsdp_param_group.py): `post_backward` frees a unit only if `reshard_after_backward`, and `pre_forward`'s
        unshard is a no-op on a unit already gathered, but `post_forward` frees it again whenever the unit
        reshards after forward. So both are turned off for the step (the root's forward setting is false
        already), and `gradient_sync` turns resharding after backward back on for the last micro-batch; the
        units' own setting is restored after it, so evaluation and a step of one micro-batch are as configured.
        """
        if not (self.once_per_step and micro_batches > 1 and isinstance(model, FSDPModule)):
            yield
            return
        model.set_reshard_after_forward(False)  # recurses: every unit and the root
        model.set_reshard_after_backward(False)
        try:
            yield
        finally:
            model.set_reshard_after_backward(True)
            model.set_reshard_after_forward(self.reshard_after_forward)
            model.set_reshard_after_forward(False, recurse=False)  # the root's own, as shard() set it


def shard(model: nn.Module, units: ShardUnits | None, *, gathering: Gathering,
          precision: str, device: torch.device) -> nn.Module:
    """fully_shard each unit, then the root, in place; the optimizer must be built after this."""
    if not any(p.requires_grad for p in model.parameters()):
        raise UsageError("dist.strategy=fsdp: the workload's model has no trainable parameters to shard; "
                         "use dist.strategy=ddp")
    policy = MixedPrecisionPolicy()
    if device.type == "cuda" and precision == "bf16":
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for unit in units(model) if units is not None else []:
        fully_shard(unit, reshard_after_forward=gathering.reshard_after_forward, mp_policy=policy)
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
    """Around a micro-batch's forward and backward: reduce gradients only when `sync` (the last one). Under
    fsdp the last one's backward also frees each unit's gathered parameters (which `Gathering.step` kept)."""
    if sync:
        if isinstance(model, FSDPModule):
            model.set_reshard_after_backward(True)
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
