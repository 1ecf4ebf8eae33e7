"""TEST-ONLY fault injection, in this one module: the suite proves each failure is caught for real by asking,
through an environment variable, for a fault that this module alone reads, parses and acts out. Users never
need it; no other module of app/ names the variables (tests/common/test_injected_faults.py fails if one does).

How a test asks: it sets, in the environment of the processes it starts (they may run on other nodes and in
the image, so a variable is what travels),

    APP_TRAIN_FAULT=kind@TARGET:stepS            e.g. stop@rank1:step8, stop@host=node2:step300
    APP_CHECK_FAULT=kind@TARGET[:stage][,...]    e.g. sleep@rank1:collectives,corrupt@rank2

TARGET is `rankN` (one rank) or `host=NAME` (every rank on that host: a bad node, wherever the scheduler
puts the ranks). The trainer's kinds, at the start of step S (counted from 1, as in metrics.jsonl):
- `stop`  the rank stops itself with SIGSTOP: a frozen process (no heartbeat), like a node that went away;
- `hang`  it sleeps forever while its heartbeat goes on: a live process stuck in its data loader;
- `usr1`  it sends itself SIGUSR1 (a preemption notice arriving at a known step) and goes on;
- `slowsnapshot`  when it writes the snapshot of step S: the write takes SLOW_SNAPSHOT_S longer.
The check's kinds:
- `sleep@rankN:STAGE`  the rank sleeps forever on entering STAGE (`preflight`, `rendezvous`, `collectives`);
- `corrupt@rankN`      it adds 1 to its contribution in the correctness stage, like a bad link or GPU;
- `version@rankN`      it reports torch version `<real>+fault`, like a node running another image;
- `slow@rankN`         it waits SLOW_S before each timed collective call, like a node on a bad link.
Each injection prints a line to stderr that names its variable.

How it reaches the code: each tool's entry hands its environment and rank to `arm` once per run (the
trainer's app/train/assemble.py, the check's app/check/runner.py), which arms the named points of this
process; the production code passes `point(name, value, **where)`, which hands `value` back untouched at
every point no test armed. Points: `train.step` (a step starts, app/train/optimizer_step.py),
`train.snapshot` (a snapshot is about to be written, app/train/loop.py), `check.stage` (a stage starts,
app/check/runner.py), `check.contribution` and `check.timed_call` (app/check/collectives.py),
`check.versions` (app/check/node/collect.py).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from app.host.common.errors import UsageError

VARIABLES = {"train": "APP_TRAIN_FAULT", "check": "APP_CHECK_FAULT"}
SLOW_SNAPSHOT_S = 12.0
SLOW_S = 0.05
SLEEP_STAGES = ("preflight", "rendezvous", "collectives")
TRAIN_EXAMPLE = "stop@rank1:step8"
CHECK_EXAMPLE = "sleep@rank1:collectives"


# The syntax, shared by both tools.

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


# The trainer's faults.

_AT_STEP = Kind(lambda where: re.fullmatch(r"step[1-9]\d*", where) is not None, "the step it starts at, e.g. step8")
TRAIN_KINDS = {"stop": _AT_STEP, "hang": _AT_STEP, "usr1": _AT_STEP, "slowsnapshot": _AT_STEP}
TRAIN_POINTS = ("train.step", "train.snapshot")


@dataclass(frozen=True)
class Fault:
    """What this rank does when it starts `step` (or writes its snapshot, for `slowsnapshot`)."""

    kind: str
    rank: int
    step: int

    @property
    def point(self) -> str:
        return "train.snapshot" if self.kind == "slowsnapshot" else "train.step"

    def act(self, value: None, *, step: int) -> None:
        if step != self.step:
            return value
        print(f"APP_TRAIN_FAULT: {self.kind} on rank {self.rank} at step {step} (test-only)", file=sys.stderr,
              flush=True)
        if self.kind == "slowsnapshot":
            time.sleep(SLOW_SNAPSHOT_S)
            return value
        if self.kind == "usr1":
            os.kill(os.getpid(), signal.SIGUSR1)
            return value
        if self.kind == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            time.sleep(3600)


def train_fault(env: Mapping[str, str], rank: int, host: str | None = None) -> Fault | None:
    """The fault `APP_TRAIN_FAULT` sets for `rank` on `host` (default: this host), if any."""
    found = parse_injections("APP_TRAIN_FAULT", env.get("APP_TRAIN_FAULT", ""), TRAIN_KINDS, TRAIN_EXAMPLE, rank,
                             host or socket.gethostname())
    return Fault(found[0].kind, rank, int(found[0].where[4:])) if found else None


def _train_actions(env: Mapping[str, str], rank: int, host: str | None) -> dict[str, Callable[..., Any]]:
    fault = train_fault(env, rank, host)
    return {fault.point: fault.act} if fault is not None else {}


# The check's faults.

_STAGE = Kind(lambda where: where in SLEEP_STAGES, f"a stage out of {', '.join(SLEEP_STAGES)}")
CHECK_KINDS = {"sleep": _STAGE, "corrupt": Kind(), "version": Kind(), "slow": Kind()}
CHECK_POINTS = ("check.stage", "check.contribution", "check.timed_call", "check.versions")


@dataclass(frozen=True)
class CheckFaults:
    sleep_stage: str = ""
    corrupt: bool = False
    version: bool = False
    slow: bool = False

    def maybe_sleep(self, stage: str, rank: int) -> None:
        if self.sleep_stage == stage:
            print(f"APP_CHECK_FAULT: rank {rank} sleeps forever in stage {stage} (test-only)", file=sys.stderr,
                  flush=True)
            while True:
                time.sleep(3600)


def check_faults(value: str, rank: int, host: str = "") -> CheckFaults:
    """The faults of an `APP_CHECK_FAULT` value that apply to `rank` on `host`; `UsageError` when malformed."""
    found = parse_injections("APP_CHECK_FAULT", value, CHECK_KINDS, CHECK_EXAMPLE, rank, host)
    kinds = {injection.kind for injection in found}
    sleep_stage = next((injection.where for injection in reversed(found) if injection.kind == "sleep"), "")
    return CheckFaults(sleep_stage, "corrupt" in kinds, "version" in kinds, "slow" in kinds)


def _check_actions(env: Mapping[str, str], rank: int, host: str | None) -> dict[str, Callable[..., Any]]:
    active = check_faults(env.get("APP_CHECK_FAULT", ""), rank, host or socket.gethostname())
    actions: dict[str, Callable[..., Any]] = {}
    if active.sleep_stage:
        actions["check.stage"] = lambda value, stage, rank: active.maybe_sleep(stage, rank)
    if active.corrupt:
        actions["check.contribution"] = lambda values: values + 1  # off by one, like a bad link or GPU
    if active.slow:
        actions["check.timed_call"] = lambda value: time.sleep(SLOW_S)
    if active.version:
        actions["check.versions"] = lambda versions: {**versions, "torch": versions["torch"] + "+fault"}
    return actions


# The points.

T = TypeVar("T")

#: The armed points of this process, by name: empty in a real run.
_armed: dict[str, Callable[..., Any]] = {}
_TOOLS = {"train": (TRAIN_POINTS, _train_actions), "check": (CHECK_POINTS, _check_actions)}


def arm(tool: str, env: Mapping[str, str], rank: int, host: str | None = None) -> list[str]:
    """Read `tool`'s variable (`VARIABLES`) from `env` once for this run and arm the points of the faults it
    sets for `rank` on `host` (default: this host), every other point of the tool disarmed; the points armed.
    `UsageError` on a malformed value. In a real run (the variable unset or empty) it reads nothing more, not even
    this host's name."""
    points, actions_of = _TOOLS[tool]
    actions = actions_of(env, rank, host) if env.get(VARIABLES[tool]) else {}
    for name in points:
        _armed.pop(name, None)
    _armed.update(actions)
    return sorted(actions)


def point(name: str, value: T = None, **where: Any) -> T:  # type: ignore[assignment]
    """Where a test may inject a fault: `value` back untouched unless `name` is armed, else what its action
    makes of it (`action(value, **where)`; an action may also sleep, stop or signal this process)."""
    action = _armed.get(name)
    return value if action is None else action(value, **where)
