"""The configuration table of docs/training.md, made from app/train/config.py: one row per key, with its
default and the docstring under its field, so the table cannot drift from the code (tests/docs holds it to it).

    python -m app.train.config_table                           # print the table
    python -m app.train.config_table --write docs/training.md  # replace it there, between its markers
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from pathlib import Path
from typing import Any

from app.common.typedconfig import field_docs
from app.train.config import Config

BEGIN = "<!-- configuration table: made by python -m app.train.config_table from app/train/config.py -->"
END = "<!-- end of the configuration table -->"


def _default(value: Any) -> str:
    """A default as it is written on the command line (`key=value`)."""
    if value is None:
        return "(unset)"
    if value == "":
        return "(empty)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def _rows(cls: type, prefix: str) -> list[str]:
    docs, hints, instance = field_docs(cls), typing.get_type_hints(cls), cls()
    rows: list[str] = []
    for field in dataclasses.fields(instance):
        if dataclasses.is_dataclass(hints[field.name]):
            rows.extend(_rows(hints[field.name], f"{prefix}{field.name}."))
            continue
        doc = docs.get(field.name, "").replace("|", "\\|")
        rows.append(f"| `{prefix}{field.name}` | {_default(getattr(instance, field.name))} | {doc} |")
    return rows


def markdown_table(cls: type = Config) -> str:
    """Every key of `cls` (nested sections as `section.key`), in field order."""
    return "\n".join(["| key | default | what it does |", "|---|---|---|", *_rows(cls, "")])


def replace_table(text: str) -> str:
    """`text` with the table between its markers made anew."""
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"the page needs one line {BEGIN} and one {END}, the table between them")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{markdown_table()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.train.config_table", description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, metavar="PAGE", help="replace the table in PAGE, between its markers")
    args = parser.parse_args(argv)
    if args.write is None:
        print(markdown_table())
        return 0
    try:
        args.write.write_text(replace_table(args.write.read_text()))
    except (OSError, ValueError) as err:
        print(f"error: {args.write}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
