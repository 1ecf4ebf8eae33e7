"""Which snapshot a resume picks (app/train/snapshot/layout.py) when its manifest or checksum file holds
anything: the snapshot is usable or skipped for the previous one, never an error, never a read outside it."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path

import torch
import torch.distributed.checkpoint as dcp
from hypothesis import given
from hypothesis import strategies as st

from app.common.atomic import sha256_of
from app.train.snapshot import layout
from tests.bounded import within
from tests.properties.strategies import SECONDS_PER_EXAMPLE, fresh_directory, json_values

#: Names a manifest may give: the snapshot's own files, names outside it, links and special files in it.
NAMES = ["extras.json", "__0_0.distcp", "../step-00000010.pt", "/dev/zero", "/etc/hostname", ".", "..", "", "a/b",
         "fifo", "to-zero", "to-outside", "sub", "missing", "nul\0"]
manifests = (st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=8), st.text(max_size=70) | json_values,
                             max_size=5).map(lambda m: json.dumps(m).encode())
             | json_values.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=200))
checksums = (st.binary(max_size=200) | st.text(max_size=100).map(str.encode)
             | st.sampled_from([b"", b"\n", b"0" * 64 + b"  step-00000020.pt\n", b"\xff" * 64]))


def previous_snapshot(directory: Path) -> Path:
    """A good single-file snapshot at step 10, for the resume to fall back to."""
    path = layout.single_file_path(directory, 10)
    torch.save({"position": {"step": 10}}, path)
    layout.checksum_path(path).write_text(f"{sha256_of(path)}  {path.name}\n")
    return path


@functools.cache
def dcp_metadata() -> bytes:
    """The .metadata DCP writes for a one-tensor state: a sharded snapshot has one beside its shards."""
    with tempfile.TemporaryDirectory() as tmp:
        dcp.save({"w": torch.zeros(2)}, checkpoint_id=tmp, no_dist=True)
        return (Path(tmp) / ".metadata").read_bytes()


def sharded_snapshot(directory: Path, manifest: bytes, with_true_digests: bool) -> Path:
    """Step 20, sharded, with files of every kind the manifest may name, and this manifest."""
    path = layout.sharded_path(directory, 20)
    path.mkdir(mode=0o700)
    (path / ".metadata").write_bytes(dcp_metadata())
    (path / "extras.json").write_text('{"position": {"step": 20}}')
    (path / "__0_0.distcp").write_bytes(b"shard")
    (path / "sub").mkdir()
    os.mkfifo(path / "fifo")
    (path / "to-zero").symlink_to("/dev/zero")
    (path / "to-outside").symlink_to(directory / "step-00000010.pt")
    if with_true_digests:  # the digests of what is there, so that only the names decide
        try:
            names = json.loads(manifest)
        except ValueError:
            names = {}
        if isinstance(names, dict):
            manifest = json.dumps({name: _digest(path, name) for name in names}).encode()
    (path / layout.MANIFEST).write_bytes(manifest)
    return path


def _digest(snapshot: Path, name: str) -> str:
    target = snapshot / name
    return sha256_of(target) if "\0" not in name and target.is_file() else "0" * 64


@given(manifests, st.booleans())
def test_any_manifest_gives_a_usable_snapshot_or_the_previous_one(manifest, with_true_digests):
    with fresh_directory() as directory:
        previous = previous_snapshot(directory)
        snapshot = sharded_snapshot(directory, manifest, with_true_digests)
        with within(SECONDS_PER_EXAMPLE):
            problem = layout.verify(snapshot)
            found = layout.read_newest(directory)
        assert found is not None
        if problem is None:
            recorded = json.loads((snapshot / layout.MANIFEST).read_bytes())
            assert all(name in ("extras.json", "__0_0.distcp") for name in recorded), "plain files of its own"
            assert found.path == snapshot
        else:
            assert isinstance(problem, str) and "\n" not in problem
            assert found.path == previous


@given(checksums)
def test_any_checksum_file_gives_the_snapshot_or_the_previous_one(checksum):
    with fresh_directory() as directory:
        previous_snapshot(directory)
        newest = layout.single_file_path(directory, 20)
        torch.save({"position": {"step": 20}}, newest)
        layout.checksum_path(newest).write_bytes(checksum)
        with within(SECONDS_PER_EXAMPLE):
            found = layout.read_newest(directory)
        assert found is not None
        assert found.step == (20 if checksum.split()[:1] == [sha256_of(newest).encode()] else 10)
