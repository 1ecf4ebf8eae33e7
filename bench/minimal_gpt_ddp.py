"""Reference baseline: the shortest correct hand-written DDP loop on the GPT workload.

    torchrun --standalone --nproc-per-node=2 -m bench.minimal_gpt_ddp STEPS [--batch_size 16]

Same model class, token stream and optimizer settings as `python -m app.train --config demo`; no
snapshots, metrics, signal handling or exact-resume data plan. Rank 0 prints its training-loop
throughput as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from app.train.workloads.gpt import GPT, PRESETS
from app.train.workloads.tokens import TokenWindows, synthetic_token_stream


def main(steps: int, batch_size: int, tokens: int, size: str) -> None:
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)
    shape = PRESETS[size]
    data = TokenWindows(synthetic_token_stream(tokens, shape.vocab_size, 1234), shape.block_size)
    model = DDP(GPT(shape))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)
    order = torch.randperm(len(data), generator=torch.Generator().manual_seed(0))
    per_step = batch_size * world
    started = time.perf_counter()
    for step in range(steps):
        start = (step * per_step) % (len(data) - per_step)
        inputs, targets = data.get_batch(order[start + rank * batch_size : start + (rank + 1) * batch_size])
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    elapsed = time.perf_counter() - started
    if rank == 0:
        print(json.dumps({"samples_per_s": steps * per_step / elapsed, "elapsed_s": elapsed}), flush=True)
    del model
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("steps", type=int)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=400_000)
    parser.add_argument("--size", default="tiny")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(args.steps, args.batch_size, args.tokens, args.size)
