"""bench.container_overhead: its BENCHMARKS.md section is replaced in place, other sections are kept."""

from __future__ import annotations

from bench.container_overhead import SECTION_END, SECTION_START, write_section


def test_rewriting_replaces_only_its_own_section(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(f"# Benchmarks\n\n## Other\nkept\n\n{SECTION_START}\nold\n{SECTION_END}\n\n## After\nalso kept\n")
    write_section(f"{SECTION_START}\nnew\n{SECTION_END}\n", path)
    text = path.read_text()
    assert "new" in text and "old" not in text
    assert "## Other\nkept" in text and "## After\nalso kept" in text
    assert text.count(SECTION_START) == 1


def test_first_run_appends_the_section_to_a_new_file(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    write_section(f"{SECTION_START}\nnew\n{SECTION_END}\n", path)
    assert path.read_text().startswith("# Benchmarks") and path.read_text().endswith(f"{SECTION_END}\n")
