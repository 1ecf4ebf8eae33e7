"""The messages ranks exchange through the rendezvous store during a check: every key here, every record
a type. Records travel as JSON (`app.check.exchange`), never pickled.

Every record read back is checked (types, ranks within the world, sizes; `exchange.get_checked`): a damaged or
forged one reads as absent, is logged once, and names no node.

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
from app.common.exchange import bounded_int, require, text

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
    def from_json(cls, data: dict[str, Any], rank: int | None = None) -> NodeReport:
        """The report; with `rank` (read from node/<rank>), one whose facts are that rank's, of the types the
        judges read (else `exchange.Malformed`)."""
        require(isinstance(data, dict) and isinstance(data.get("facts"), dict), "no facts")
        require(isinstance(data.get("checks"), list) and len(data["checks"]) <= MAX_CHECKS,
                f"no list of at most {MAX_CHECKS} checks")
        if rank is not None:
            _require_facts(data["facts"], rank)
        return cls(data["facts"], [_check(c) for c in data["checks"]])


@dataclass
class Plan:
    go: bool
    code: int
    nodes: list[str]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], world_size: int | None = None) -> Plan:
        """The plan, or `exchange.Malformed` unless it has exactly its fields, of their types, a node per rank."""
        require(isinstance(data, dict) and set(data) == {"go", "code", "nodes"}, "not go, code and nodes")
        require(isinstance(data["go"], bool), "go is not true or false")
        nodes = data["nodes"]
        require(isinstance(nodes, list) and (world_size is None or len(nodes) == world_size),
                f"nodes is not a list of {world_size} names")
        return cls(data["go"], bounded_int(data["code"], 0, 255), [text(node, MAX_NAME) for node in nodes])


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


#: Bounds on what a record read back may hold: a node name (a hostname is at most 255 bytes), a check's text,
#: a node's number of checks.
MAX_NAME = 255
MAX_TEXT = 4096
MAX_CHECKS = 512


def _require_facts(facts: dict[str, Any], rank: int) -> None:
    """The facts of node/<rank>, as the judges read them (runner, consistency, node_names)."""
    require(facts.get("rank") == rank and not isinstance(facts.get("rank"), bool), f"not rank {rank}'s report")
    text(facts.get("hostname"), MAX_NAME)
    text(facts.get("machine", ""), MAX_NAME)
    text(facts.get("launcher_node", ""), MAX_NAME)
    for part in ("versions", "env"):
        require(isinstance(facts.get(part), dict) and len(facts[part]) <= MAX_CHECKS, f"{part} is not a mapping")
    require(all(isinstance(v, str) for v in facts["env"].values()), "env holds a value that is not text")
    require(all(isinstance(v, str | int | float | None) and len(str(v)) <= MAX_TEXT
                for v in facts["versions"].values()), "versions holds a value that is not a version")
    bounded_int(facts.get("gpu_count"), 0, 1024)


def _check(data: Any) -> Check:
    require(isinstance(data, dict), "a check is not a mapping")
    for name in ("name", "status", "detail", "remedy", "stage", "where"):
        if name in data:
            text(data[name], MAX_TEXT)
    require(isinstance(data.get("nodes", []), list) and all(isinstance(n, str) for n in data.get("nodes", [])),
            "a check's nodes are not names")
    return Check.from_dict(data)  # ValueError on a status or stage it does not know


def send(store: dist.Store, key: str, record: NodeReport | Plan | RankResults) -> None:
    exchange.put(store, key, record.to_json())


def receive_node_reports(store: dist.Store, world_size: int) -> list[NodeReport | None]:
    """Every rank's node report, in one request (None for one that is malformed)."""
    keys = [node_key(r) for r in range(world_size)]
    return exchange.get_many_checked(store, keys, lambda rank, data: NodeReport.from_json(data, rank))


def receive_plan(store: dist.Store, world_size: int) -> Plan | None:
    """Rank 0's plan, None when malformed."""
    return exchange.get_checked(store, PLAN, lambda data: Plan.from_json(data, world_size))


def receive_code(store: dist.Store, key: str) -> int | None:
    """An exit code rank 0 published (pg_plan, verdict), None when it is not one."""
    return exchange.get_checked(store, key, lambda data: bounded_int(data, 0, 255))


def receive_all_results(store: dist.Store, world_size: int) -> list[RankResults | None]:
    """Every rank's results, in one request (None for one that is malformed)."""
    keys = [result_key(r) for r in range(world_size)]
    return exchange.get_many_checked(store, keys, lambda rank, data: RankResults.from_json(data))
