"""A host program's output for the plan (objdump, ldd, ip, getent, uname), standard library only (Python 3.6)."""

import shutil
import subprocess
from typing import Sequence


def host_output(argv: Sequence[str]) -> str:
    """ARGV's stdout; '' when the program is missing or fails (a login node without objdump, say): the plan then
    does without what it would have said."""
    if shutil.which(argv[0]) is None:
        return ""
    try:
        return subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60,
                              universal_newlines=True, check=False).stdout  # noqa: UP021 (3.6)
    except (OSError, subprocess.TimeoutExpired):
        return ""
