"""`python -m tests.train.counted_gathers ARGS...` under torchrun: `python -m app.train ARGS...` with every
parameter all-gather of each optimizer step counted; each rank writes its counts, one number per step, to
RUN_DIR/gathers-rank<R>.json.

FSDP2 in torch 2.13 gathers a unit's parameters with `torch.distributed.all_gather_single`, looked up on the
module at each call (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, DefaultAllGather), so
wrapping the module's function sees each one. Only gathers inside an optimizer step count: the summary's
gathered checksum and the snapshots are not the step's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch.distributed as dist

from app.train import optimizer_step

per_step: list[int] = []
in_step = False
_all_gather_single = dist.all_gather_single
_step = optimizer_step.OptimizerStep.__call__


def _counted_gather(*args, **kwargs):
    if in_step:
        per_step[-1] += 1
    return _all_gather_single(*args, **kwargs)


def _counted_step(self, *args, **kwargs):
    global in_step
    per_step.append(0)
    in_step = True
    try:
        return _step(self, *args, **kwargs)
    finally:
        in_step = False


def main() -> None:
    run_dir = next(arg.split("=", 1)[1] for arg in sys.argv[1:] if arg.startswith("run.dir="))
    dist.all_gather_single = _counted_gather
    optimizer_step.OptimizerStep.__call__ = _counted_step
    from app.common.distributed import end_process
    from app.train.cli import main as train

    code = train()  # as app.train's command does, with the counts written before the process ends
    (Path(run_dir) / f"gathers-rank{os.environ['RANK']}.json").write_text(json.dumps(per_step))
    end_process(code)


if __name__ == "__main__":
    main()
