"""What the ranks' distributed checkpoint (DCP) sends each other, unpickled with only the classes it is made of.

DCP agrees its plans and gathers its results through torch's object collectives (torch/distributed/checkpoint/
utils.py, `_DistWrapper`: `gather_object`, `scatter_object_list`, `broadcast_object_list`, `all_gather_object`),
which pickle on the sender and unpickle on every receiver with `distributed_c10d._unpickler` (torch/distributed/
distributed_c10d.py, `_tensor_to_object`). They travel over gloo or NCCL connections opened to the addresses in
the rendezvous store, which anyone who reaches its port reads, so a sharded snapshot's write or load ran whatever
bytes written into such a connection named. torch looks `_unpickler` up at every call: `refuse_foreign_classes`
sets it, for this process, to an unpickler that resolves only what DCP's plans, write results and failures are
made of (torch/distributed/checkpoint/planner.py, storage.py, metadata.py, filesystem.py, api.py; the failures are
an exception and its `traceback.StackSummary`), and the torch values they hold. Any other name is refused before
it is called: the snapshot stops with one line and exit code 10, as for a tampered store.
"""

from __future__ import annotations

import builtins
import importlib
import pickle
import traceback
from typing import Any

import torch.distributed.distributed_c10d as c10d

from app.common.signed_store import StoreTampered
from app.train.snapshot import dcp_metadata

#: Beside the metadata's own classes (dcp_metadata.resolve): DCP's plans, write results and failures
_PLAN_TYPES = {
    "torch.distributed.checkpoint.planner": {
        "SavePlan", "LoadPlan", "WriteItem", "ReadItem", "WriteItemType", "LoadItemType", "TensorWriteData",
        "BytesIOWriteData",
    },
    "torch.distributed.checkpoint.storage": {"WriteResult"},
    "torch.distributed.checkpoint.filesystem": {"_StoragePrefix"},
    "torch.distributed.checkpoint.api": {"CheckpointException"},
}


class ConnectionTampered(StoreTampered):
    """Another rank's message named a class DCP's messages are never made of."""


def resolve(module: str, name: str) -> Any:
    """`module.name` when DCP's messages between ranks are made of it, else `ConnectionTampered`."""
    if (module, name) == ("builtins", "getattr"):  # an enum member, pickled by name (dcp_metadata.enum_member)
        return _member_of_an_enum
    if name in _PLAN_TYPES.get(module, ()):
        return getattr(importlib.import_module(module), name)
    if module == "traceback" and name in ("StackSummary", "FrameSummary"):  # a failure's place (api.py)
        return getattr(traceback, name)
    found = getattr(builtins, name, None) if module == "builtins" else None
    if isinstance(found, type) and issubclass(found, BaseException):  # a failure another rank reports
        return found
    try:
        return dcp_metadata.resolve(module, name)
    except dcp_metadata.UnsafeMetadata:
        raise refused(f"named {module}.{name}") from None


def _member_of_an_enum(cls: Any, name: Any) -> Any:
    member = dcp_metadata.enum_member(cls, name)
    if member is None:
        raise refused(f"asked {type(cls).__name__} {str(cls)[:80]} for {str(name)[:80]}, no member of an enum")
    return member


def refused(what: str) -> ConnectionTampered:
    return ConnectionTampered(
        f"a message from another rank over the process group {what}, which the distributed checkpoint never sends "
        "(refused unread): another process wrote into the job's connections, whose addresses anyone who reaches the "
        "rendezvous store's port can read; the job stopped without running it and its last snapshot is intact; "
        "resubmit it (RUN_DIR=<this run> resumes), and if it happens again, ask your site who connects to the job's "
        "ports")


class PeerUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return resolve(module, name)


def refuse_foreign_classes() -> None:
    """Every object collective of this process unpickles with `PeerUnpickler` from now on."""
    c10d._unpickler = PeerUnpickler
