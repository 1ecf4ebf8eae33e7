"""The trainer's configuration table in docs/training.md is made from the docstrings of app/train/config.py: a
field added, removed, or given another default or description without the table following fails here."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.train.config_table import BEGIN, END, markdown_table
from tests.docs.markdown import DOCS

TRAINING_PAGE = DOCS / "training.md"


def documented_table() -> str:
    text = TRAINING_PAGE.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{TRAINING_PAGE.name} needs one {BEGIN} ... {END}"
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n")


def test_the_documented_configuration_table_is_the_one_the_config_docstrings_make():
    assert documented_table() == markdown_table(), (
        "docs/training.md's configuration table differs from app/train/config.py: "
        "run python -m app.train.config_table --write docs/training.md")


@dataclass
class _Inner:
    size: str = "tiny"
    """How big | in words."""
    layers: int = 0
    """Blocks; 0 takes the preset's."""
    reshard: bool | None = None
    """Unset unless given."""


@dataclass
class _Tree:
    model: _Inner = field(default_factory=_Inner)
    enabled: bool = False
    """Turn it on."""
    path: str = ""
    """Where; empty means the default."""


def test_each_field_is_a_row_with_its_default_and_docstring():
    assert markdown_table(_Tree).splitlines() == [
        "| key | default | what it does |",
        "|---|---|---|",
        "| `model.size` | `tiny` | How big \\| in words. |",
        "| `model.layers` | `0` | Blocks; 0 takes the preset's. |",
        "| `model.reshard` | (unset) | Unset unless given. |",
        "| `enabled` | `false` | Turn it on. |",
        "| `path` | (empty) | Where; empty means the default. |",
    ]
