"""How app.launch's commands answer the job scripts: bash assignments that the script evaluates, every value
quoted by shlex.quote, so that nothing a value holds (a job name from qstat, a reason, a node name) is run.

Bytes in and out are UTF-8 with surrogateescape: Python 3.6 under the C locale of a batch job (no LANG) would
otherwise refuse a non-ASCII job name, and undecodable bytes come back out as they came in.
"""

import shlex
import sys
from typing import Iterable, Optional


def assignment(name: str, value: Optional[str]) -> str:
    """`name='value'` (None: the empty string)."""
    return f"{name}={shlex.quote('' if value is None else value)}"


def array(name: str, values: Iterable[str]) -> str:
    """`name=('a' 'b c')`, a bash array."""
    return f"{name}=({' '.join(shlex.quote(value) for value in values)})"


def read_stdin() -> str:
    return sys.stdin.buffer.read().decode("utf-8", "surrogateescape")


def emit(lines: Iterable[str]) -> None:
    sys.stdout.buffer.write("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
