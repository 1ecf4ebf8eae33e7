"""The trainer's stop flag (app/common/signals.py) once the ranks agreed to stop: a SIGTERM that reaches the process
while Python shuts down must not kill it. Python restores the default action of the signals it handles as it shuts
down, so such a late SIGTERM (a node's copy of the stop request, arriving after its ranks stopped on another node's)
turned a clean exit into 143."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.trainer_runs import REPO

#: A process that installs the stop flag, maybe agrees to stop, and gets a SIGTERM while Python tears its modules
#: down (an object collected then sends it)
LATE_SIGTERM = """
import os, signal, sys, time
from app.common.signals import StopFlag
stop = StopFlag().install()
if sys.argv[1] == "agreed":
    stop.agreed()

class SentAtShutdown:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)

kept_until_shutdown = SentAtShutdown()
sys.exit(0)
"""


@pytest.mark.parametrize(("agreed", "returncode"), [(True, 0), (False, -signal.SIGTERM)])
def test_a_sigterm_while_python_shuts_down_ends_the_process_only_before_the_stop_was_agreed(agreed, returncode):
    result = subprocess.run([sys.executable, "-c", LATE_SIGTERM, "agreed" if agreed else "not"], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == returncode, result.stderr[-2000:]


def test_after_the_stop_was_agreed_a_stop_signal_is_ignored_and_ctrl_c_still_interrupts() -> None:
    from app.common.signals import StopFlag

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)}
    try:
        stop = StopFlag().install()
        stop.agreed()
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN == signal.getsignal(signal.SIGUSR1)
        assert signal.getsignal(signal.SIGINT) == stop._handle
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
