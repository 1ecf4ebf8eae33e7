"""A script of your own under the job scripts: plain DDP that saves to RUN_DIR and resumes from it.

    sbatch -N 2 --gres=gpu:4 jobscripts/slurm.sh examples/ddp_checkpoint.py --steps 1000
    sbatch -N 2 --gres=gpu:4 --export=ALL,RUN_DIR=$PWD/runs/123456 jobscripts/slurm.sh \
        examples/ddp_checkpoint.py --steps 2000                     # go on from job 123456's checkpoint
    python -m app.launch local --nproc-per-node=2 -- examples/ddp_checkpoint.py --steps 50   # anywhere, RUN_DIR=./run

What it relies on (docs/your-script.md): torchrun's RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (under
LAUNCH=srun the job scripts set the same names); the job's secret, DDP_STORE_SECRET, with which
app.common.signed_store's init_process_group seals every value of the process group's store (the image installs app;
elsewhere `pip install -e` this checkout, or without the job scripts torch's own call does); RUN_DIR, the job's run
directory, which a requeued job keeps; SIGTERM some seconds before the job ends (SHUTDOWN_TIMEOUT_S of grace): the
ranks agree to stop, rank 0 saves, and the script exits 75 (non-zero), which makes the job requeue itself and resume
here.
The model is a toy (a linear regression on fixed random data); the shape of the loop is the point.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import signal
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

try:  # the image installs app (docs/your-script.md); so does `pip install -e` of this checkout
    from app.common.signed_store import init_process_group
except ImportError:
    if os.environ.get("DDP_STORE_SECRET"):  # under the job scripts: never meet through a store others can write
        raise
    init_process_group = dist.init_process_group  # no job, no secret: the helper would make torch's own call too

#: The exit code after a stop that saved: non-zero, so the job scripts requeue the job (0 would end it)
EXIT_STOPPED = 75
FEATURES = 16


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="train until this step (counted across resumes)")
    parser.add_argument("--save-every", type=int, default=20, help="steps between checkpoints")
    parser.add_argument("--batch-size", type=int, default=32, help="samples per rank and step")
    parser.add_argument("--step-delay", type=float, default=0.0, help="seconds of sleep per step (a slower job)")
    parser.add_argument("--exit-code-on-stop", type=int, default=EXIT_STOPPED,
                        help="exit code after a SIGTERM that saved (0 ends the job instead of requeueing it)")
    return parser.parse_args()


class StopRequest:
    """Set by SIGTERM (the job scripts' stop before the time limit or a preemption); read once a step."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True


def save_checkpoint(path: Path, step: int, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Rank 0 writes; a temporary file and a rename, so a kill mid-write leaves the previous checkpoint whole."""
    tmp = path.with_suffix(".tmp")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp)
    os.replace(tmp, path)


def params_sha256(model: torch.nn.Module) -> str:
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def batch(step: int, rank: int, size: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The same samples for the same (step, rank) in every attempt, so a resumed run repeats nothing."""
    generator = torch.Generator().manual_seed(step * 1000 + rank)
    x = torch.randn(size, FEATURES, generator=generator)
    weights = torch.arange(1, FEATURES + 1, dtype=torch.float32) / FEATURES
    return x.to(device), (x @ weights).unsqueeze(1).to(device)


def main() -> int:
    args = parse_args()
    rank, local_rank, world_size = (int(os.environ[k]) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE"))
    gpu = torch.cuda.is_available()
    device = torch.device("cuda", local_rank) if gpu else torch.device("cpu")
    if gpu:
        torch.cuda.set_device(device)
    init_process_group("nccl" if gpu else "gloo")  # sealed: another user on the port cannot join or hijack it
    stop = StopRequest()
    run_dir = Path(os.environ.get("RUN_DIR", "run"))
    checkpoint = run_dir / "checkpoint.pt"
    if rank == 0:
        run_dir.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(0)
    model = torch.nn.Linear(FEATURES, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    step = 0
    if checkpoint.exists():
        # weights_only: no pickled code from a file, even one in your own run directory
        state = torch.load(checkpoint, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
        if rank == 0:
            print(f"resumed from step {step} ({checkpoint})", flush=True)
    # One bucket a parameter, so that a run resumed at any step ends with the bits of one never stopped: DDP lays its
    # gradient buckets out anew after its first step, in the order the gradients came (torch's reducer,
    # rebuild_buckets), and the all-reduce sums each element's parts across 3 or more ranks in an order set by its
    # place in the bucket, so the first step after a resume rounded differently. A real model keeps DDP's default
    # buckets (fewer, larger all-reduces) and resumes to the same curve, equal to within float rounding.
    ddp = DistributedDataParallel(model, device_ids=[local_rank] if gpu else None, bucket_cap_mb=1e-6)

    stopped = False
    while step < args.steps:
        # All ranks stop at the same step: the signal reaches the nodes a second or so apart
        flag = torch.tensor([1.0 if stop.requested else 0.0], device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if flag.item() > 0:
            stopped = True
            # This node's own SIGTERM may still be on its way (the nodes get it up to a second apart), and one that
            # arrives while Python exits kills the process (Python restores the default action then): ignored
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            break
        x, y = batch(step, rank, args.batch_size, device)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.6f}", flush=True)
        if step % args.save_every == 0 and rank == 0:
            save_checkpoint(checkpoint, step, model, optimizer)
        time.sleep(args.step_delay)

    if rank == 0:
        save_checkpoint(checkpoint, step, model, optimizer)
        if stopped:
            print(f"stopped at step {step} by SIGTERM: checkpoint saved, exit {args.exit_code_on_stop}", flush=True)
        else:
            print(f"done: {step} steps on {world_size} ranks, params {params_sha256(model)}", flush=True)
    dist.barrier()  # no rank leaves before the checkpoint is whole
    # DDP holds the process group: let it go first, or a rank may abort at exit
    del ddp
    gc.collect()
    dist.destroy_process_group()
    return args.exit_code_on_stop if stopped else 0


if __name__ == "__main__":
    sys.exit(main())
