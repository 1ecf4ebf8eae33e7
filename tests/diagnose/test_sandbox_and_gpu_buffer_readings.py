"""Readings the quoted lines alone do not show (Apptainer unpacking a SIF into a sandbox, UCX on GPU buffers):
where the same words are no failure, and where a wrapped failure is something else."""

from __future__ import annotations

from app.host.diagnose import diagnose_lines

WRAPPED = "FATAL:   while extracting app.sif: root filesystem extraction failed: extract command failed: "


def test_unsquashfs_43_xattr_warnings_in_an_extraction_that_worked_are_no_cause() -> None:
    """squashfs-tools 4.3 printed the xattr lines and went on (write_xattr returned nothing): no failure to read."""
    lines = ["write_xattr: could not write xattr security.capability for file sandbox/usr/bin/ping because you're "
             "not superuser!",
             "write_xattr: to avoid this error message, either specify -user-xattrs, -no-xattrs, or run as superuser!",
             "created 4021 files"]
    assert diagnose_lines(lines) == []


def test_an_extraction_that_filled_the_disk_is_not_the_xattrs() -> None:
    """unsquashfs 4.4 unsquashfs.c line 846 "Write on output file failed because %s" and line 2102 "writer: failed
    to write file %s" under the same wrapping."""
    lines = [WRAPPED, "Write on output file failed because No space left on device",
             "writer: failed to write file /tmp/rootfs-9/opt/venv/lib/libtorch_cuda.so"]
    assert "unsquashfs-xattr-write-failed" not in [finding.key for finding in diagnose_lines(lines)]


def test_an_extraction_of_a_damaged_image_is_not_the_xattrs() -> None:
    """unsquashfs 4.4 unsquashfs.c line 741 "read_block: failed to read block @0x%llx"."""
    lines = [WRAPPED, "read_block: failed to read block @0x1e2f3a0", "FATAL ERROR:failed to read file system tables"]
    assert "unsquashfs-xattr-write-failed" not in [finding.key for finding in diagnose_lines(lines)]


def test_the_xattr_lines_name_the_cause_even_beside_another_unsquashfs_line() -> None:
    lines = [WRAPPED, "write_xattr: could not write xattr security.capability for file /tmp/rootfs-9/usr/bin/ping "
             "because you're not superuser!", "Lseek failed because Invalid argument"]
    assert [finding.key for finding in diagnose_lines(lines)][:1] == ["unsquashfs-xattr-write-failed"]


def test_a_ucx_local_protection_error_on_host_buffers_is_not_the_pcie_path() -> None:
    """UCX v1.5.0 rc_verbs_iface.c line 62 with IBV_WC_LOC_PROT_ERR, an OSU test between host buffers: a buffer the
    program freed or deregistered, not ACS."""
    lines = ["# OSU MPI Bandwidth Test v5.6.1",
             "[1556107200.123456] [node1:2741:0]     rc_verbs_iface.c:62   UCX  ERROR send completion with error: "
             "local protection error"]
    assert "p2p-acs-iommu" not in [finding.key for finding in diagnose_lines(lines)]


def test_romio_retrying_an_interrupted_lock_is_no_cause() -> None:
    """MPICH v3.3 src/mpi/romio/adio/common/lock.c line 164, its debug build's retry on EINTR: the lock went on."""
    lines = ["File locking failed in ADIOI_Set_lock(fd 0XC,cmd F_SETLKW/0X7,type F_WRLCK/0X1,whence 0) with return "
             "value 0XFFFFFFFF and errno 0X4.  Retry (1).",
             "ADIOI_Set_lock:: Interrupted system call"]
    assert "file-locks-unsupported" not in [finding.key for finding in diagnose_lines(lines)]
