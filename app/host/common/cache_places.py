"""Where torch.compile keeps what it loads back as you, and the checks on those places that both the trainer
(app/common/compile_cache.py, in each rank) and the job (app/host/launch/job.py, on the batch host before any step,
for your own script too) apply (standard library only, Python 3.6)."""

import getpass
import os
import re
from pathlib import Path
from typing import Mapping

from app.host.common.errors import UsageError
from app.host.common.private_dir import check_private_dir, why_new_entries_unsafe

INDUCTOR, TRITON = "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"
#: What another user's cache directory could hold (for the one-line messages)
PLANTED = "compiled code that torch loads"


def inductor_dir_name() -> str:
    """The name torch 2.13 gives its cache in the temporary directory (`default_cache_dir()`,
    torch/_inductor/runtime/cache_dir_utils.py): `torchinductor_<user>`, the user as getpass reads it."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid_{os.getuid()}"
    return "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user)


def check_temporary_directory(temporary: Path) -> None:
    """UsageError unless what this user makes in TEMPORARY (torch's cache, or a fresh directory in its place) no
    one else can rename: a TMPDIR in a group's project directory would let a member swap the cache for theirs."""
    cache = temporary / inductor_dir_name()
    why = why_new_entries_unsafe(temporary, cache.name)
    if why is not None:
        raise UsageError(f"TMPDIR={str(temporary)!r}: torch.compile's cache {cache} {why}, and torch loads the "
                         f"compiled code it finds there as you; set TMPDIR (or {INDUCTOR}) to a directory only you "
                         "can write, example: TMPDIR=$HOME/tmp")


def check_cache_places(env: Mapping[str, str]) -> None:
    """The job's start, on the batch host: TMPDIR, TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR as the workers
    will get them, refused in one line where another user could put compiled code there (nothing is made)."""
    if env.get("TMPDIR"):
        check_temporary_directory(Path(env["TMPDIR"]))
    for name in (INDUCTOR, TRITON):
        if env.get(name):
            check_private_dir(Path(env[name]), name, example=f"$HOME/.cache/{name.lower()}", planted=PLANTED)
