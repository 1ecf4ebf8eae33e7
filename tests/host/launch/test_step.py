"""A step of the Slurm job (app/host/launch/step.py): its log line as bash's %q wrote it, the code of the node that
failed first, and USR1/TERM turned into the stop file while the step runs on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.host.launch.step import bash_quoted, first_failure, run_step, step_line

WORDS = ["srun", "--nodes=2", "", "a b", "*", "x\ny", "it's", "~/home", "a=~b", "#not", "a#b", "$HOME", "`id`",
         "a,b", "{1..2}", "tab\there", "é", "\x1b[0m", "100%", "back\\slash", "semi;colon", "--opt=va l"]


def test_the_step_line_quotes_each_word_as_bashs_printf_q() -> None:
    bash = subprocess.run(["bash", "-c", 'printf "%q " "$@"', "bash", *WORDS], capture_output=True, text=True,
                          env={"LC_ALL": "C.UTF-8", "PATH": os.environ["PATH"]}, check=True)
    assert step_line(WORDS) == "step: " + bash.stdout


def test_a_quoted_word_reads_back_whole_in_bash() -> None:
    echoed = subprocess.run(["bash", "-c", "for w in " + " ".join(bash_quoted(w) for w in WORDS) +
                             '; do printf "%s\\0" "$w"; done'], capture_output=True, text=True, check=True,
                            env={"LC_ALL": "C.UTF-8", "PATH": os.environ["PATH"]})
    assert echoed.stdout.split("\0")[:-1] == WORDS


def record(codes: Path, name: str, code: str, at: float) -> None:
    path = codes / name
    path.write_text(code)
    os.utime(path, (at, at))


def test_the_first_nonzero_code_a_node_recorded_wins_over_the_launchers(tmp_path: Path) -> None:
    record(tmp_path, "node2.11", "143\n", 300)
    record(tmp_path, "node1.10", "10\n", 200)
    record(tmp_path, "node3.12", "0\n", 100)
    record(tmp_path, "node4.13.part", "3\n", 50)
    record(tmp_path, "node5.14", "PATH[$(touch x)]\n", 60)
    assert first_failure(str(tmp_path), 143) == 10


@pytest.mark.parametrize("codes", [{}, {"node1.1": "0\n"}, {"node1.1": "abc\n"}])
def test_without_a_nodes_code_the_launchers_stands(tmp_path: Path, codes: dict[str, str]) -> None:
    for name, code in codes.items():
        record(tmp_path, name, code, 100)
    assert first_failure(str(tmp_path), 143) == 143
    assert first_failure(str(tmp_path / "missing"), 1) == 1


def test_usr1_during_a_step_writes_the_stop_file_and_the_step_ends_with_the_nodes_code(tmp_path: Path) -> None:
    """The step (a node wrapper's stand-in) waits for the stop file, records 75 as a node that snapshotted, and the
    launcher reports 143 over it, as srun --kill-on-bad-exit does; the job sees 75 and the signal's name."""
    stop = tmp_path / ".stop-requested"
    (tmp_path / ".stop-requested.codes").mkdir()
    (tmp_path / ".stop-requested.codes" / "old.1").write_text("10\n")  # an earlier run's: must not count
    stop.touch()  # an earlier run's stop request: must not stop this one
    node = (f'sleep 0.3; while [ ! -e "{stop}" ]; do sleep 0.05; done; '
            f'printf "75\\n" >"{stop}.codes/node1.1"; exit 143')
    seen = []
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGUSR1))
    started = time.monotonic()
    timer.start()
    try:
        rc = run_step(["sh", "-c", node], str(stop), seen.append)
    finally:
        timer.cancel()
    assert seen == ["USR1"] and rc == 75
    assert time.monotonic() - started < 10
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL, "the handler outlived the step"


def test_a_step_that_passes_is_0_and_one_a_signal_ended_is_128_plus_it(tmp_path: Path) -> None:
    assert run_step(["true"], str(tmp_path / "stop"), print) == 0
    assert run_step([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
                    str(tmp_path / "stop"), print) == 128 + signal.SIGKILL
