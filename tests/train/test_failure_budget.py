"""The snapshot interval `--dry-run` suggests (Young/Daly) and its time-to-train model (app/train/failure_budget.py)."""

from __future__ import annotations

import math
import re

import pytest

from app.train import failure_budget as budget
from tests.trainer_runs import run, train_command


def test_daly_is_youngs_square_root_corrected_to_higher_order():
    # C = 5 min, M = 24 h: Young's sqrt(2 C M) = 7200 s; Daly: 7200 (1 + sqrt(C/2M)/3 + C/18M) - C, by hand
    ratio = 300 / (2 * 86400)
    assert budget.snapshot_interval_s(300, 86400) == pytest.approx(7200 * (1 + math.sqrt(ratio) / 3 + ratio / 9) - 300)
    assert budget.snapshot_interval_s(300, 86400) == pytest.approx(7001.4, abs=0.1)
    assert budget.snapshot_interval_s(0.1, 86400) == pytest.approx(math.sqrt(2 * 0.1 * 86400), rel=1e-2)
    assert budget.snapshot_interval_s(2 * 3600, 3600) == 3600  # a snapshot as long as two MTBFs: Daly's T = M


@pytest.mark.parametrize(("snapshot_s", "mtbf_s", "restart_s"), [(0.15, 12.4 * 3600, 270), (30, 3600, 600),
                                                                 (300, 86400, 1800)])
def test_the_suggested_interval_is_within_a_percent_of_the_models_best(snapshot_s, mtbf_s, restart_s):
    work_s = 30 * 86400
    suggested = budget.snapshot_interval_s(snapshot_s, mtbf_s)
    candidates = [suggested * 1.01**k for k in range(-300, 301)]
    best = min(budget.time_to_train_s(work_s, t, snapshot_s, restart_s, mtbf_s) for t in candidates)
    at_suggested = budget.time_to_train_s(work_s, suggested, snapshot_s, restart_s, mtbf_s)
    assert best <= at_suggested <= best * 1.01


def test_a_job_fails_as_often_as_its_nodes_together_and_never_finishes_when_a_failure_costs_more():
    assert budget.job_mtbf_s(1024) == pytest.approx(budget.NODE_MTBF_H * 3600 / 1024)
    assert pytest.approx(12_669, abs=1) == budget.NODE_MTBF_H  # Llama 3: 419 in 54 days on 16,384 GPUs, 4 a node
    assert budget.time_to_train_s(3600, 600, 10, restart_s=4000, mtbf_s=3600) == math.inf


def suggested_every(*args: str) -> int:
    result = run(train_command("--config", "gpt2-h100", "--dry-run", *args), timeout=120)
    assert result.returncode == 0, result.stderr
    found = re.search(r"suggested interval \(Young/Daly\): snapshot.every=(\d+)", result.stdout)
    assert found, result.stdout
    return int(found.group(1))


@pytest.mark.slow
def test_dry_run_suggests_snapshotting_more_often_on_more_nodes_and_less_reliable_ones():
    on_1024 = suggested_every("--world-size", "4096")  # --nodes: 4096 / 4
    on_256 = suggested_every("--world-size", "4096", "--nodes", "256")
    flaky = suggested_every("--world-size", "4096", "--node-mtbf-hours", str(budget.NODE_MTBF_H / 4))
    # C << M: the interval goes as sqrt(M), so 4x the nodes or a 4x failure rate halve it
    assert on_256 / on_1024 == pytest.approx(2, rel=0.02)
    assert flaky == pytest.approx(on_1024 / 2, rel=0.02)
