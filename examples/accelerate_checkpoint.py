"""A Hugging Face Accelerate script under the job scripts: its state saved to RUN_DIR and resumed from there.

The image has no Accelerate: extend it first (docs/packages.md), then run with that image:

    apptainer exec app.sif python3 -m pip list --format=freeze > image-packages.txt
    python3 containers/gather-wheels.py --image-packages image-packages.txt --python-version 3.12 \
        --platform manylinux2014_x86_64 -d wheels/ accelerate
    make image-extend IMAGE=app.sif WHEELS=wheels/ OUT=app-accelerate.sif PACKAGES=accelerate
    sbatch -N 2 --gres=gpu:4 --export=ALL,IMAGE=$PWD/app-accelerate.sif jobscripts/slurm.sh \
        examples/accelerate_checkpoint.py --steps 1000

`Accelerator()` reads torchrun's variables (docs/your-script.md) and picks NCCL on GPUs; on a node without one it is
told `cpu=True`, without which Accelerate 1.15 runs each rank alone (accelerate/state.py _prepare_backend: a
torchrun world becomes MULTI_CPU over gloo only when `cpu` is set). The
checkpoint is Accelerate's own (`save_state`/`load_state`), each in a directory of its own under RUN_DIR/accelerate
(`step-N`, with its step count inside) that the file `latest` names once it is whole: `latest` is replaced by a
rename, so a kill during a save leaves the previous checkpoint to resume from. SIGTERM before the time limit saves it
and exits 75, so the job requeues and goes on (the same protocol as examples/ddp_checkpoint.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import torch
from accelerate import Accelerator

EXIT_STOPPED = 75
FEATURES = 16


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="train until this step (counted across resumes)")
    parser.add_argument("--save-every", type=int, default=20, help="steps between checkpoints")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    stop = {"requested": False}
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.update(requested=True))
    accelerator = Accelerator(cpu=not torch.cuda.is_available())
    state_dir = Path(os.environ.get("RUN_DIR", "run")) / "accelerate"
    latest = state_dir / "latest"

    torch.manual_seed(0)
    model = torch.nn.Linear(FEATURES, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    model, optimizer = accelerator.prepare(model, optimizer)
    step = 0
    if latest.exists():
        checkpoint = state_dir / latest.read_text().strip()
        accelerator.load_state(str(checkpoint))
        step = json.loads((checkpoint / "step.json").read_text())["step"]
        accelerator.print(f"resumed from step {step} ({checkpoint})")

    def save() -> None:
        """A new directory, whole, then `latest` renamed to name it: a kill mid-save leaves the last one intact."""
        checkpoint = state_dir / f"step-{step}"
        accelerator.save_state(str(checkpoint))  # every rank takes part; the main process writes
        if accelerator.is_main_process:
            (checkpoint / "step.json").write_text(json.dumps({"step": step}))
            (state_dir / "latest.tmp").write_text(checkpoint.name + "\n")
            os.replace(state_dir / "latest.tmp", latest)
            for older in state_dir.glob("step-*"):
                if older != checkpoint:
                    shutil.rmtree(older, ignore_errors=True)
        accelerator.wait_for_everyone()

    weights = torch.arange(1, FEATURES + 1, dtype=torch.float32) / FEATURES
    stopped = False
    while step < args.steps:
        # All ranks stop at the same step
        flag = accelerator.reduce(torch.tensor([float(stop["requested"])], device=accelerator.device), "sum")
        if flag.item() > 0:
            # This node's own SIGTERM may still be on its way (the nodes get it up to a second apart): ignored from
            # here, it cannot end the save below and turn exit 75 into 143
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            stopped = True
            break
        generator = torch.Generator().manual_seed(step * 1000 + accelerator.process_index)
        x = torch.randn(32, FEATURES, generator=generator).to(accelerator.device)
        loss = torch.nn.functional.mse_loss(model(x), (x @ weights.to(x.device)).unsqueeze(1))
        optimizer.zero_grad()
        accelerator.backward(loss)
        optimizer.step()
        step += 1
        if step % 10 == 0:
            accelerator.print(f"step {step} loss {loss.item():.6f}")
        if step % args.save_every == 0:
            save()
    save()
    if stopped:
        accelerator.print(f"stopped at step {step} by SIGTERM: state saved, exit {EXIT_STOPPED}")
    else:
        accelerator.print(f"done: {step} steps on {accelerator.num_processes} processes "
                          f"({accelerator.distributed_type})")
    accelerator.end_training()
    return EXIT_STOPPED if stopped else 0


if __name__ == "__main__":
    sys.exit(main())
