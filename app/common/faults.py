"""TEST-ONLY fault injection, one syntax for the trainer (`APP_TRAIN_FAULT`) and the check
(`APP_CHECK_FAULT`), so the suite can prove each failure is caught for real:

    kind@TARGET[:WHERE][,kind@TARGET[:WHERE]...]      e.g. stop@rank1:step8, sleep@host=node2:collectives

TARGET is `rankN` (one rank) or `host=NAME` (every rank on that host: a bad node, wherever the scheduler
puts the ranks). Each tool says which kinds it knows and what WHERE each needs (a step, a stage, none).
Nothing else reads these variables; users never need them.

The registry: a tool reads its variable once per run (`install` in app/train/faults.py, app/check/faults.py)
and arms the points it names with what happens there; the production code only passes `fault_point`, which
hands its value back untouched, and does nothing else, at every point no test armed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from app.common.errors import UsageError


@dataclass(frozen=True)
class Injection:
    kind: str
    where: str  # "" for kinds that need none


@dataclass(frozen=True)
class Kind:
    """A kind of fault: whether a WHERE is valid for it (None: it takes none), and what a valid one looks like."""

    accepts: Callable[[str], bool] | None = None
    wanted: str = ""


def _targets(target: str, rank: int, host: str) -> bool | None:
    """Whether `target` (rankN or host=NAME) means this process; None when it is malformed."""
    if target.startswith("rank") and target[4:].isdigit():
        return int(target[4:]) == rank
    if target.startswith("host=") and target[5:]:
        return target[5:] == host.split(".")[0]
    return None


def parse_injections(variable: str, value: str, kinds: Mapping[str, Kind], example: str, rank: int,
                     host: str) -> list[Injection]:
    """The injections of `value` that apply to `rank` on `host`; a malformed item is a `UsageError` naming
    `variable` with `example` (whichever rank it targets: every rank refuses it alike)."""
    found = []
    for item in filter(None, (part.strip() for part in value.split(","))):
        kind, _, rest = item.partition("@")
        target, _, where = rest.partition(":")
        applies = _targets(target, rank, host)
        if kind not in kinds or applies is None:
            raise UsageError(f"{variable} item {item!r} is not kind@rankN[:where] or kind@host=NAME[:where] with kind "
                             f"{', '.join(kinds)} (test-only); example: {variable}={example}")
        accepts = kinds[kind].accepts
        if (accepts is None and where) or (accepts is not None and not accepts(where)):
            wanted = kinds[kind].wanted or "nothing after the target"
            raise UsageError(f"{variable} item {item!r}: {kind} takes {wanted}; example: {variable}={example}")
        if applies:
            found.append(Injection(kind, where))
    return found


T = TypeVar("T")

#: The armed points of this process, by name ("train.step", "check.contribution", ...): empty in a real run.
_armed: dict[str, Callable[..., Any]] = {}


def fault_point(point: str, value: T = None, **where: Any) -> T:  # type: ignore[assignment]
    """Where a test may inject a fault: `value` back untouched unless `point` is armed, else what its action
    makes of it (`action(value, **where)`; an action may also sleep, stop or signal this process)."""
    action = _armed.get(point)
    return value if action is None else action(value, **where)


def arm(points: Iterable[str], actions: Mapping[str, Callable[..., Any]]) -> None:
    """Disarm every one of a tool's `points`, then arm those of `actions` (test-only: from its `install`)."""
    for point in points:
        _armed.pop(point, None)
    _armed.update(actions)
