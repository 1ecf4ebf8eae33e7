"""app.check's --data-dir probe (app/check/node/storage.py) over a directory of any kinds of entries: it
reads the regular files, passes over FIFOs, devices and dangling links, and keeps to its time budget."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from app.check.node.storage import read_probe
from tests.bounded import within
from tests.properties.strategies import fresh_directory

ENTRIES = {
    "file": lambda path, size: path.write_bytes(b"x" * size),
    "fifo": lambda path, size: os.mkfifo(path),
    "to-zero": lambda path, size: path.symlink_to("/dev/zero"),
    "dangling": lambda path, size: path.symlink_to(path.with_name("nothing-here")),
    "unreadable": lambda path, size: (path.write_bytes(b"x" * size), path.chmod(0)),
    "directory": lambda path, size: path.mkdir(),
}


@given(st.lists(st.tuples(st.sampled_from(sorted(ENTRIES)), st.integers(min_value=0, max_value=1 << 16)),
                max_size=8))
def test_the_probe_reads_only_regular_files_within_its_budget(entries):
    with fresh_directory() as directory:
        expected_bytes = expected_files = 0
        for number, (kind, size) in enumerate(entries):
            ENTRIES[kind](directory / f"{number:02d}-{kind}", size)
            if kind == "file" or (kind == "unreadable" and os.geteuid() == 0):  # root reads a mode-0 file
                expected_bytes, expected_files = expected_bytes + size, expected_files + 1
        with within(3):
            nbytes, seconds, files = read_probe(str(directory), max_seconds=1.0)
        assert (nbytes, files) == (expected_bytes, expected_files) and seconds < 3
