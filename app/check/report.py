"""Check results and the printed report: a table of checks, a table per collective scope, the verdict last.

A `Check` is one line of the report: OK / WARN / FAIL, a one-line detail and, for WARN and FAIL, a
remedy that says which variable or setting to change. Each check belongs to a stage; the verdict's
exit code is that of the first stage (in `STAGES` order) with a FAIL, because later failures are
usually consequences of earlier ones (a wrong interface makes the rendezvous fail, not the reverse).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from app.check.scheduler_words import check_job_example
from app.host.common import exitcodes
from app.host.common.replace_file import replacing

OK, WARN, FAIL = "OK", "WARN", "FAIL"
#: Version of the `--json` document; a key renamed or removed raises it (docs/check.md, "Reading the report").
SCHEMA_VERSION = 1

#: Stages in the order they run, each with the exit code its FAIL produces.
STAGES: dict[str, int] = {
    "usage": exitcodes.USAGE,
    "preflight": exitcodes.PREFLIGHT,
    "rendezvous": exitcodes.RENDEZVOUS,
    "consistency": exitcodes.PREFLIGHT,
    "deadline": exitcodes.TIMEOUT,
    "correctness": exitcodes.WRONG_RESULTS,
    "bandwidth": exitcodes.SLOW,
}


@dataclass
class Check:
    """One result: `name` (e.g. 'network: NCCL_SOCKET_IFNAME'), status, detail, remedy (WARN/FAIL)."""

    name: str
    status: str
    detail: str
    remedy: str = ""
    stage: str = "preflight"
    where: str = ""
    """The node or rank the result is about ('' for the whole job)."""
    nodes: list[str] = field(default_factory=list)
    """The nodes a FAIL blames (their hostnames go to --exclude-file); empty when no node is to blame."""

    def __post_init__(self) -> None:
        if self.status not in (OK, WARN, FAIL):
            raise ValueError(f"status must be OK, WARN or FAIL, got {self.status!r}")
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Check:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class BandwidthRow:
    """One line of a nccl-tests-style table."""

    collective: str
    size: int
    count: int
    dtype: str
    redop: str
    root: int
    time_us: float
    algbw: float
    busbw: float
    wrong: int


@dataclass
class Report:
    """Everything the check found; `--json` writes `to_dict()`."""

    checks: list[Check] = field(default_factory=list)
    tables: dict[str, list[BandwidthRow]] = field(default_factory=dict)
    """Scope key ('intra:host1', 'inter', 'all') -> rows."""
    titles: dict[str, str] = field(default_factory=dict)
    """Scope key -> its title for people ('within node host1 (4 ranks)', 'all ranks (8)')."""
    thresholds: dict[str, float] = field(default_factory=dict)
    """Scope kind ('intra', 'inter', 'all') -> minimum all_reduce busbw (GB/s) the check applied."""
    info: dict[str, Any] = field(default_factory=dict)
    """Facts recorded for the reader (launcher, world size, topology matrix, NCCL transports...)."""

    def add(self, check: Check) -> Check:
        self.checks.append(check)
        return check

    def extend(self, checks: list[Check]) -> None:
        self.checks.extend(checks)

    def failed(self, stage: str | None = None) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL and (stage is None or c.stage == stage)]

    def nodes_to_exclude(self) -> list[str]:
        """Hostnames of the nodes a FAIL blames. When every node of a multi-node job is blamed the job's
        own set-up is the likelier cause (a wrong setting everywhere), and no node is listed."""
        blamed = sorted({_hostname(n) for c in self.checks if c.status == FAIL for n in c.nodes})
        every = sorted({_hostname(n) for n in self.info.get("nodes", {}).values()})
        return [] if len(every) > 1 and blamed == every else blamed

    def exit_code(self) -> int:
        for stage, code in STAGES.items():
            if self.failed(stage):
                return code
        return exitcodes.OK

    def verdict(self) -> str:
        code = self.exit_code()
        warns = sum(c.status == WARN for c in self.checks)
        if code == exitcodes.OK:
            tail = f" ({warns} warning{'s' * (warns != 1)} above)" if warns else ""
            if self.info.get("mode") == "node-only":
                return f"VERDICT: PASS{tail}: this node's checks passed (--node-only). exit code 0"
            return f"VERDICT: PASS{tail}: {self._what_passed()}. exit code 0"
        first = next(c for c in self.checks if c.status == FAIL and STAGES[c.stage] == code)
        return (
            f"VERDICT: FAIL ({exitcodes.DESCRIPTIONS[code]}): {first.name}: {first.detail}. "
            f"Fix: {first.remedy or 'see the FAIL lines above'}. exit code {code}"
        )

    def _what_passed(self) -> str:
        """What a PASS vouches for: one process measures nothing between ranks, one node nothing across
        nodes, and saying "these nodes" then would send a user to a multi-node job on the word of neither."""
        ranks = self.info.get("nodes", {})
        if len(ranks) == 1:
            return ("this process's checks passed, but one process measured nothing between ranks or nodes: "
                    f"start one rank per GPU on every node (e.g. {check_job_example()}) to test the fabric")
        if len(set(ranks.values())) == 1:
            return "the ranks of one node can train together; nothing was measured across nodes"
        return "these nodes can train together"

    def title(self, key: str) -> str:
        return self.titles.get(key, key)

    def threshold(self, key: str) -> float:
        return self.thresholds.get(key.split(":")[0], 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The `--json` document, schema `SCHEMA_VERSION` (docs/check.md, "Reading the report")."""
        return {
            "schema_version": SCHEMA_VERSION,
            "exit_code": self.exit_code(),
            "verdict": self.verdict(),
            "checks": [dataclasses.asdict(c) for c in self.checks],
            "scopes": [
                {"scope": key, "kind": key.split(":")[0], "node": key.partition(":")[2] or None,
                 "title": self.title(key), "min_busbw_gbps": self.threshold(key),
                 "avg_busbw_gbps": average_busbw(rows), "rows": [dataclasses.asdict(r) for r in rows]}
                for key, rows in self.tables.items()
            ],
            "info": self.info,
        }

    def write_json(self, path: str) -> None:
        with replacing(path) as new, open(new, "w") as file:  # a link planted at the path is replaced, not followed
            json.dump(self.to_dict(), file, indent=2, sort_keys=False)
            file.write("\n")


def format_checks(checks: list[Check]) -> str:
    """Aligned table: status, check, where, detail; a remedy line under each WARN/FAIL."""
    if not checks:
        return "(no checks)"
    name_w = min(max(len(c.name) for c in checks), 36)
    where_w = min(max((len(c.where) for c in checks), default=0), 24)
    lines = [f"{'status':<6}  {'check':<{name_w}}  {'where':<{where_w}}  detail"]
    for c in checks:
        lines.append(f"{c.status:<6}  {c.name:<{name_w}}  {c.where:<{where_w}}  {c.detail}")
        if c.status != OK and c.remedy:
            lines.append(f"{'':<6}  {'':<{name_w}}  {'':<{where_w}}  -> {c.remedy}")
    return "\n".join(lines)


def average_busbw(rows: list[BandwidthRow], collective: str = "all_reduce") -> float | None:
    """nccl-tests' "Avg bus bandwidth": the mean busbw over the sweep's sizes (of one collective)."""
    values = [r.busbw for r in rows if r.collective == collective]
    return sum(values) / len(values) if values else None


def format_table(rows: list[BandwidthRow]) -> str:
    """The nccl-tests layout: `#` header lines, then size count type redop root time(us) algbw busbw (GB/s)
    #wrong per row, and an "Avg bus bandwidth" line (all_reduce) that nccl-tests' parsers read."""
    head = (
        f"#{'collective':>13} {'size':>12} {'count':>11} {'type':>6} {'redop':>6} {'root':>5} "
        f"{'time':>10} {'algbw':>8} {'busbw':>8} {'#wrong':>7}"
    )
    lines = [
        head,
        f"#{'':>13} {'(B)':>12} {'(elements)':>11} {'':>6} {'':>6} {'':>5} {'(us)':>10} {'(GB/s)':>8} "
        f"{'(GB/s)':>8}",
    ]
    for r in rows:
        lines.append(
            f"{r.collective:>14} {r.size:>12} {r.count:>11} {r.dtype:>6} {r.redop:>6} {r.root:>5} "
            f"{r.time_us:>10.1f} {r.algbw:>8.3f} {r.busbw:>8.3f} {r.wrong:>7}"
        )
    average = average_busbw(rows)
    if average is not None:
        sizes = sum(r.collective == "all_reduce" for r in rows)
        lines.append(f"# Avg bus bandwidth    : {average:.4f} (all_reduce, GB/s, mean of {sizes} sizes)")
    return "\n".join(lines)


def format_report(report: Report) -> str:
    parts = ["== app.check: node and job checks ==", format_checks(report.checks)]
    for key, rows in report.tables.items():
        parts += ["#", f"# == collectives: {report.title(key)} ==", format_table(rows)]
    for key in ("nccl_tests", "nccl_transports", "topology"):
        if report.info.get(key):
            parts += ["", f"== {key.replace('_', ' ')} ==", str(report.info[key]).rstrip()]
    parts += ["", report.verdict()]
    return "\n".join(parts)


def _hostname(node: str) -> str:
    """'gpu01' from 'gpu01' or from 'gpu01/agent1' (several torchrun agents emulating nodes on one host)."""
    return node.split("/", 1)[0]
