"""Reading logs and matching them against the table in app/diagnose/causes.py: pure functions, no output.

`diagnose(paths)` reads files and run directories; `diagnose_lines(lines)` judges lines already in memory
(tests, and job-script tests that hold a failed job's output). Both return findings, most likely first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.diagnose.causes import CAUSES, Cause, LogView

#: Files read from a run directory (runs/<jobid>/): the trainer's summary and history, and any job output in it.
RUN_DIR_FILES = ("summary.json", "history.jsonl", "*.out", "*.err", "*.log")
#: Lines a finding quotes; the rest are counted.
MAX_EVIDENCE = 3
#: Supporting lines a finding quotes.
MAX_SUPPORT = 2


class UnreadableInput(Exception):
    """A path that cannot be read: the message says which and what to give instead."""


@dataclass(frozen=True)
class Line:
    source: str
    number: int
    text: str

    def where(self) -> str:
        return f"{self.source}:{self.number}"


@dataclass(frozen=True)
class Finding:
    key: str
    cause: str
    fix: str
    evidence: tuple[Line, ...]
    """The lines that show the cause."""
    weight: int
    support: tuple[Line, ...] = ()
    """Lines that support the reading (the job's node count, the fabric), quoted after the evidence."""


def read_inputs(paths: Sequence[str | Path]) -> list[Line]:
    """Every line of every file; a directory stands for the run-directory files in it (RUN_DIR_FILES)."""
    lines: list[Line] = []
    for path in map(Path, paths):
        if path.is_dir():
            files = sorted({f for pattern in RUN_DIR_FILES for f in path.glob(pattern) if f.is_file()})
            if not files:
                raise UnreadableInput(f"{path} is a directory without {', '.join(RUN_DIR_FILES)}; give a job's "
                                      "output file (ddp-<jobid>.out, ddp.o<jobid>) or a run directory (runs/<jobid>)")
        else:
            files = [path]
        for file in files:
            lines += _read_file(file)
    return lines


def _read_file(path: Path) -> list[Line]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [Line(str(path), number, text.rstrip("\n")) for number, text in enumerate(handle, start=1)]
    except OSError as error:
        raise UnreadableInput(f"cannot read {path}: {error.strerror or error}; give a job's output file "
                              "(ddp-<jobid>.out, ddp.o<jobid>) or a run directory (runs/<jobid>)") from None


def diagnose(paths: Sequence[str | Path]) -> list[Finding]:
    """The causes the logs at `paths` show, most likely first (UnreadableInput for a path that cannot be read)."""
    return diagnose_lines(read_inputs(paths))


def diagnose_lines(lines: Iterable[Line | str], causes: Sequence[Cause] = CAUSES) -> list[Finding]:
    """The causes `lines` show, most likely first: by the cause's weight, then by where it first shows."""
    lines = [line if isinstance(line, Line) else Line("<log>", number, line)
             for number, line in enumerate(lines, start=1)]
    log = LogView([line.text for line in lines])
    claimed: set[int] = set()
    found: list[tuple[int, int, Finding]] = []
    # The generic "job script stopped" rule comes last and skips lines a specific rule has explained.
    for cause in sorted(causes, key=lambda c: c.key == "job-script-error"):
        if cause.applies is not None and not cause.applies(log):
            continue
        patterns = [re.compile(p) for p in cause.patterns]
        hits: list[tuple[int, re.Match[str]]] = []
        for index, line in enumerate(lines):
            if cause.key == "job-script-error" and index in claimed:
                continue
            match = next((m for p in patterns if (m := p.search(line.text))), None)
            if match:
                hits.append((index, match))
        if not hits:
            continue
        claimed.update(index for index, _ in hits)
        evidence = tuple(lines[index] for index, _ in hits)
        support = _support(cause, lines, {index for index, _ in hits})
        fields = _fields(hits[0][1], evidence)
        finding = Finding(cause.key, _fill(cause.cause, fields), _fill(cause.fix, fields), evidence, cause.weight,
                          support)
        found.append((-cause.weight, hits[0][0], finding))
    return [finding for *_, finding in sorted(found, key=lambda item: (item[0], item[1]))]


def _support(cause: Cause, lines: Sequence[Line], shown: set[int]) -> tuple[Line, ...]:
    patterns = [re.compile(p, re.IGNORECASE) for p in cause.context]
    picked = [line for index, line in enumerate(lines)
              if index not in shown and any(p.search(line.text) for p in patterns)]
    return tuple(picked[:MAX_SUPPORT])


def _fields(match: re.Match[str], evidence: Sequence[Line]) -> dict[str, str]:
    fields = {name: value for name, value in match.groupdict().items() if value is not None}
    ranks = sorted({int(r) for line in evidence for r in re.findall(r"\[Rank (\d+)\]", line.text)})
    fields["ranks"] = ", ".join(map(str, ranks)) if ranks else "not named in the log"
    return fields


def _fill(template: str, fields: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: fields.get(m.group(1), m.group(0)), template)


def format_findings(findings: Sequence[Finding], lines_read: int, sources: Sequence[str]) -> str:
    """The report for people: each cause, the lines that show it, and the fix."""
    if not findings:
        return (f"nothing recognised in {lines_read} line(s) of {', '.join(sources)}.\n"
                "`python -m app.diagnose --list` shows what it knows; a rerun with NCCL_DEBUG=INFO (and "
                "TORCH_DISTRIBUTED_DEBUG=DETAIL) logs more of what NCCL and torch saw.")
    out = []
    for rank, finding in enumerate(findings, start=1):
        out.append(f"{rank}. {finding.cause} [{finding.key}]")
        for line in finding.evidence[:MAX_EVIDENCE]:
            out.append(f"   {line.where()}: {_clip(line.text.strip())}")
        if len(finding.evidence) > MAX_EVIDENCE:
            out.append(f"   ... and {len(finding.evidence) - MAX_EVIDENCE} more line(s)")
        for line in finding.support:
            out.append(f"   {line.where()}: {_clip(line.text.strip())}  (context)")
        out.append(f"   fix: {finding.fix}")
    return "\n".join(out)


def _clip(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
