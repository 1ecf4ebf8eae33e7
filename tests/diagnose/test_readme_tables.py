"""The documentation's symptom tables (`| symptom | cause | fix |`, README.md and docs/) against app.diagnose's one
table of causes.

Tested, not generated (see app/host/diagnose/__init__.py): every row whose symptom is a log line is claimed by a rule
(`Cause.readme`), that rule recognises the line, and each command or setting the row's fix quotes in backticks
appears in the rule's fix (a fix without backticks must appear as a whole)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.host.diagnose import diagnose_lines
from app.host.diagnose.causes import CAUSES

REPO = Path(__file__).resolve().parents[2]
#: Where the tables live: the README and every page of docs/ (the site tables are in docs/job-scripts.md)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DIAGNOSE_PAGE = REPO / "docs" / "diagnose.md"
#: Rows whose symptom is not a line of a job's log, and why.
NOT_LOG_LINES = {
    "job pending with `(Resources)`": "squeue's reason column, not a line of the job's output",
    "no snapshot before the walltime": "something missing, not a line",
}


def symptom_rows() -> list[tuple[str, str]]:
    rows, in_table = [], False
    for line in "\n".join(page.read_text() for page in PAGES).splitlines():
        if line.startswith("| symptom | cause | fix |"):
            in_table = True
            continue
        if not in_table or not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set(cells[0]) <= set("-") or len(cells) < 3:
            continue
        rows.append((cells[0], cells[2]))
    return rows


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def _example_line(symptom: str) -> str:
    """The first quoted message of a symptom cell, as a log would print it (`...` stands for any text)."""
    return re.findall(r"`([^`]+)`", symptom)[0].replace("...", "x")


ROWS = [(symptom, fix) for symptom, fix in symptom_rows() if symptom not in NOT_LOG_LINES]


def test_the_readme_has_symptom_tables() -> None:
    assert len(ROWS) >= 10


@pytest.mark.parametrize(("symptom", "fix"), ROWS, ids=[s[:40] for s, _ in ROWS])
def test_each_readme_symptom_is_recognised_with_the_readme_fix(symptom: str, fix: str) -> None:
    claiming = [c for c in CAUSES if any(text in symptom for text in c.readme)]
    assert len(claiming) == 1, f"no single rule in app/host/diagnose/causes.py names the README row {symptom!r}"
    [cause] = claiming
    line = _example_line(symptom)
    assert any(re.search(p, line) for p in cause.patterns), f"{cause.key} does not match {line!r}"
    quoted = re.findall(r"`([^`]+)`", fix)
    wanted = quoted or [fix]
    for text in wanted:
        assert _normal(text) in _normal(cause.fix), f"{cause.key}: the README's fix says {text!r}"


def test_rules_that_claim_a_row_are_recognised_in_a_log_without_context() -> None:
    """A row's message alone is enough for the rules that need no context (the rendezvous rules do)."""
    for symptom, _ in ROWS:
        [cause] = [c for c in CAUSES if any(text in symptom for text in c.readme)]
        if cause.applies is None:
            assert cause.key in [f.key for f in diagnose_lines([_example_line(symptom)])], symptom


def test_the_diagnose_page_lists_every_cause_it_recognises() -> None:
    page = DIAGNOSE_PAGE.read_text()
    missing = [cause.key for cause in CAUSES if f"`{cause.key}`" not in page]
    assert not missing, f"docs/diagnose.md does not list {missing}"
