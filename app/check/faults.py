"""TEST-ONLY fault injection, so the test suite can prove the check catches each failure for real.

`APP_CHECK_FAULT=kind@TARGET[:stage][,...]`, for example `sleep@rank1:collectives`; TARGET is `rankN`
(one rank) or `host=NAME` (every rank on that host: a bad node, wherever the scheduler puts the ranks);
the syntax is app/common/faults.py's, shared with the trainer's `APP_TRAIN_FAULT`:

- `sleep@rankN:STAGE`  rank N stops answering (sleeps forever) when it enters STAGE
                       (`preflight`, `rendezvous` or `collectives`), like a hung process.
- `corrupt@rankN`      rank N adds 1 to its contribution in the correctness stage, like a bad link/GPU.
- `version@rankN`      rank N reports torch version `<real>+fault`, like a node running another image.
- `slow@rankN`         rank N waits SLOW_S before each timed collective call, like a node on a bad link.

Nothing else reads this variable; users never need it. Each injection prints a line to stderr.
`install` reads it once per process and arms the points of the registry (app/common/faults.py) that the
stages pass through the hooks below (`hang_if_asked`, `contribution`, `slow_down`, `reported_versions`),
each one `fault_point` that is inert unless armed, so no production signature carries a fault.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from app.common.faults import Kind, arm, fault_point, parse_injections

SLOW_S = 0.05
SLEEP_STAGES = ("preflight", "rendezvous", "collectives")
EXAMPLE = "sleep@rank1:collectives"


@dataclass(frozen=True)
class Faults:
    sleep_stage: str = ""
    corrupt: bool = False
    version: bool = False
    slow: bool = False

    def maybe_sleep(self, stage: str, rank: int) -> None:
        if self.sleep_stage == stage:
            print(
                f"APP_CHECK_FAULT: rank {rank} sleeps forever in stage {stage} (test-only)",
                file=sys.stderr,
                flush=True,
            )
            while True:
                time.sleep(3600)


_STAGE = Kind(lambda where: where in SLEEP_STAGES, f"a stage out of {', '.join(SLEEP_STAGES)}")
KINDS = {"sleep": _STAGE, "corrupt": Kind(), "version": Kind(), "slow": Kind()}


def parse_faults(value: str, rank: int, host: str = "") -> Faults:
    """The faults that apply to `rank` on `host`; raises `UsageError` on a malformed spec."""
    found = parse_injections("APP_CHECK_FAULT", value, KINDS, EXAMPLE, rank, host)
    kinds = {injection.kind for injection in found}
    sleep_stage = next((injection.where for injection in reversed(found) if injection.kind == "sleep"), "")
    return Faults(sleep_stage, "corrupt" in kinds, "version" in kinds, "slow" in kinds)


POINTS = ("check.stage", "check.contribution", "check.timed_call", "check.versions")


def install(value: str, rank: int) -> Faults:
    """Arm the points of the faults `value` names for `rank` (on this host), every other check point disarmed
    (`UsageError` on a malformed spec)."""
    active = parse_faults(value, rank, socket.gethostname())
    actions: dict[str, Callable[..., Any]] = {}
    if active.sleep_stage:
        actions["check.stage"] = lambda value, stage, rank: active.maybe_sleep(stage, rank)
    if active.corrupt:
        actions["check.contribution"] = lambda values: values + 1  # off by one, like a bad link or GPU
    if active.slow:
        actions["check.timed_call"] = lambda value: time.sleep(SLOW_S)
    if active.version:
        actions["check.versions"] = lambda versions: {**versions, "torch": versions["torch"] + "+fault"}
    arm(POINTS, actions)
    return active


def hang_if_asked(stage: str, rank: int) -> None:
    """On entering a stage: sleeps forever under `sleep@rankN:STAGE`, like a hung process."""
    fault_point("check.stage", stage=stage, rank=rank)


def contribution(values: torch.Tensor) -> torch.Tensor:
    """This rank's data for a correctness test: off by one under `corrupt@rankN`."""
    return fault_point("check.contribution", values)


def slow_down() -> None:
    """Before each timed call: a pause under `slow@...`, which the rank's peers wait for."""
    fault_point("check.timed_call")


def reported_versions(versions: dict[str, str]) -> dict[str, str]:
    """The versions this rank reports: torch `<real>+fault` under `version@rankN`, like another image."""
    return fault_point("check.versions", versions)
