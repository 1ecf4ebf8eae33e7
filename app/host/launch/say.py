"""The job log's lines and the one-line errors of app.launch (standard library only). Written as bytes: Python 3.6
under a batch job's C locale writes text as ASCII and would stop at a job name or a path with an é; what came in
undecodable (surrogateescape) goes out as it came."""

import sys
import time
from typing import TextIO


def _write(stream: TextIO, text: str) -> None:
    stream.flush()
    stream.buffer.write(text.encode("utf-8", "surrogateescape"))
    stream.buffer.flush()


def log_line(script: str, message: str) -> None:
    """A line of the job log on stdout: "[HH:MM:SS SCRIPT] MESSAGE"."""
    _write(sys.stdout, "[{} {}] {}\n".format(time.strftime("%H:%M:%S"), script, message))


def error_line(script: str, message: str) -> None:
    """An error on stderr: "SCRIPT: error: MESSAGE" (cause and remedy, one line)."""
    _write(sys.stderr, f"{script}: error: {message}\n")
