"""Process-group start and teardown helpers that need no peers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.launch import REPO, clean_env

#: Output to buffered (piped) stdout, a log record and an exit code: what end_process must not lose.
ENDS_WITH_75 = """
import logging, sys
from app.common.distributed import end_process
logging.basicConfig(stream=sys.stderr, level=logging.INFO)
print("summary line", end="")
logging.getLogger("t").info("log record")
end_process(75)
print("never printed")
"""


@pytest.mark.slow  # an interpreter importing torch
def test_end_process_keeps_buffered_output_and_reports_the_exit_code():
    env = clean_env()
    env.pop("PYTHONUNBUFFERED")  # piped stdout is block-buffered: os._exit alone would drop it
    done = subprocess.run([sys.executable, "-c", ENDS_WITH_75], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 75
    assert done.stdout == "summary line"
    assert "log record" in done.stderr
