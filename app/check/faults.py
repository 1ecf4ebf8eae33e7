"""TEST-ONLY fault injection, so the test suite can prove the check catches each failure for real.

`APP_CHECK_FAULT=kind@TARGET[:stage][,...]`, for example `sleep@rank1:collectives`; TARGET is `rankN`
(one rank) or `host=NAME` (every rank on that host: a bad node, wherever the scheduler puts the ranks):

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

from app.common.errors import UsageError

KINDS = ("sleep", "corrupt", "version", "slow")
SLOW_S = 0.05
SLEEP_STAGES = ("preflight", "rendezvous", "collectives")
EXAMPLE = "APP_CHECK_FAULT=sleep@rank1:collectives"


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


def _targets(target: str, rank: int, host: str) -> bool | None:
    """Whether `target` (rankN or host=NAME) means this process; None when it is malformed."""
    if target.startswith("rank") and target[4:].isdigit():
        return int(target[4:]) == rank
    if target.startswith("host=") and target[5:]:
        return target[5:] == host.split(".")[0]
    return None


def parse_faults(value: str, rank: int, host: str = "") -> Faults:
    """The faults that apply to `rank` on `host`; raises `UsageError` on a malformed spec."""
    sleep_stage, corrupt, version, slow = "", False, False, False
    for item in filter(None, (part.strip() for part in value.split(","))):
        kind, _, rest = item.partition("@")
        target, _, stage = rest.partition(":")
        applies = _targets(target, rank, host)
        if kind not in KINDS or applies is None:
            raise UsageError(f"APP_CHECK_FAULT item {item!r} is not kind@rankN[:stage] or kind@host=NAME[:stage] "
                             f"(test-only); example: {EXAMPLE}")
        if kind == "sleep" and stage not in SLEEP_STAGES:
            raise UsageError(
                f"APP_CHECK_FAULT item {item!r} needs a stage out of {', '.join(SLEEP_STAGES)}; example: {EXAMPLE}"
            )
        if not applies:
            continue
        sleep_stage = stage if kind == "sleep" else sleep_stage
        corrupt = corrupt or kind == "corrupt"
        version = version or kind == "version"
        slow = slow or kind == "slow"
    return Faults(sleep_stage, corrupt, version, slow)


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
