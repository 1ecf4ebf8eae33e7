"""What damaged or hostile files hold: bytes of any kind, text, JSON of any shape, and the project's own
records cut short or with a field of another type. Shared by the properties of each reader family."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import strategies as st

#: The bound on one example: the readers take milliseconds on inputs of these sizes.
SECONDS_PER_EXAMPLE = 10

#: Text as files may hold it, with the characters that break lines and terminals drawn often, not by chance.
#: (Joined from pieces: an alphabet of both is flattened into one character set, where they are rare again.)
awkward_text = st.lists(st.sampled_from(["\n", "\r", "\t", "\0", "\x1b[2J", "\x85", "\u2028", "\ud800"])
                        | st.text(max_size=4), max_size=6).map("".join)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | awkward_text
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(awkward_text, inner, max_size=4), max_leaves=12)


def json_line(value: object) -> bytes:
    return json.dumps(value).encode()


def record_like(fields: dict[str, st.SearchStrategy], required: tuple[str, ...] = ()) -> st.SearchStrategy[dict]:
    """A record with some of the project's own fields: the `required` ones and some others, all of their right
    types (as the writer writes them, so that the reader's deeper paths are reached), or any of them, each of its
    right type or of any other."""
    well_typed = st.fixed_dictionaries({name: fields[name] for name in required},
                                       optional={name: right for name, right in fields.items() if name not in required})
    any_typed = st.fixed_dictionaries({}, optional={name: right | json_values for name, right in fields.items()})
    return well_typed | any_typed


def lines_of(records: st.SearchStrategy[dict]) -> st.SearchStrategy[bytes]:
    """A JSON-lines file: whole records, records cut short, stray bytes (not UTF-8 among them)."""
    whole = records.map(json_line)
    cut = st.tuples(whole, st.integers(min_value=0, max_value=200)).map(lambda pair: pair[0][: pair[1]])
    stray = st.binary(max_size=40).map(lambda data: data.replace(b"\n", b""))
    return st.lists(whole | cut | stray | json_values.map(json_line), max_size=12).map(b"\n".join)


@contextmanager
def fresh_directory() -> Iterator[Path]:
    """A new directory for one example (pytest's tmp_path is one per test, not one per example)."""
    with tempfile.TemporaryDirectory(prefix="properties-") as name:
        yield Path(name)


#: What someone else may leave where a file is expected: a FIFO no one writes, a link to an endless device, a
#: directory. Readers refuse them in one line or pass over them, and never wait.
SPECIAL = ("fifo", "link-to-dev-zero", "directory")


def place(path: Path, content: bytes | str) -> None:
    """Write `content` at `path`, or make it the special file of that name (SPECIAL)."""
    if content == "fifo":
        os.mkfifo(path)
    elif content == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    elif content == "directory":
        path.mkdir()
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
