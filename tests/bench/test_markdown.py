"""bench.markdown, the one writer of BENCHMARKS.md: a benchmark's section is replaced in place, other sections
are kept, and a first run appends the section to a new file."""

from __future__ import annotations

from bench.markdown import replace_section

BEGIN, END = "<!-- bench.example: begin -->", "<!-- bench.example: end -->"


def test_rewriting_replaces_only_its_own_section(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(f"# Benchmarks\n\n## Other\nkept\n\n{BEGIN}\nold\n{END}\n\n## After\nalso kept\n")
    replace_section(path, "bench.example", "new\n")
    text = path.read_text()
    assert "new" in text and "old" not in text
    assert "## Other\nkept" in text and "## After\nalso kept" in text
    assert text.count(BEGIN) == 1


def test_first_run_appends_the_section_to_a_new_file(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    replace_section(path, "bench.example", "new\n")
    assert path.read_text().startswith("# Benchmarks") and path.read_text().endswith(f"{END}\n")
