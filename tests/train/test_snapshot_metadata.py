"""A sharded snapshot's `.metadata` is DCP's pickle. Anyone who can write the snapshot directory can also write a
manifest whose sums match, so the sums catch a torn write, not a planted file: the pickle itself must not be able
to run code, on resume or on export."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import shutil
from pathlib import Path, PosixPath

import pytest
from torch.distributed.checkpoint import Metadata

from app.train.snapshot import export, layout
from tests.trainer_runs import REPO, run, torchrun_command

FIXTURE = REPO / "tests" / "data" / "snapshots" / "fsdp-format1" / "step-00000005"


class Payload:
    """Pickles to a call of os.system: loading it with plain pickle runs the command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a real sharded snapshot whose `.metadata` runs a command, with a manifest that matches."""
    snapshot = tmp_path / "snapshots" / FIXTURE.name
    shutil.copytree(FIXTURE, snapshot)
    marker = tmp_path / "payload-ran"
    (snapshot / ".metadata").write_bytes(pickle.dumps(Payload(marker)))
    manifest = json.loads((snapshot / layout.MANIFEST).read_text())
    manifest[".metadata"] = hashlib.sha256((snapshot / ".metadata").read_bytes()).hexdigest()
    (snapshot / layout.MANIFEST).write_text(json.dumps(manifest))
    assert layout.verify(snapshot) is None  # the sums cannot tell
    return snapshot, marker


def test_the_metadata_of_a_real_sharded_snapshot_reads_back():
    metadata = layout.MetadataFromRankZero(FIXTURE).read_metadata()
    assert isinstance(metadata, Metadata)
    assert "model.weight" in metadata.state_dict_metadata


def test_a_planted_metadata_pickle_runs_nothing_and_the_snapshot_is_passed_over(tmp_path, caplog):
    snapshot, marker = planted(tmp_path)
    with caplog.at_level(logging.WARNING):
        assert layout.read(snapshot) is None
    assert not marker.exists(), "the .metadata pickle ran its command"
    assert "unusable" in caplog.text and ".metadata" in caplog.text
    with pytest.raises(Exception, match="metadata"):
        layout.MetadataFromRankZero(snapshot).read_metadata()
    assert not marker.exists(), "the .metadata pickle ran its command"


def test_export_of_a_planted_metadata_runs_nothing_and_is_one_line_exit_2(tmp_path, capsys):
    snapshot, marker = planted(tmp_path)
    assert export.main([str(snapshot), str(tmp_path / "model.pt")]) == 2
    assert not marker.exists(), "the .metadata pickle ran its command"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".metadata" in err
    assert not (tmp_path / "model.pt").exists()


def test_a_metadata_pointing_outside_its_snapshot_is_refused(tmp_path):
    """DCP opens `storage_data[...].relative_path` under the snapshot: `../x` would read another file."""
    snapshot = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, snapshot)
    metadata = layout.MetadataFromRankZero(FIXTURE).read_metadata()
    for info in metadata.storage_data.values():
        info.relative_path = "../elsewhere.distcp"
    (snapshot / ".metadata").write_bytes(pickle.dumps(metadata))
    with pytest.raises(Exception, match="elsewhere"):
        layout.MetadataFromRankZero(snapshot).read_metadata()


@pytest.mark.slow
def test_a_run_whose_newest_snapshot_has_a_planted_metadata_runs_nothing_and_does_not_resume_from_it(tmp_path):
    run_dir = tmp_path / "run"
    _, marker = planted(run_dir)
    result = run(torchrun_command(2, "--config", "regression", "dist.strategy=fsdp", "train.max_steps=8",
                                  f"run.dir={run_dir}"))
    assert not marker.exists(), "the .metadata pickle ran its command"
    assert result.returncode == 0, result.stderr[-3000:]
    assert "step-00000005 is unusable: its .metadata is refused" in result.stderr
    assert "resuming from" not in result.stderr


class EnumsByName(pickle.Pickler):
    """Pickles as CPython 3.11.0 to 3.11.4 do (Debian 12's 3.11.2, the smoke image's Python): an enum member as
    `getattr(its class, its name)` (enum.py, `Enum.__reduce_ex__`), whatever Python runs the test."""

    def reducer_override(self, obj):
        import enum

        if isinstance(obj, enum.Enum):
            return getattr, (type(obj), obj.name)
        return NotImplemented


def test_a_metadata_written_by_a_python_that_pickles_enums_by_name_reads_back(tmp_path):
    """DCP's TensorProperties pickles its memory format as an enum member: under 3.11.2, a `builtins.getattr` call,
    which the reader takes for that and nothing wider (before, it refused the real snapshot and the run started
    over); a getattr of anything else is still refused unrun."""
    import io

    from app.train.snapshot import dcp_metadata

    metadata = layout.MetadataFromRankZero(FIXTURE).read_metadata()
    by_name = io.BytesIO()
    EnumsByName(by_name).dump(metadata)
    assert b"getattr" in by_name.getvalue()
    (tmp_path / ".metadata").write_bytes(by_name.getvalue())
    assert dcp_metadata.read(tmp_path / ".metadata").state_dict_metadata == metadata.state_dict_metadata

    class WriteText:
        def __reduce__(self):
            return getattr, (PosixPath, "write_text")  # a class the metadata may hold

    (tmp_path / ".metadata").write_bytes(pickle.dumps(WriteText()))
    with pytest.raises(dcp_metadata.UnsafeMetadata, match="no member of an enum"):
        dcp_metadata.read(tmp_path / ".metadata")
