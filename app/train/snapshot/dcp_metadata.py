"""DCP's `.metadata` read without running code from it.

torch.distributed.checkpoint writes `.metadata` with plain `pickle` and its `FileSystemReader` reads it back
with `pickle.load` (torch/distributed/checkpoint/filesystem.py, `read_metadata`): a planted file runs whatever it
names. Here the unpickler resolves only the classes DCP's metadata is made of (torch/distributed/checkpoint/
metadata.py, filesystem.py's `_StorageInfo`) and the torch values they hold (sizes, dtypes, layouts, paths);
any other name is refused before it is called. The result must be a `Metadata` whose storage entries each name a
file inside the snapshot.
"""

from __future__ import annotations

import enum
import io
import pathlib
import pickle
from pathlib import Path
from typing import Any

import torch
from torch.distributed.checkpoint import filesystem, metadata
from torch.distributed.checkpoint.metadata import Metadata

#: Cap on `.metadata`'s size: an entry per tensor per rank is ~14 KB a rank for the tiny model, so 1 GiB covers
#: tens of thousands of ranks of a large model, and a planted endless file is not read forever.
MAX_BYTES = 1 << 30

_DCP_TYPES = {
    "torch.distributed.checkpoint.metadata": {
        "Metadata", "MetadataIndex", "StorageMeta", "TensorProperties", "TensorStorageMetadata",
        "BytesStorageMetadata", "ChunkStorageMetadata", "_MEM_FORMAT_ENCODING",
    },
    "torch.distributed.checkpoint.filesystem": {"_StorageInfo"},
}
_MODULES = {"torch.distributed.checkpoint.metadata": metadata, "torch.distributed.checkpoint.filesystem": filesystem}
#: The dataclasses DCP's metadata is made of, which rank 0 sends the other ranks as JSON (app/train/snapshot/wire.py)
DATACLASSES = tuple(getattr(_MODULES[module], name) for module, names in _DCP_TYPES.items() for name in sorted(names)
                    if name != "_MEM_FORMAT_ENCODING")  # an enum, only inside TensorProperties' pickled state


class UnsafeMetadata(ValueError):
    """`.metadata` names something DCP's metadata is not made of, or is not DCP's metadata at all."""


def enum_member(cls: Any, name: Any) -> Any:
    """`cls[name]` when `cls` is an enum and `name` one of its members, else None. CPython 3.11.0 to 3.11.4 pickle an
    enum member as `getattr(its class, its name)` (enum.py, `Enum.__reduce_ex__`; Debian 12's 3.11.2, the smoke
    image's Python), so `builtins.getattr` is resolved to this and nothing wider: any other attribute of a class
    (a method to call next) is refused."""
    if isinstance(cls, type) and issubclass(cls, enum.Enum) and isinstance(name, str) and name in cls.__members__:
        return cls[name]
    return None


def _member_of_an_enum(cls: Any, name: Any) -> Any:
    member = enum_member(cls, name)
    if member is None:
        raise UnsafeMetadata(f"it asks {type(cls).__name__} {str(cls)[:80]} for {str(name)[:80]}, which is no "
                             "member of an enum (refused)")
    return member


def resolve(module: str, name: str) -> Any:
    """The class or torch value `module.name` when DCP's metadata is made of it, else `UnsafeMetadata`."""
    if (module, name) == ("builtins", "getattr"):  # an enum member, pickled by name
        return _member_of_an_enum
    if name in _DCP_TYPES.get(module, ()):
        return getattr(_MODULES[module], name)
    if module == "torch":
        if name == "Size":
            return torch.Size
        if isinstance(getattr(torch, name, None), torch.dtype):
            return getattr(torch, name)
    if (module, name) == ("torch.serialization", "_get_layout"):  # how torch pickles a torch.layout
        return torch.serialization._get_layout
    if module == "pathlib" and name in ("PosixPath", "PurePosixPath"):  # StorageMeta.checkpoint_id
        return getattr(pathlib, name)
    raise UnsafeMetadata(f"it names {module}.{name}, which DCP's metadata never holds (refused unread)")


class _MetadataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return resolve(module, name)


def read(path: Path) -> Metadata:
    """The `Metadata` in `path` (a snapshot's `.metadata`); `UnsafeMetadata` or `OSError` when it is not one."""
    with open(path, "rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise UnsafeMetadata(f"it is over {MAX_BYTES >> 20} MiB")
    try:
        loaded = _MetadataUnpickler(io.BytesIO(data)).load()
    except UnsafeMetadata:
        raise
    except Exception as err:  # a torn or hostile pickle: any error means unusable
        raise UnsafeMetadata(f"it does not unpickle ({type(err).__name__}: {str(err)[:120]})") from None
    return checked(loaded)


def checked(loaded: Any) -> Metadata:
    """`loaded` if it is DCP's `Metadata` whose storage entries each name a file inside the snapshot, else
    `UnsafeMetadata`: what rank 0 read, and what every other rank received from it."""
    if not isinstance(loaded, Metadata):
        raise UnsafeMetadata(f"it holds a {type(loaded).__name__}, not DCP's Metadata")
    _check_confined(loaded)
    return loaded


def _check_confined(loaded: Metadata) -> None:
    """DCP opens each entry's `relative_path` under the snapshot directory: only plain file names stay inside."""
    if not isinstance(loaded.storage_data, dict):
        raise UnsafeMetadata("its storage_data is not a table of files")
    for info in loaded.storage_data.values():
        name = getattr(info, "relative_path", None)
        if not isinstance(info, filesystem._StorageInfo) or not isinstance(name, str) \
                or not name or "/" in name or name in (".", ".."):
            raise UnsafeMetadata(f"a storage entry names {name!r}, not a file inside the snapshot")
