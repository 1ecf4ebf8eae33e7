from app.check.node.storage import check_storage, read_probe
from app.check.report import FAIL, OK, WARN


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
