"""A restart on two ranks: rank 0 reads the snapshot and sends it; rank 1 unpickles nothing it receives.

What arrives over gloo or NCCL could have been sent by anyone who reads the peers' addresses in the rendezvous
store, so rank 1 runs here with every way to unpickle shut: `pickle.load`, `pickle.loads` and `pickle.Unpickler`
raise, as does torch's own alias of the last (torch/distributed/distributed_c10d.py, `_unpickler`, what
`broadcast_object_list` unpickles with), and an audit hook (PEP 578) stops any unpickler that looks up a name
(`pickle.find_class`: no pickled object can run code without one). Both ranks must then hold the same values,
types included, as loading the file itself gives.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch

from app.train.snapshot import SnapshotManager, dcp_metadata, layout
from tests.trainer_runs import REPO

FIXTURES = REPO / "tests" / "data" / "snapshots"


def described(value: Any) -> Any:
    """`value` as JSON that tells every type apart: tuple from list, int key from str key, OrderedDict (and the
    `_metadata` torch's state dicts carry) from dict, a dataclass by its name and fields."""
    if isinstance(value, torch.Tensor):
        return ["tensor", str(value.dtype), list(value.shape), value.tolist()]
    if dataclasses.is_dataclass(value):
        return [type(value).__name__, {f.name: described(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    if isinstance(value, dict):
        return [type(value).__name__, [[described(k), described(v)] for k, v in value.items()],
                described(getattr(value, "_metadata", None))]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [described(item) for item in value]]
    return [type(value).__name__, repr(value)]


def metadata_described(metadata: Any) -> Any:
    """Each reader stamps its own random `load_id` into what it read, as DCP's own reader does."""
    if metadata.storage_meta is not None:
        metadata.storage_meta.load_id = None
    return described(metadata)


def training_state() -> Any:
    """A training state whose optimizer state holds what JSON alone would lose: int keys, tuples (AdamW's betas)."""
    from app.common.typedconfig import load_config
    from app.train.config import Config
    from app.train.plan import Position, RunPlan
    from app.train.state import TrainingState

    config = load_config(Config, None, ["workload.name=regression"])
    torch.manual_seed(0)
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1, betas=(0.9, 0.95))
    model(torch.ones(2, 20)).sum().backward()
    optimizer.step()
    return TrainingState(model=model, optimizer=optimizer,
                         scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
                         scaler=torch.amp.GradScaler("cpu", enabled=False),
                         plan=RunPlan.build(config, 64, 1, torch.device("cpu"), Position()),
                         config={"run": {"seed": 1}})


def forbid_unpickling() -> None:
    import pickle
    import sys

    import torch.distributed.distributed_c10d as c10d

    class Forbidden(pickle.Unpickler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("rank 1 unpickled what it received")

    def forbidden(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("rank 1 unpickled what it received")

    def no_names(event: str, args: tuple[Any, ...]) -> None:
        if event == "pickle.find_class":
            raise AssertionError(f"rank 1 unpickled what it received, which names {args[0]}.{args[1]}")

    pickle.load = pickle.loads = forbidden
    pickle.Unpickler = c10d._unpickler = Forbidden
    sys.addaudithook(no_names)


def _restart(rank: int, snapshots: str, store: str, results: str) -> None:
    """One rank of two (gloo): find the newest snapshot as a restart does (rank 0 reads, rank 1 receives); put a
    single-file one back into a training state, or read a sharded one's DCP metadata as DCP's load does first."""
    import datetime

    import torch.distributed as dist

    if rank == 1:
        forbid_unpickling()
    dist.init_process_group("gloo", store=dist.FileStore(store, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=60))
    try:
        manager = SnapshotManager(Path(snapshots), keep=2, is_main=rank == 0)
        snapshot = manager.to_resume("required")
        held: dict[str, Any] = {"path": described(snapshot.path), "contents": described(snapshot.contents)}
        if snapshot.sharded:
            held["metadata"] = metadata_described(layout.MetadataFromRankZero(snapshot.path).read_metadata())
        else:
            state = training_state()
            manager.restore(state, snapshot)
            held["restored"] = described([state.model.state_dict(), state.optimizer.state_dict(), state.position])
        outcome: Any = held
    except Exception as err:
        outcome = f"{type(err).__name__}: {err}"
    Path(results, str(rank)).write_text(json.dumps(outcome))
    dist.destroy_process_group()


def restart_on_two_ranks(tmp_path: Path) -> dict[int, Any]:
    import multiprocessing

    results = tmp_path / "results"
    results.mkdir()
    spawn = multiprocessing.get_context("spawn")
    ranks = [spawn.Process(target=_restart, args=(rank, str(tmp_path / "snapshots"), str(tmp_path / "store"),
                                                   str(results)))
             for rank in range(2)]
    for process in ranks:
        process.start()
    for process in ranks:
        process.join(timeout=120)
    return {rank: json.loads((results / str(rank)).read_text()) for rank in range(2)
            if (results / str(rank)).exists()}


@pytest.mark.slow  # two processes, each starting torch
def test_a_single_file_snapshot_reaches_the_other_rank_unpickled_with_every_type_it_holds(tmp_path):
    written = training_state()
    SnapshotManager(tmp_path / "snapshots", keep=2, background=False).save(written, 3, last=True)
    held = restart_on_two_ranks(tmp_path)
    assert isinstance(held.get(1), dict), held.get(1)
    assert held[1] == held[0]
    path = layout.single_file_path(tmp_path / "snapshots", 3)
    assert held[1]["contents"] == described(torch.load(path, weights_only=True))
    assert held[1]["restored"] == described([written.model.state_dict(), written.optimizer.state_dict(),
                                             written.position])


@pytest.mark.slow
def test_a_sharded_snapshot_and_its_dcp_metadata_reach_the_other_rank_unpickled(tmp_path):
    shutil.copytree(FIXTURES / "fsdp-format1", tmp_path / "snapshots")
    snapshot = tmp_path / "snapshots" / "step-00000005"
    held = restart_on_two_ranks(tmp_path)
    assert isinstance(held.get(1), dict), held.get(1)
    assert held[1] == held[0]
    assert held[1]["contents"] == described(json.loads((snapshot / layout.EXTRAS).read_text()))
    assert held[1]["metadata"] == metadata_described(dcp_metadata.read(snapshot / layout.METADATA))


@pytest.mark.slow
def test_a_snapshot_holding_a_type_ranks_do_not_exchange_stops_every_rank_with_the_same_line(tmp_path):
    """torch.load(weights_only=True) loads a set; JSON has none, and a list in its place would not be the same."""
    snapshot = tmp_path / "snapshots" / "step-00000004.pt"
    snapshot.parent.mkdir()
    torch.save({"position": {"step": 4, "epoch": 0, "offset": 0}, "extra": {"tags": {"a"}}}, snapshot)
    (snapshot.parent / (snapshot.name + ".sha256")).write_text(f"{layout.sha256_of(snapshot)}  {snapshot.name}\n")
    held = restart_on_two_ranks(tmp_path)
    assert held[0] == held[1], held
    assert held[1].startswith(f"UsageError: rank 0 could not send snapshot {snapshot}: it holds a builtins.set at "
                              f"['contents']['extra']['tags']"), held[1]
    assert "\n" not in held[1] and "start fresh with another snapshot.dir" in held[1]
