"""The DDP tutorial's workload, for parity: `Linear(20, 1)` on 2048 random samples."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from app.train.config import Config
from app.train.workloads import VALIDATION_SEED_OFFSET, Workload
from app.train.workloads.host_memory import require_fits

FEATURES = 20


class RandomRegression:
    """`samples` random (x, y) pairs held as two tensors; batches are gathered, not collated."""

    def __init__(self, samples: int, seed: int) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.inputs = torch.rand(samples, FEATURES, generator=generator, device="cpu")
        self.targets = torch.rand(samples, 1, generator=generator, device="cpu")

    def __len__(self) -> int:
        return len(self.inputs)

    def get_batch(self, indices: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.inputs[indices], self.targets[indices]


def build_regression(config: Config) -> Workload:
    model = torch.nn.Linear(FEATURES, 1)
    # float32 inputs and target, for the samples and the held-out eighth
    require_fits("data.samples", config.data.samples, (FEATURES + 1) * 4 * 9 // 8 + 1, "2048")
    held_out = RandomRegression(max(1, config.data.samples // 8), config.run.seed + VALIDATION_SEED_OFFSET)
    return Workload(model, RandomRegression(config.data.samples, config.run.seed), F.mse_loss, val_dataset=held_out)
