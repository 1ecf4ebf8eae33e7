"""The messages ranks exchange through the rendezvous store during a check: every key here, every record
a type. Records travel as JSON (`app.check.exchange`), never pickled.

    node/<rank>      NodeReport    every rank: its node checks and facts            (preflight)
    plan             Plan          rank 0: go or stop, each rank's node name
    pg/<rank>        str           every rank: its process-group error, '' when it joined
    pg_plan          int           rank 0: the exit code so far (0: go on to the collectives)
    result/<rank>    RankResults   every rank: what it measured, per scope
    verdict          int           rank 0: the exit code every rank ends with
    ack/<rank>       int           every other rank: it read the verdict (rank 0 may host the store)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import torch.distributed as dist

from app.check.collectives import Scope
from app.check.report import Check
from app.common import exchange

#: The check's keys live under this prefix, apart from the process group's own keys in the same store.
PREFIX = "app.check/"
PLAN = "plan"
PG_PLAN = "pg_plan"
VERDICT = "verdict"


def node_key(rank: int) -> str:
    return f"node/{rank}"


def pg_key(rank: int) -> str:
    return f"pg/{rank}"


def result_key(rank: int) -> str:
    return f"result/{rank}"


def ack_key(rank: int) -> str:
    return f"ack/{rank}"


@dataclass
class NodeReport:
    facts: dict[str, Any]
    checks: list[Check]

    def to_json(self) -> dict[str, Any]:
        return {"facts": self.facts, "checks": [dataclasses.asdict(c) for c in self.checks]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeReport:
        return cls(data["facts"], [Check.from_dict(c) for c in data["checks"]])


@dataclass
class Plan:
    go: bool
    code: int
    nodes: list[str]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        return cls(**data)


@dataclass(frozen=True)
class Measurement:
    """One collective at one size as one rank saw it: the slowest rank's time sets the table's."""

    collective: str
    size: int
    count: int
    seconds: float
    wrong: int


@dataclass
class RankResults:
    """Everything one rank measured: rows per scope key, the ranks whose data arrived wrong per
    'scope collective', the scopes themselves (rank 0's only: every rank plans the same scopes, and a list
    of every node's scopes from every rank was N^2 bytes, 700 MB at 4096 ranks), and (GPU) its NCCL log
    summary."""

    scopes: list[Scope]
    rows: dict[str, list[Measurement]] = field(default_factory=dict)
    bad_sources: dict[str, list[int]] = field(default_factory=dict)
    nccl: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "scopes": [dataclasses.asdict(s) for s in self.scopes],
            "rows": {key: [dataclasses.asdict(m) for m in rows] for key, rows in self.rows.items()},
            "bad_sources": self.bad_sources,
            "nccl": self.nccl,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RankResults:
        return cls(
            scopes=[Scope(s["key"], s["title"], tuple(s["ranks"])) for s in data["scopes"]],
            rows={key: [Measurement(**m) for m in rows] for key, rows in data["rows"].items()},
            bad_sources={key: list(ranks) for key, ranks in data["bad_sources"].items()},
            nccl=data.get("nccl"),
        )


def send(store: dist.Store, key: str, record: NodeReport | Plan | RankResults) -> None:
    exchange.put(store, key, record.to_json())


def receive_node_reports(store: dist.Store, world_size: int) -> list[NodeReport]:
    """Every rank's node report, in one request."""
    keys = [node_key(r) for r in range(world_size)]
    return [NodeReport.from_json(data) for data in exchange.get_many(store, keys)]


def receive_plan(store: dist.Store) -> Plan:
    return Plan.from_json(exchange.get(store, PLAN))


def receive_all_results(store: dist.Store, world_size: int) -> list[RankResults]:
    """Every rank's results, in one request."""
    keys = [result_key(r) for r in range(world_size)]
    return [RankResults.from_json(data) for data in exchange.get_many(store, keys)]
