"""Read throughput of the training data's filesystem (`--data-dir`): a starved data path looks like a
slow network to the user. Reads real files under the directory, up to a byte and time budget; only regular
files (a FIFO no one writes would block the check past its budget, a device such as /dev/zero measures memory,
not the filesystem)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from app.check.report import FAIL, OK, WARN, Check
from app.host.common.regular_files import open_regular

CHUNK = 4 << 20


def read_probe(directory: str, max_bytes: int = 512 << 20, max_seconds: float = 5.0) -> tuple[int, float, int]:
    """(bytes read, seconds, files touched), reading regular files in directory order."""
    total, files, start = 0, 0, time.perf_counter()
    for root, _, names in os.walk(directory):
        for name in sorted(names):
            if time.perf_counter() - start > max_seconds:  # a tree of many empty or unreadable files
                return total, time.perf_counter() - start, files
            try:
                with open_regular(os.path.join(root, name), buffering=0) as file:
                    files += 1
                    while chunk := file.read(CHUNK):
                        total += len(chunk)
                        if total >= max_bytes or time.perf_counter() - start > max_seconds:
                            return total, time.perf_counter() - start, files
            except OSError:
                continue
    return total, time.perf_counter() - start, files


def check_storage(directory: str, min_mbps: float = 0.0) -> list[Check]:
    name = "storage: --data-dir read"
    if not Path(directory).is_dir():
        return [
            Check(
                name,
                FAIL,
                f"{directory} is not a readable directory on this node",
                "give the training data's directory as every node sees it (inside the container: bind it)",
            )
        ]
    nbytes, seconds, files = read_probe(directory)
    if nbytes == 0:
        return [Check(name, WARN, f"{directory}: no readable data ({files} files)", "point --data-dir at the data")]
    mbps = nbytes / max(seconds, 1e-9) / 1e6
    detail = f"{directory}: {mbps:.0f} MB/s over {nbytes / 1e6:.1f} MB in {files} files (page cache may help)"
    if min_mbps and mbps < min_mbps:
        return [
            Check(
                name,
                WARN,
                f"{detail}, below {min_mbps:.0f} MB/s",
                "stage the data to node-local disk or a faster filesystem; raise data.workers",
            )
        ]
    return [Check(name, OK, detail)]
