"""Logging with `host:rank` on every line, so interleaved multi-node logs stay readable."""

from __future__ import annotations

import logging
import sys


def setup_logging(host: str, rank: int, verbose_all_ranks: bool = False) -> None:
    """Rank 0 logs INFO; other ranks only WARNING and above (unless asked), to keep batch logs short."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"%(asctime)s {host}:{rank} %(levelname)s %(message)s", "%H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO if rank == 0 or verbose_all_ranks else logging.WARNING)
