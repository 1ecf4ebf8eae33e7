"""Reading the project's Markdown: the README's fenced commands, links and headings (GitHub's anchors)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"


def documentation() -> list[Path]:
    """The README and every page of docs/: where the project's prose lives."""
    return [README, *sorted(DOCS.glob("*.md"))]


def fenced_commands(text: str) -> list[str]:
    """The commands of the ```bash blocks: comments dropped, continued lines (`\\`) joined, one per command."""
    commands, block, pending = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            block = line.strip() in ("```bash", "```sh")
            continue
        if not block:
            continue
        code = re.sub(r"(^|\s)#.*$", "", line).rstrip()
        if code.endswith("\\"):
            pending += code[:-1] + " "
            continue
        code = (pending + code).strip()
        pending = ""
        if code:
            commands.append(code.removeprefix("$ "))
    return commands


def section(text: str, heading: str) -> str:
    """The text under the heading HEADING (any level) up to the next heading of the same or a higher level; a `#`
    line inside a fenced block is code, not a heading."""
    lines, level, kept, fenced = text.splitlines(), 0, [], False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        found = None if fenced else re.match(r"(#+) (.+)$", line)
        if level and found and len(found.group(1)) <= level:
            break
        if level:
            kept.append(line)
        elif found and found.group(2).strip() == heading:
            level = len(found.group(1))
    if not level:
        raise LookupError(f"no heading {heading!r}")
    return "\n".join(kept) + "\n"


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with HEADER, as lists of cells (stripped)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def links(text: str) -> list[str]:
    """Targets of the Markdown links `[text](target)`, outside code spans and blocks."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def anchors(text: str) -> set[str]:
    """GitHub's anchor of each heading: lower case, punctuation but - and _ dropped, spaces to -."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def blurred(line: str) -> str:
    """A log line with what changes from run to run blurred (numbers, paths, the trainer's host), so that a line
    the docs quote can be compared with the one a new run prints."""
    line = re.sub(r"^\S+ \S+:(\d+) (?=[A-Z]+ )", "TIME HOST:RANK ", line)  # the trainer's time and host:rank
    line = re.sub(r"\S*/\S*", "PATH", line)
    return re.sub(r"\d+(?:[.,]\d+)*k?", "N", line)


def quotes(quoted: str, printed: list[str]) -> bool:
    """Whether a line the docs quote (`...` standing for any text) is one of the printed lines, blurred."""
    pattern = ".*".join(re.escape(piece) for piece in blurred(quoted).split("..."))
    return any(re.fullmatch(pattern, blurred(line)) for line in printed)
