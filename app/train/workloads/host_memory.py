"""Generated data is held in host memory: a size that cannot fit is refused in one line before it is allocated
(`data.tokens=99999999999999` otherwise ends in the allocator's traceback, or in the OOM killer, on every rank)."""

from __future__ import annotations

import os

from app.host.common.errors import UsageError


def physical_memory_bytes() -> int:
    """This host's RAM (what the kernel reports; a job's cgroup limit is lower, never higher)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def require_fits(key: str, count: int, bytes_each: int, example: str) -> None:
    """UsageError naming `key` unless `count` items of `bytes_each` bytes at their peak fit in this host's RAM."""
    needed, have = count * bytes_each, physical_memory_bytes()
    if needed > have:
        raise UsageError(f"{key}={count} needs about {needed / 2**30:,.0f} GiB of host memory to generate, this "
                         f"node has {have / 2**30:,.0f} GiB; example: {key}={example}")
