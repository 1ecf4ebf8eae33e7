"""The entry point of `python -m app.check` and of the `app-check` script."""

from __future__ import annotations

import os
from typing import NoReturn


def command() -> NoReturn:
    # c10d logs every store/socket timeout with a C++ backtrace, which would bury the report that says
    # what timed out and where. Read when libtorch loads, so set before the first torch import; a user's
    # value wins (TORCH_CPP_LOG_LEVEL=INFO shows everything).
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "FATAL")
    from app.check.cli import main
    from app.common.distributed import end_process

    end_process(main())
