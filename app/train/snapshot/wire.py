"""What rank 0 sends every other rank when a run resumes (a snapshot's values besides its tensors, DCP's
metadata), as JSON in a uint8 tensor: nothing that arrives is unpickled.

torch's object collectives (`broadcast_object_list`, `all_gather_object`, ...) pickle on the sender and unpickle
on every receiver (torch/distributed/distributed_c10d.py, `_tensor_to_object`), over gloo and NCCL connections
opened to the addresses in the rendezvous store, which any user who reaches its port can read: the transport
would be the only defence. JSON runs nothing. The types JSON lacks travel tagged, each tag a JSON object of one
key (`{"tuple": [1, 2]}`), so no JSON object stands for itself:

    tuple; dict (`dict` when every key is a str, else `items`); OrderedDict (`odict`, with the `_metadata` that
    `Module.state_dict` puts on it: the modules' versions, torch/nn/modules/module.py); torch.Size (`size`);
    torch.dtype, torch.layout, torch.memory_format (by name); Path; and the dataclasses the caller names.

Anything else is refused, with where it lies. Every rank, rank 0 included, keeps what it decodes, so all ranks
hold the same value, types included.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path, PosixPath
from typing import Any

import torch
import torch.distributed as dist

from app.common.distributed import broadcast_bytes

_PLAIN = (type(None), bool, int, float, str)
_BY_NAME = {"dtype": torch.dtype, "layout": torch.layout, "memory_format": torch.memory_format}
_NAMED = {kind: tag for tag, kind in _BY_NAME.items()}


class NotSent(RuntimeError):
    """Rank 0 had no value to send (the message says why, the same line on every rank), or what arrived is not
    what rank 0 writes."""


class Unencodable(TypeError):
    """A value of a type not carried here (`kind`), at `where` (keys from the top)."""

    def __init__(self, kind: type, where: str = "") -> None:
        super().__init__(f"{kind.__qualname__} at {where or 'the top'}")
        self.kind, self.where = kind, where


def from_rank_zero(value: Any, *, what: str, limit: int, kinds: Iterable[type] = (), problem: str | None = None
                   ) -> Any:
    """Rank 0's `value` on every rank, as each rank decodes it (collective; the other ranks' `value`, `what` and
    `problem` are not read). When rank 0 has a `problem` instead, or `value` holds a type not carried here, or is
    over `limit` bytes as JSON, every rank raises `NotSent` with the same line, naming rank 0's `what`."""
    classes = {kind.__name__: kind for kind in kinds}
    data = _message(value, what, limit, classes, problem) if dist.get_rank() == 0 else None
    try:
        received = json.loads(broadcast_bytes(data, limit))
        if not (isinstance(received, dict) and len(received) == 1 and received.keys() <= {"value", "problem"}):
            raise ValueError("no value and no problem")
        if "problem" in received:
            raise NotSent(str(received["problem"])[:1000])
        return decode(received["value"], classes)
    except (ValueError, TypeError, KeyError, RecursionError) as err:  # not what rank 0 writes
        raise NotSent(f"what arrived from rank 0 is not what it sends ({type(err).__name__}: {str(err)[:200]})") \
            from None


def _message(value: Any, what: str, limit: int, classes: dict[str, type], problem: str | None) -> bytes:
    if problem is None:
        try:
            data = _dumps({"value": encode(value, classes)})
            if len(data) <= limit:
                return data
            problem = f"it is {len(data)} bytes as JSON, over the {limit} that ranks exchange"
        except Unencodable as err:
            problem = f"it holds a {err.kind.__module__}.{err.kind.__qualname__} at {err.where or 'the top'}, " \
                      f"a type ranks do not exchange (JSON values, tuples, dicts, tensors' sizes and dtypes, paths)"
        except RecursionError:
            problem = "it is nested too deeply"
    return _dumps({"problem": f"rank 0 could not send {what}: {problem}"[:1000]})


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def encode(value: Any, classes: dict[str, type]) -> Any:
    """`value` as JSON data, tagged where JSON lacks its type; `Unencodable` names the type and where it lies."""
    kind = type(value)  # exact types: a subclass (an IntEnum, a defaultdict) would arrive as its base
    if kind in _PLAIN:
        return value
    if kind is list:
        return [_at(i, item, classes) for i, item in enumerate(value)]
    if kind is tuple:
        return {"tuple": [_at(i, item, classes) for i, item in enumerate(value)]}
    if kind is dict:
        if all(type(key) is str for key in value):
            return {"dict": {key: _at(key, item, classes) for key, item in value.items()}}
        return {"items": _items(value, classes)}
    if kind is OrderedDict:
        extra = vars(value)
        if extra.keys() - {"_metadata"}:
            raise Unencodable(kind, f" (attributes {sorted(extra)})")
        return {"odict": {"items": _items(value, classes), "metadata": _at("_metadata", extra.get("_metadata"),
                                                                           classes)}}
    if kind is torch.Size:
        return {"size": list(value)}
    if kind in _NAMED:
        return {_NAMED[kind]: str(value).removeprefix("torch.")}
    if kind is PosixPath:
        return {"path": str(value)}
    if classes.get(kind.__name__) is kind:
        return {"dataclass": [kind.__name__, {f.name: _at(f.name, getattr(value, f.name), classes)
                                              for f in fields(value)}]}
    raise Unencodable(kind)


def _items(mapping: dict[Any, Any], classes: dict[str, type]) -> list[list[Any]]:
    return [[_at(key, key, classes), _at(key, item, classes)] for key, item in mapping.items()]


def _at(key: Any, value: Any, classes: dict[str, type]) -> Any:
    """`encode(value)`, which lies at `[key]` of its container: a refusal says where."""
    try:
        return encode(value, classes)
    except Unencodable as err:
        raise Unencodable(err.kind, f"[{key!r}]{err.where}"[:300]) from None


def decode(data: Any, classes: dict[str, type]) -> Any:
    """What `encode` made `data` from; `ValueError`/`TypeError`/`KeyError` when `data` is not what it makes."""
    kind = type(data)
    if kind in _PLAIN:
        return data
    if kind is list:
        return [decode(item, classes) for item in data]
    _need(kind is dict and len(data) == 1, "a tagged value is an object of one key")
    ((tag, payload),) = data.items()
    return _DECODERS[tag](payload, classes)


def _need(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(what)


def _list(payload: Any) -> list[Any]:
    _need(type(payload) is list, "a list")
    return payload


def _pairs(payload: Any, classes: dict[str, type]) -> list[tuple[Any, Any]]:
    pairs = [_list(pair) for pair in _list(payload)]
    _need(all(len(pair) == 2 for pair in pairs), "items are pairs")
    return [(decode(key, classes), decode(item, classes)) for key, item in pairs]


def _text_keyed(payload: Any, classes: dict[str, type]) -> dict[str, Any]:
    _need(type(payload) is dict, "a dict's payload is an object")
    return {key: decode(item, classes) for key, item in payload.items()}


def _ordered(payload: Any, classes: dict[str, type]) -> OrderedDict[Any, Any]:
    _need(type(payload) is dict and payload.keys() == {"items", "metadata"}, "an odict has items and metadata")
    mapping = OrderedDict(_pairs(payload["items"], classes))
    metadata = decode(payload["metadata"], classes)
    if metadata is not None:
        mapping._metadata = metadata  # type: ignore[attr-defined]  # as Module.state_dict sets it
    return mapping


def _torch_named(tag: str) -> Callable[[Any, dict[str, type]], Any]:
    def named(payload: Any, _: dict[str, type]) -> Any:
        found = getattr(torch, payload, None) if type(payload) is str else None
        _need(isinstance(found, _BY_NAME[tag]), f"a torch {tag}")
        return found
    return named


def _size(payload: Any, _: dict[str, type]) -> torch.Size:
    _need(all(type(n) is int for n in _list(payload)), "a size is whole numbers")
    return torch.Size(payload)


def _path(payload: Any, _: dict[str, type]) -> Path:
    _need(type(payload) is str, "a path is text")
    return Path(payload)


def _dataclass(payload: Any, classes: dict[str, type]) -> Any:
    name, values = _list(payload)
    kind = classes[name]  # KeyError: not one the caller expects
    _need(type(values) is dict and values.keys() == {f.name for f in fields(kind)}, f"the fields of {name}")
    return kind(**{key: decode(value, classes) for key, value in values.items()})


_DECODERS: dict[str, Callable[[Any, dict[str, type]], Any]] = {
    "tuple": lambda payload, classes: tuple(decode(item, classes) for item in _list(payload)),
    "dict": _text_keyed,
    "items": lambda payload, classes: dict(_pairs(payload, classes)),
    "odict": _ordered,
    "size": _size,
    **{tag: _torch_named(tag) for tag in _BY_NAME},
    "path": _path,
    "dataclass": _dataclass,
}
