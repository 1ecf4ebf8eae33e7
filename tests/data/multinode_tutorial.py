"""A user's own torchrun script in the style of the PyTorch DDP tutorial series (test data, not project code).

    torchrun --nnodes=2 --nproc-per-node=2 ... multinode_tutorial.py TOTAL_EPOCHS SAVE_EVERY [--batch_size N]

Reads RANK/LOCAL_RANK/WORLD_SIZE as torchrun sets them, trains a linear regression with DDP (gloo on CPU,
NCCL on GPUs), saves `snapshot.pt` every SAVE_EVERY epochs and resumes from it: what the job scripts must
run unchanged. Rank 0 prints one line per epoch with the loss and the hosts of all ranks.
"""

import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

SNAPSHOT = "snapshot.pt"


def main(total_epochs: int, save_every: int, batch_size: int) -> None:
    use_cuda = torch.cuda.is_available()
    dist.init_process_group("nccl" if use_cuda else "gloo")
    rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    torch.manual_seed(0)
    inputs = torch.randn(2048, 20)
    targets = inputs @ torch.linspace(-1, 1, 20).unsqueeze(1)
    dataset = TensorDataset(inputs, targets)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    model = torch.nn.Linear(20, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    first_epoch = 0
    if os.path.exists(SNAPSHOT):
        snapshot = torch.load(SNAPSHOT, map_location=device)
        model.load_state_dict(snapshot["model"])
        first_epoch = snapshot["epochs_run"]
    ddp_model = DDP(model, device_ids=[local_rank] if use_cuda else None)
    hosts = [None] * dist.get_world_size()
    dist.all_gather_object(hosts, socket.gethostname())
    for epoch in range(first_epoch, total_epochs):
        sampler.set_epoch(epoch)
        for batch, target in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(ddp_model(batch.to(device)), target.to(device))
            loss.backward()
            optimizer.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f} hosts {','.join(sorted(set(hosts)))}", flush=True)
            if (epoch + 1) % save_every == 0:
                torch.save({"model": model.state_dict(), "epochs_run": epoch + 1}, SNAPSHOT)
    dist.barrier()
    del ddp_model
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="DDP tutorial-style training job")
    parser.add_argument("total_epochs", type=int)
    parser.add_argument("save_every", type=int)
    parser.add_argument("--batch_size", type=int, default=32)
    args = parser.parse_args()
    main(args.total_epochs, args.save_every, args.batch_size)
