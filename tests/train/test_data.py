"""The data plan: every sample exactly once per epoch across ranks, and resumable at any offset."""

from __future__ import annotations

import itertools

import pytest
import torch

from app.train.data import EpochPlan, make_loader
from app.train.workloads.regression import RandomRegression


def seen_by_all_ranks(plan: EpochPlan) -> list[int]:
    return [int(i) for rank in range(plan.world_size) for batch in plan.micro_batches(rank) for i in batch]


@pytest.mark.parametrize(
    ("num_samples", "world_size", "batch_size", "grad_accum"),
    [(2048, 2, 32, 1), (2048, 4, 32, 2), (1000, 3, 7, 2), (101, 2, 16, 1), (64, 8, 8, 1), (10, 2, 16, 1)],
)
def test_every_sample_is_used_exactly_once_per_epoch_across_ranks(num_samples, world_size, batch_size, grad_accum):
    plan = EpochPlan(num_samples, seed=7, epoch=3, world_size=world_size, batch_size=batch_size, grad_accum=grad_accum)
    assert sorted(seen_by_all_ranks(plan)) == list(range(num_samples))


def test_every_rank_gets_the_same_number_of_micro_batches_and_none_is_empty():
    plan = EpochPlan(1000, seed=0, epoch=0, world_size=3, batch_size=7, grad_accum=2)
    per_rank = [list(plan.micro_batches(rank)) for rank in range(3)]
    assert len({len(batches) for batches in per_rank}) == 1
    assert all(len(batch) > 0 for batches in per_rank for batch in batches)


def test_each_epoch_is_a_different_order_and_the_same_seed_repeats_it():
    orders = [EpochPlan(512, 1, epoch, 2, 8, 1).permutation() for epoch in (0, 1, 0)]
    assert not torch.equal(orders[0], orders[1])
    assert torch.equal(orders[0], orders[2])


def test_a_plan_resumed_at_a_step_offset_continues_exactly_where_the_whole_plan_would():
    whole = EpochPlan(1000, seed=5, epoch=2, world_size=2, batch_size=16, grad_accum=2)
    for step in (0, 3, whole.num_steps - 1):
        resumed = EpochPlan(1000, 5, 2, 2, 16, 2, start_offset=whole.offset_after(step))
        for rank in range(2):
            rest_of_whole = list(whole.micro_batches(rank))[(step + 1) * 2 :]
            assert [b.tolist() for b in resumed.micro_batches(rank)] == [b.tolist() for b in rest_of_whole]


def test_resuming_on_another_world_size_neither_repeats_nor_skips_a_sample():
    before = EpochPlan(1000, seed=5, epoch=0, world_size=2, batch_size=16, grad_accum=1)
    offset = before.offset_after(9)
    done = [int(i) for rank in range(2) for b in itertools.islice(before.micro_batches(rank), 10) for i in b]
    after = EpochPlan(1000, 5, 0, world_size=4, batch_size=16, grad_accum=1, start_offset=offset)
    assert sorted(done + seen_by_all_ranks(after)) == list(range(1000))


def test_the_last_step_of_an_epoch_takes_the_remainder():
    plan = EpochPlan(101, seed=0, epoch=0, world_size=2, batch_size=16, grad_accum=1)
    assert plan.num_steps == 3
    assert [plan.global_samples(s) for s in range(3)] == [32, 32, 37]


@pytest.mark.parametrize("workers", [0, 2])
def test_the_loader_yields_whole_tensor_batches_in_plan_order(workers):
    dataset = RandomRegression(256, seed=1)
    plan = EpochPlan(256, seed=3, epoch=0, world_size=2, batch_size=32, grad_accum=1)
    batches = list(make_loader(dataset, plan, rank=1, workers=workers, pin_memory=False))
    expected = list(plan.micro_batches(1))
    assert len(batches) == len(expected)
    for (inputs, targets), indices in zip(batches, expected, strict=True):
        assert torch.equal(inputs, dataset.inputs[indices])
        assert torch.equal(targets, dataset.targets[indices])


def test_a_per_sample_dataset_is_collated_for_the_user():
    samples = [(torch.full((3,), float(i)), torch.tensor([i])) for i in range(40)]
    plan = EpochPlan(40, seed=0, epoch=0, world_size=1, batch_size=8, grad_accum=1)
    inputs, targets = next(iter(make_loader(samples, plan, rank=0, workers=0, pin_memory=False)))
    assert inputs.shape == (8, 3)
    assert torch.equal(inputs[:, 0].long(), targets[:, 0])
