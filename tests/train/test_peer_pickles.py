"""What the ranks of a sharded (fsdp) run's distributed checkpoint send each other over the process group: DCP's
plans still pass, a class they are never made of is refused before it is called.

Two gloo ranks, each with the trainer's unpickler set as `run_training` sets it. DCP writes and reads a sharded
state (its plans, write results and metadata travel through torch's object collectives), then rank 1 sends rank 0
what a process that wrote into their connection could send: a pickle that names `os.system`. Before, torch's
plain unpickler ran it (the proof file appeared); now rank 0 stops with the tampering line and code 10.
"""

from __future__ import annotations

import datetime
import json
import multiprocessing
import os
import pickle
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp

from app.host.common import exitcodes
from app.train.snapshot import peer_pickles
from app.train.snapshot.write_failures import raise_on_every_rank


class _Planted:
    """What an attacker's bytes decode to: a call of `os.system` (pickled by reference, `posix.system`)."""

    def __init__(self, proof: str) -> None:
        self.proof = proof

    def __reduce__(self) -> tuple:
        return os.system, (f"touch {self.proof}",)


def _rank(rank: int, tmp: str) -> None:
    dist.init_process_group("gloo", store=dist.FileStore(f"{tmp}/store", 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=20))
    peer_pickles.refuse_foreign_classes()
    resolved: list[str] = []
    plain_resolve = peer_pickles.resolve

    def recording(module: str, name: str) -> object:
        resolved.append(f"{module}.{name}")
        return plain_resolve(module, name)

    peer_pickles.resolve = recording
    # A sharded state as fsdp's ranks hold it: one tensor each, one the same on both
    mine = {f"shard{rank}": torch.arange(4.0) + 10 * rank, "shared": torch.ones(3)}
    dcp.save(mine, checkpoint_id=f"{tmp}/snapshot")
    back = {name: torch.zeros_like(value) for name, value in mine.items()}
    dcp.load(back, checkpoint_id=f"{tmp}/snapshot")
    outcome = {"round_trip": all(torch.equal(back[name], mine[name]) for name in mine), "resolved": resolved}
    try:
        gathered = [None, None] if rank == 0 else None
        dist.gather_object("rank 0's own" if rank == 0 else _Planted(f"{tmp}/proof"), gathered, dst=0)
    except peer_pickles.ConnectionTampered as err:
        outcome.update(refused=str(err), exit_code=err.exit_code)
        try:  # as the snapshot writer hands it on: at once, not in a collective the other ranks never reach
            raise_on_every_rank(err, "sharded snapshot")
        except peer_pickles.ConnectionTampered:
            outcome.update(handed_on=True)
    Path(f"{tmp}/rank{rank}.json").write_text(json.dumps(outcome))
    dist.destroy_process_group()


def test_dcps_plans_pass_between_ranks_and_a_planted_class_is_refused_unrun(tmp_path):
    spawn = multiprocessing.get_context("spawn")
    ranks = [spawn.Process(target=_rank, args=(rank, str(tmp_path))) for rank in (0, 1)]
    for process in ranks:
        process.start()
    for process in ranks:
        process.join(timeout=120)
        assert process.exitcode == 0, f"a rank ended {process.exitcode}"
    rank0, rank1 = (json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1))

    assert not (tmp_path / "proof").exists(), "the planted pickle ran on rank 0"
    assert "named posix.system, which the distributed checkpoint never sends (refused unread)" in rank0["refused"]
    assert rank0["exit_code"] == exitcodes.STORE
    assert rank0.get("handed_on"), "the refusal was lost in a collective the other rank never joined"

    assert rank0["round_trip"] and rank1["round_trip"]
    # The plans did go through the unpickler: rank 0 gathered the others' save plans, the others got theirs back
    assert "torch.distributed.checkpoint.planner.SavePlan" in rank0["resolved"], rank0["resolved"]
    assert "torch.distributed.checkpoint.planner.SavePlan" in rank1["resolved"], rank1["resolved"]


def test_the_trainer_unpickles_what_ranks_send_with_dcps_classes_only(tmp_path, monkeypatch):
    """`run_training` sets the unpickler before anything is exchanged (a run of two steps, in this process)."""
    import torch.distributed.distributed_c10d as c10d

    from tests.train.in_process import train_here

    monkeypatch.setattr(c10d, "_unpickler", pickle.Unpickler)  # torch's own, put back after the test
    train_here(tmp_path / "run", "train.max_steps=2")
    assert c10d._unpickler is peer_pickles.PeerUnpickler


def test_a_failure_another_rank_reports_reaches_rank_0_whole():
    """A rank whose write failed sends its exception and where it was raised (DCP's `_wrap_exception`): rank 0 must
    read it to say why (write_failures.py finds the OSError in it), so the unpickler takes those too."""
    import errno
    import io

    from torch.distributed.checkpoint.api import CheckpointException, _wrap_exception

    try:
        raise OSError(errno.ENOSPC, "No space left on device", "/scratch/snapshots/step-00000008/__1_0.distcp")
    except OSError as err:
        wrapped = _wrap_exception(err)
    back = peer_pickles.PeerUnpickler(io.BytesIO(pickle.dumps(CheckpointException("write", {1: wrapped})))).load()
    failure, where = back.failures[1]
    assert isinstance(failure, OSError) and failure.errno == errno.ENOSPC
    assert where[-1].name == "test_a_failure_another_rank_reports_reaches_rank_0_whole"


def test_a_plan_from_a_python_that_pickles_enums_by_name_passes_and_no_other_getattr_does():
    """A rank on CPython 3.11.0 to 3.11.4 (Debian 12's 3.11.2, the smoke image's) sends each enum member of a plan as
    `getattr(its class, its name)`: the unpickler takes that call for an enum member and nothing wider (before,
    the first sharded snapshot of such a run never finished: rank 0 refused the plans and the others waited)."""
    import io
    import pathlib

    from torch.distributed.checkpoint.metadata import MetadataIndex
    from torch.distributed.checkpoint.planner import SavePlan, WriteItem, WriteItemType

    from tests.train.test_snapshot_metadata import EnumsByName

    plan = SavePlan([WriteItem(index=MetadataIndex("model.weight"), type=WriteItemType.TENSOR)])
    by_name = io.BytesIO()
    EnumsByName(by_name).dump([plan])
    assert b"getattr" in by_name.getvalue()
    assert peer_pickles.PeerUnpickler(io.BytesIO(by_name.getvalue())).load() == [plan]

    class WriteText:
        def __reduce__(self):
            return getattr, (pathlib.PosixPath, "write_text")

    with pytest.raises(peer_pickles.ConnectionTampered, match="no member of an enum"):
        peer_pickles.PeerUnpickler(io.BytesIO(pickle.dumps(WriteText()))).load()
