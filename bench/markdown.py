"""Replace one benchmark's section of BENCHMARKS.md, between its begin/end markers."""

from __future__ import annotations

from pathlib import Path


def replace_section(path: Path, name: str, body: str) -> None:
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)


def publish(text: str, markdown: Path | None, name: str) -> None:
    """Print a benchmark's section and, when asked, write it into the markdown file."""
    print(text)
    if markdown:
        replace_section(markdown, name, text)
