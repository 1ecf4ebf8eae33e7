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
