"""A DeepSpeed user's training script, as users of MareNostrum 5's guide (seed 000) bring it: ZeRO stage 2 from
their ds_config.json, started by torchrun on every node. The tests run it unchanged; nothing in it knows about
this project, the job scripts or the CPU.

    torchrun --nproc-per-node=4 deepspeed_zero2.py --deepspeed_config ds_config.json
    sbatch -N 2 --gres=gpu:4 jobscripts/mn5.sh deepspeed_zero2.py --deepspeed_config ds_config.json

What it relies on, from DeepSpeed's source (v0.19.8):
- `deepspeed.init_distributed()` takes RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT from the
  environment, which torchrun sets for every worker (deepspeed/comm/comm.py, init_distributed: `required_env`;
  only when one is missing does it try MPI discovery). Its backend is the accelerator's: NCCL on CUDA, and on
  the CPU accelerator oneCCL if `oneccl_bindings_for_pytorch` imports, else gloo
  (accelerator/cpu_accelerator.py, CPU_Accelerator.__init__).
- `"auto"` in ds_config.json is not DeepSpeed's: its config reader takes the values as they are
  (runtime/config_utils.py get_scalar_param) and then fails on the string in
  `_set_batch_related_parameters` (runtime/config.py: "TypeError: unsupported operand type(s) for //: 'str'
  and 'int'"). Hugging Face's Trainer fills "auto" in before it hands the config over; a script that calls
  deepspeed.initialize itself must do the same, as `fill_auto` does (the same rule: train_batch_size =
  micro batch x accumulation steps x world size).
- The optimizer is torch's AdamW, passed to deepspeed.initialize: ZeRO accepts it without
  `zero_allow_untested_optimizer` (runtime/zero/utils.py, ZERO_SUPPORTED_OPTIMIZERS) and it needs no
  compiled op, where DeepSpeed's FusedAdam (its choice for `"optimizer": {"type": "Adam"}` on a GPU) and
  CPUAdam are C++/CUDA ops built ahead or at first use (runtime/engine.py, get_optimizer_configuration).
- The batch is cast to the engine's dtype (fp16 or bf16, whichever the config enables), as DeepSpeed's own
  examples do (DeepSpeedExamples training/cifar/cifar10_deepspeed.py), so one script serves both configs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket

import deepspeed
import torch
from torch import nn

#: Inputs, hidden units of the small model, and the examples each rank draws per step
FEATURES, HIDDEN = 16, 64


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="optimizer steps")
    parser.add_argument("--micro-batch", type=int, default=16, help="examples per rank per forward pass")
    parser.add_argument("--grad-accum", type=int, default=1, help="micro batches per optimizer step")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--save-dir", default=os.environ.get("RUN_DIR"),
                        help="where engine.save_checkpoint writes at the end (default: $RUN_DIR; none: no save)")
    deepspeed.add_config_arguments(parser)  # --deepspeed, --deepspeed_config
    return parser.parse_args()


def fill_auto(config: dict, micro_batch: int, grad_accum: int, world_size: int) -> dict:
    """The config with its "auto" batch values filled in, the way Hugging Face's Trainer fills them."""
    filled = dict(config)
    if filled.get("train_micro_batch_size_per_gpu", "auto") == "auto":
        filled["train_micro_batch_size_per_gpu"] = micro_batch
    if filled.get("gradient_accumulation_steps", "auto") == "auto":
        filled["gradient_accumulation_steps"] = grad_accum
    if filled.get("train_batch_size", "auto") == "auto":
        filled["train_batch_size"] = micro_batch * grad_accum * world_size
    return filled


def main() -> None:
    args = parse_args()
    if not args.deepspeed_config:
        raise SystemExit("usage: torchrun ... deepspeed_zero2.py --deepspeed_config ds_config.json")
    deepspeed.init_distributed()
    rank, world_size = torch.distributed.get_rank(), torch.distributed.get_world_size()
    with open(args.deepspeed_config) as file:
        config = fill_auto(json.load(file), args.micro_batch, args.grad_accum, world_size)

    torch.manual_seed(0)  # the same initial weights on every rank
    model = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, 1))
    teacher = torch.randn(FEATURES, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=config)
    dtype = torch.float16 if engine.fp16_enabled() else torch.bfloat16 if engine.bfloat16_enabled() else torch.float32

    # ZeRO-2 keeps 1/world_size of the fp32 master weights (and the optimizer state) on each rank
    held = sum(p.numel() for p in getattr(engine.optimizer, "single_partition_of_fp32_groups", []))
    total = sum(p.numel() for p in model.parameters())
    print(f"rank {rank}/{world_size} on {socket.gethostname()}: zero stage {engine.zero_optimization_stage()}, "
          f"dtype {str(dtype).removeprefix('torch.')}, holds {held} of {total} master weights", flush=True)

    data = torch.Generator().manual_seed(1000 + rank)  # each rank its own examples
    for step in range(1, args.steps + 1):
        for _ in range(engine.gradient_accumulation_steps()):
            inputs = torch.randn(args.micro_batch, FEATURES, generator=data)
            targets = inputs @ teacher
            outputs = engine(inputs.to(engine.device, dtype))
            loss = nn.functional.mse_loss(outputs.float(), targets.to(engine.device))
            engine.backward(loss)
            engine.step()
        print(f"rank {rank} step {step} loss {loss.item():.5f}", flush=True)

    if args.save_dir:
        engine.save_checkpoint(args.save_dir, tag="final")
    if rank == 0:
        print(f"done: {args.steps} steps on {world_size} ranks", flush=True)
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
