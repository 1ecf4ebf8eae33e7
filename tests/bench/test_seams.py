"""bench/ and tests/ meet at public seams only: a test outside tests/bench imports from bench only the instruments
both use (SHARED; bench imports no test code: tests/test_import_rules.py), bench calls the app by
its public names (a private method it drives in the app's order goes out of step silently when the app changes),
and BENCHMARKS.md is written by one writer (bench/markdown.py), with one kind of marker and one heading a section."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

from tests.trainer_runs import REPO

BENCH = REPO / "bench"
#: The one marker syntax, bench/markdown.py's: `<!-- bench.NAME: begin -->` ... `<!-- bench.NAME: end -->`
MARKER = re.compile(r"<!-- (bench(?:\.\w+)+): (begin|end) -->")


def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _imported_modules(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, node.module or ""))
    return found


#: What the tests and the benchmarks both use: instruments and stand-ins, not benchmarks
SHARED = ("bench.diagnose_cases", "bench.job_world", "bench.read_audit", "bench.slurm_cluster")


def test_no_test_outside_tests_bench_imports_a_benchmark():
    offenders = [f"{path.relative_to(REPO)}:{line} imports {module}"
                 for path in sorted((REPO / "tests").rglob("*.py")) if not path.is_relative_to(REPO / "tests" / "bench")
                 for line, module in _imported_modules(_parsed(path))
                 if module.split(".")[0] == "bench" and module not in SHARED]
    assert not offenders, ("a test imports a benchmark; move what both need to one of bench's shared instruments "
                           f"({', '.join(SHARED)}):\n" + "\n".join(offenders))


def _app_names(tree: ast.Module) -> set[str]:
    """The names a bench module binds to the app's modules and objects."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "app":
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names
                      if alias.name.split(".")[0] == "app"}
    return names


def test_bench_calls_the_app_by_its_public_names_only():
    offenders = []
    for path in sorted(BENCH.glob("*.py")):
        tree = _parsed(path)
        app = _app_names(tree)
        where = f"{path.relative_to(REPO)}"
        offenders += [f"{where}:{node.lineno} imports {alias.name}" for node in ast.walk(tree)
                      if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "app"
                      for alias in node.names if alias.name.startswith("_")]
        # obj._name on anything but the bench's own objects (self, cls): a private name of the app's
        offenders += [f"{where}:{node.lineno} uses .{node.attr}" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr.startswith("_")
                      and not node.attr.startswith("__")
                      and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]
        # module.name = ... on an app module: the app changed behind its back
        offenders += [f"{where}:{node.lineno} assigns {target.value.id}.{target.attr}" for node in ast.walk(tree)
                      if isinstance(node, ast.Assign) for target in node.targets
                      if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                      and target.value.id in app]
    assert not offenders, "\n".join(offenders)


def test_only_the_markdown_writer_knows_how_a_section_is_marked():
    writers = [f"{path.relative_to(REPO)}" for path in sorted(BENCH.glob("*.py"))
               if path.name != "markdown.py" and "<!--" in path.read_text()]
    assert not writers, f"write sections with bench.markdown, not by hand: {writers}"


def test_every_section_of_benchmarks_md_has_the_writers_markers_in_pairs():
    text = (REPO / "BENCHMARKS.md").read_text()
    comments = re.findall(r"<!--.*?-->", text)
    assert [c for c in comments if not MARKER.fullmatch(c)] == []
    marks = [MARKER.fullmatch(c).groups() for c in comments]
    assert marks[0::2] == [(name, "begin") for name, _ in marks[0::2]]
    assert marks[1::2] == [(name, "end") for name, _ in marks[0::2]]
    names = [name for name, kind in marks if kind == "begin"]
    assert len(names) == len(set(names)), names


def test_each_heading_of_benchmarks_md_names_one_section():
    headings = Counter(line for line in (REPO / "BENCHMARKS.md").read_text().splitlines() if line.startswith("#"))
    assert [heading for heading, n in headings.items() if n > 1] == []
