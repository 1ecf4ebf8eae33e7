"""A user's own workload, plugged in with `workload.name=tests.data.user_workload:build`.

Deliberately a plain per-sample dataset (a list of tuples), as users write them.
"""

import torch
import torch.nn.functional as F

from app.train.workloads import Workload


def build(config):
    generator = torch.Generator().manual_seed(config.run.seed)
    weights = torch.randn(8, 1, generator=generator)
    inputs = torch.randn(512, 8, generator=generator)
    samples = [(x, x @ weights) for x in inputs]
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    return Workload(model, samples, F.mse_loss)
