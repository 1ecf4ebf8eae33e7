"""A command line in one variable, as qsub passes a workload (`qsub -v WORKLOAD="train.py --name 'a b'"`): its words
grouped as a POSIX shell groups them ('a b' and "a b" one word, \\ escapes), with no expansion of any kind (no
globbing, no $, no command substitution). Standard library only."""

import shlex
from typing import List

from app.host.common.errors import UsageError


def split_words(name: str, text: str) -> List[str]:
    """TEXT's words (shlex in POSIX mode, no comments); unbalanced quotes stop with the fix."""
    try:
        return shlex.split(text)
    except ValueError as cause:
        raise UsageError(f"{name}={text}: {str(cause).lower()}; quote each argument once, example: "
                         f"{name}=\"train.py --name 'a b'\"") from None
