"""Logging for every entry point: `host:rank` on every line, so interleaved multi-node logs stay readable."""

from __future__ import annotations

import logging
import sys


def setup_logging(host: str, rank: int, main_level: int = logging.INFO) -> None:
    """Rank 0 logs at `main_level` (the trainer: INFO; the check, whose report is its output: WARNING);
    the other ranks log WARNING and above, to keep batch logs short."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"%(asctime)s {host}:{rank} %(levelname)s %(message)s", "%H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(main_level if rank == 0 else max(main_level, logging.WARNING))
