import os

from app.check.node.storage import check_storage, read_probe
from app.check.report import FAIL, OK, WARN
from tests.bounded import within


def test_probe_reads_the_files_under_the_directory(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"x" * (1 << 20))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.bin").write_bytes(b"y" * 1000)
    nbytes, seconds, files = read_probe(str(tmp_path))
    assert (nbytes, files) == ((1 << 20) + 1000, 2) and seconds >= 0
    assert check_storage(str(tmp_path))[0].status == OK


def test_missing_directory_fails_and_a_threshold_warns(tmp_path):
    assert check_storage(str(tmp_path / "nope"))[0].status == FAIL
    (tmp_path / "a.bin").write_bytes(b"x" * 4096)
    assert check_storage(str(tmp_path), min_mbps=1e12)[0].status == WARN


def test_a_fifo_or_a_device_under_the_directory_is_passed_over_within_the_budget(tmp_path):
    """Only regular files are read: a FIFO no one writes waits forever, /dev/zero reads memory, not the disk."""
    os.mkfifo(tmp_path / "a-fifo")
    (tmp_path / "b-zero").symlink_to("/dev/zero")
    (tmp_path / "c.bin").write_bytes(b"x" * 4096)
    with within(3):
        nbytes, _, files = read_probe(str(tmp_path), max_seconds=1.0)
    assert (nbytes, files) == (4096, 1)
