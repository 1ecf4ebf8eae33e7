"""`python -m app.diagnose` measured on real users' failure logs: the corpus in tests/diagnose/corpus/.

    python -m bench.diagnose_corpus [--corpus tests/diagnose/corpus] [--markdown BENCHMARKS.md]

Each case is one YAML file: `url` (the public thread), `cause` (the cause the thread established, an
app.diagnose key or a new id for a cause it does not know; `none` for a negative), `resolution` (the answer
that established it, quoted or summarised in one line) and `log` (the lines as the thread quotes them).
Each case is judged once by app.diagnose's public entry, `diagnose_lines`, and counted as one of:
- right: the first finding is the established cause;
- nothing: no finding;
- wrong: a first finding other than the established cause;
- for a negative, clean (no finding) or false (any finding).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app.diagnose import diagnose_lines
from app.diagnose.causes import BY_KEY
from bench.markdown import publish

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "diagnose" / "corpus"
#: The cause of a negative: the run was healthy, or the error is in the user's own code.
NEGATIVE = "none"
KEYS = ("url", "cause", "resolution", "log")
SECTION = "bench.diagnose_corpus"


class CorpusError(Exception):
    """A case file that cannot be read as a case: the message names the file and what it lacks."""


@dataclass(frozen=True)
class Case:
    name: str
    url: str
    cause: str
    resolution: str
    log: str


@dataclass(frozen=True)
class Verdict:
    case: Case
    outcome: str
    """right, nothing or wrong for a failure; clean or false for a negative."""
    said: list[str]
    """The keys app.diagnose named, most likely first."""


@dataclass
class Tally:
    verdicts: list[Verdict] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(v.outcome == outcome for v in self.verdicts)

    @property
    def right(self) -> int:
        return self.count("right")

    @property
    def nothing(self) -> int:
        return self.count("nothing")

    @property
    def wrong(self) -> int:
        return self.count("wrong")

    @property
    def false_causes(self) -> int:
        return self.count("false")

    @property
    def negatives(self) -> int:
        return sum(v.case.cause == NEGATIVE for v in self.verdicts)

    @property
    def failures(self) -> int:
        return len(self.verdicts) - self.negatives


def load_cases(directory: Path) -> list[Case]:
    """Every *.yaml in `directory`, sorted by name (CorpusError for a file that is not a whole case)."""
    cases = []
    for path in sorted(directory.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as error:
            raise CorpusError(f"{path}: not YAML ({error})") from None
        if not isinstance(data, dict):
            raise CorpusError(f"{path}: a case is a mapping with the keys {', '.join(KEYS)}")
        missing = [key for key in KEYS if not isinstance(data.get(key), str) or not data[key].strip()]
        if missing:
            raise CorpusError(f"{path}: no {', '.join(missing)}; a case needs {', '.join(KEYS)}, e.g. "
                              "url: https://github.com/NVIDIA/nccl/issues/342")
        cases.append(Case(path.stem, data["url"], data["cause"], data["resolution"], data["log"]))
    if not cases:
        raise CorpusError(f"{directory}: no *.yaml cases")
    return cases


def judge(case: Case) -> Verdict:
    said = [finding.key for finding in diagnose_lines(case.log.splitlines())]
    if case.cause == NEGATIVE:
        return Verdict(case, "false" if said else "clean", said)
    if not said:
        return Verdict(case, "nothing", said)
    return Verdict(case, "right" if said[0] == case.cause else "wrong", said)


def measure(cases: Sequence[Case]) -> Tally:
    return Tally([judge(case) for case in cases])


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def report(tally: Tally, command: str) -> str:
    failures = tally.failures
    lines = [
        "## app.diagnose on real users' failure logs",
        "",
        f"Command: `{command}`. {len(tally.verdicts)} cases from public threads (tests/diagnose/corpus/, each with "
        f"its URL and the cause the thread established): {failures} failures, {tally.negatives} negatives (healthy "
        "runs with alarming lines, errors in the user's own code). A failure whose cause app.diagnose does not "
        "know yet counts as missed. Most causes were written from these same logs' sources (the programs' "
        "messages, cited in app/diagnose/causes.py), so this is recall on the logs the rules were shaped by; a "
        "log added later, before any rule changes, is the fair test.",
        "",
        "| failures | right cause first | recognised nothing | wrong cause | negatives | false cause on a negative |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {failures} | {tally.right} ({_percent(tally.right, failures)}) | {tally.nothing} | {tally.wrong} "
        f"| {tally.negatives} | {tally.false_causes} |",
        "",
        "| cause | known to app.diagnose | cases | right first | nothing | wrong |",
        "|---|---|---:|---:|---:|---:|",
    ]
    by_cause: dict[str, list[Verdict]] = {}
    for verdict in tally.verdicts:
        if verdict.case.cause != NEGATIVE:
            by_cause.setdefault(verdict.case.cause, []).append(verdict)
    for cause in sorted(by_cause, key=lambda c: (-len(by_cause[c]), c)):
        verdicts = by_cause[cause]
        counts = [sum(v.outcome == outcome for v in verdicts) for outcome in ("right", "nothing", "wrong")]
        known = "yes" if cause in BY_KEY else "no"
        lines.append(f"| {cause} | {known} | {len(verdicts)} | {' | '.join(map(str, counts))} |")
    lines += ["", "Causes still missed (cause: the cases app.diagnose did not name it first, with what it said):", ""]
    missed = {cause: [v for v in verdicts if v.outcome != "right"] for cause, verdicts in by_cause.items()}
    for cause in sorted(c for c, verdicts in missed.items() if verdicts):
        cases = ", ".join(f"{v.case.name} ({', '.join(v.said) or 'nothing'})" for v in missed[cause])
        lines.append(f"- {cause}: {cases}")
    false = [v for v in tally.verdicts if v.outcome == "false"]
    lines += ["", "False cause on a negative: " + (", ".join(f"{v.case.name} ({', '.join(v.said)})" for v in false)
                                                    or "none") + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a directory of case files (*.yaml)")
    parser.add_argument("--markdown", type=Path, help="write this section into the file (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(args.corpus)
    except CorpusError as error:
        print(f"bench.diagnose_corpus: error: {error}", file=sys.stderr)
        return 2
    command = "python -m bench.diagnose_corpus"
    if args.corpus != CORPUS:
        command += f" --corpus {args.corpus}"
    publish(report(measure(cases), command), args.markdown, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
