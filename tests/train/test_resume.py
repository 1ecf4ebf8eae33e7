"""Which snapshot a run resumes from, and what it refuses, in this process at world size one
(tests/train/in_process.py)."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
import torch

from app.host.common.errors import UsageError
from tests.train.in_process import params, train_here
from tests.trainer_runs import REPO

GPT = ["data.tokens=200000", "train.batch_size=4"]  # what a run resumes does not depend on its batch size


def strict_json(path: Path) -> dict:
    """json.loads accepts NaN and Infinity, which are not JSON: refuse them as other readers would."""
    def refuse(constant: str) -> None:
        raise ValueError(f"{path.name} holds {constant}, which is not JSON")

    return json.loads(path.read_text(), parse_constant=refuse)


def test_rerunning_a_finished_run_says_so_and_changes_no_file(tmp_path, caplog):
    train_here(tmp_path, *GPT, "train.max_steps=12", config="demo")
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}
    with caplog.at_level(logging.INFO):
        again = train_here(tmp_path, *GPT, "train.max_steps=12", config="demo")
    assert (again.status, again.steps_run, again.position.step) == ("completed", 0, 12)
    assert "nothing to do: the run in" in caplog.text and "complete at step 12" in caplog.text
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == files
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files} == before
    assert strict_json(tmp_path / "summary.json")["final_loss"] > 0


@pytest.mark.parametrize("steps", ["12", "20"])  # a finished run, and one that would go on
def test_resuming_with_a_setting_that_changes_what_is_trained_stops_and_names_it(tmp_path, steps):
    train_here(tmp_path, *GPT, "train.max_steps=12", "optim.lr=0.003", config="demo")
    with pytest.raises(UsageError) as refused:
        train_here(tmp_path, *GPT, f"train.max_steps={steps}", "optim.lr=0.1", config="demo")
    assert "  optim.lr: 0.003 in the snapshot, 0.1 now" in str(refused.value).splitlines()
    assert "another run.dir" in str(refused.value)
    assert strict_json(tmp_path / "summary.json")["step"] == 12


def test_a_damaged_newest_snapshot_is_skipped_for_the_previous_one(tmp_path, caplog):
    train_here(tmp_path, *GPT, "train.max_steps=20", "snapshot.every=10", config="demo")
    newest = tmp_path / "snapshots" / "step-00000020.pt"
    newest.write_bytes(newest.read_bytes()[:1000])
    with caplog.at_level(logging.INFO):
        resumed = train_here(tmp_path, *GPT, "train.max_steps=25", "snapshot.every=10", config="demo")
    assert "step-00000020.pt is unusable" in caplog.text
    assert "resuming from" in caplog.text and "step-00000010.pt at step 10" in caplog.text
    assert resumed.steps_run == 15


def test_a_snapshot_written_by_the_first_release_resumes_bit_identical(tmp_path, caplog):
    """tests/data/snapshots/format1: written by the code before the trainer became app/train (commit
    0526975, `--config regression train.max_steps=5`); snapshots users already have must keep loading."""
    shutil.copytree(REPO / "tests" / "data" / "snapshots" / "format1", tmp_path / "resumed" / "snapshots")
    with caplog.at_level(logging.INFO):
        train_here(tmp_path / "resumed", "train.max_steps=12")
    assert "step-00000005.pt at step 5" in caplog.text
    train_here(tmp_path / "reference", "train.max_steps=12")
    assert params(tmp_path / "resumed") == params(tmp_path / "reference")


def test_a_snapshot_written_in_the_background_holds_what_a_synchronous_one_holds(tmp_path):
    """Same steps, same snapshots, whichever way they are written (that the copy is taken at the snapshot
    step, before later steps change the parameters, is tested directly in tests/train/test_snapshots.py)."""
    for mode in ("true", "false"):
        train_here(tmp_path / mode, *GPT, "train.max_steps=30", "snapshot.every=10", f"snapshot.background={mode}",
                   "snapshot.keep=5", config="demo")
    for step in (10, 20, 30):
        name = f"step-{step:08d}.pt"
        background = torch.load(tmp_path / "true" / "snapshots" / name, weights_only=True)
        synchronous = torch.load(tmp_path / "false" / "snapshots" / name, weights_only=True)
        for part in ("model", "optimizer"):
            flat_a, flat_b = _tensors(background[part]), _tensors(synchronous[part])
            assert flat_a.keys() == flat_b.keys()
            assert all(torch.equal(flat_a[k], flat_b[k]) for k in flat_a), (step, part)


def _tensors(tree, prefix=""):  # type: ignore[no-untyped-def]
    if isinstance(tree, torch.Tensor):
        return {prefix: tree}
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else []
    return {k: v for key, sub in items for k, v in _tensors(sub, f"{prefix}/{key}").items()}
