"""A restart reads the snapshot from the run directory once, not once per rank: at 4096 ranks and a 1.5 GB
snapshot, one read per rank is 6 TB from the shared filesystem, all at once. Which rank opens which
snapshot file is seen from outside the trainer: a `sitecustomize` installs a Python audit hook (PEP 578;
every `open()` raises the `open` event, torch.load's and DCP's included; bench/read_audit.py) that logs
each file under the run's snapshots/ a rank opens for reading.

Sharded (DCP) snapshots grow with the ranks in two ways a restart would pay for at every rank: `.metadata`
holds a chunk entry per tensor per rank (O(N) bytes, read by every rank,
O(N^2) in all), and replicated items (optimizer step counters) are spread over every
rank's file, so each rank opens every file (N^2 opens, a parallel filesystem's metadata server's load)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.read_audit import install_hook, opened
from tests.trainer_runs import clean_env, run, summary, torchrun_command

pytestmark = pytest.mark.slow

GPT = ["--config", "demo", "data.tokens=200000", "run.log_every=1", "snapshot.every=4"]
#: ddp: with 3 or more a resume can end a rounding away (docs/training.md, "Resume is exact"); fsdp: 4, so that a
#: rank's own file, rank 0's and a third rank's are told apart
RANKS = {"ddp": 2, "fsdp": 4}



def opened_by_rank(log_dir: Path, snapshot: Path, ranks: int) -> dict[int, list[str]]:
    """The files of `snapshot` each rank opened for reading (names inside it)."""
    return {rank: [Path(name).name for _, name in opened(log_dir, rank, snapshot)] for rank in range(ranks)}


@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_a_restart_reads_the_snapshot_once_and_ends_where_the_uninterrupted_run_ended(tmp_path, strategy):
    ranks = RANKS[strategy]
    args = [*GPT, f"dist.strategy={strategy}", "train.max_steps=12", f"run.dir={tmp_path / 'run'}"]
    first = run(torchrun_command(ranks, *args))
    assert first.returncode == 0, first.stderr[-3000:]
    finished = summary(tmp_path / "run")["params_sha256"]
    snapshots = tmp_path / "run" / "snapshots"
    for last in snapshots.glob("step-00000012*"):  # as if the run had stopped after step 8's snapshot
        shutil.rmtree(last) if last.is_dir() else last.unlink()
    snapshot = snapshots / ("step-00000008.pt" if strategy == "ddp" else "step-00000008")

    env = clean_env(**install_hook(tmp_path))
    resumed = run(torchrun_command(ranks, *args), env=env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming from {snapshot}" in resumed.stderr

    opened = opened_by_rank(tmp_path, snapshot, ranks)
    assert opened[0], f"rank 0 did not read {snapshot.name}: the audit hook saw nothing"
    if strategy == "ddp":  # one file: rank 0 hashes and loads it, the others receive it over the group
        assert all(not opened[rank] for rank in range(1, ranks)), opened
    else:  # rank 0 verifies the manifest and reads DCP's metadata; every other rank reads its own shard and
        # what rank 0 saved for everyone (the replicated items), each once
        for rank in range(1, ranks):
            assert sorted(opened[rank]) == ["__0_0.distcp", f"__{rank}_0.distcp"], f"rank {rank}: {opened[rank]}"
    assert summary(tmp_path / "run")["params_sha256"] == finished
