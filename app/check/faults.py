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
`install` reads it once per process; the stages reach the active faults through the hooks below
(`hang_if_asked`, `contribution`, `slow_down`, `reported_versions`), so no production signature carries a fault.
"""

from __future__ import annotations

import socket
import sys
import time
from dataclasses import dataclass

import torch

from app.common.faults import Kind, parse_injections

KINDS = ("sleep", "corrupt", "version", "slow")
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


_active = Faults()


def install(value: str, rank: int) -> Faults:
    """Make the faults `value` names for `rank` (on this host) the active ones (`UsageError` on a malformed spec)."""
    global _active
    _active = parse_faults(value, rank, socket.gethostname())
    return _active


def hang_if_asked(stage: str, rank: int) -> None:
    _active.maybe_sleep(stage, rank)


def contribution(values: torch.Tensor) -> torch.Tensor:
    """This rank's data for a correctness test: off by one under `corrupt@rankN`, like a bad link or GPU."""
    return values + 1 if _active.corrupt else values


def slow_down() -> None:
    """Before each timed call: a pause under `slow@...`, which the rank's peers wait for."""
    if _active.slow:
        time.sleep(SLOW_S)


def reported_versions(versions: dict[str, str]) -> dict[str, str]:
    """The versions this rank reports: torch `<real>+fault` under `version@rankN`, like another image."""
    return {**versions, "torch": versions["torch"] + "+fault"} if _active.version else versions
