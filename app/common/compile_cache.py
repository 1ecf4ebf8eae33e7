"""torch.compile's caches in a directory only this user can write: what is in them runs as the job's user.

torch 2.13's inductor keeps its caches (compiled kernels, the FX graph and AOTAutograd caches, Triton's, the
autotuning results, dynamo's profiles) under `cache_dir()`: TORCHINDUCTOR_CACHE_DIR, else `default_cache_dir()`,
`<tempfile.gettempdir()>/torchinductor_<user>` (torch/_inductor/runtime/cache_dir_utils.py). It makes that
directory with `os.makedirs(exist_ok=True)`, checks no owner, and loads what it finds with `pickle.loads` and
as Python modules: on a shared /tmp, a directory another user made first at that name runs their code in the
next compiled run. Some newer caches ignore the variable and always use `default_cache_dir()`
(torch/_inductor/cache.py `InductorOnDiskCache`, runtime/caching/implementations.py `_OnDiskCacheImpl`, used
by pad_mm's memoizer): the only handle on those is the temporary directory itself. Triton's cache is
TRITON_CACHE_DIR, else `cache_dir()/triton/<device>` (inductor sets it: runtime/triton_heuristics.py).

So, before anything compiles: a TORCHINDUCTOR_CACHE_DIR or TRITON_CACHE_DIR you set is used only when it is
yours and no one else can write it (created 0700 when missing); unset, torch's default place is used only when
it is yours (created 0700 here first, so torch finds it made), and when someone else holds it the process
takes a fresh private temporary directory (TMPDIR, so every cache torch derives from it moves there) and says so.
Each of these must also lie where no one else can rename it or a directory above it (a TMPDIR in a group's
project directory: a member renames the cache away and puts theirs in its place), else the run stops in one line.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

from app.host.common.cache_places import INDUCTOR, PLANTED, TRITON, check_temporary_directory, inductor_dir_name
from app.host.common.private_dir import ensure_private_dir, why_not_private


def torch_default_cache_dir() -> Path:
    """Where torch 2.13 puts its caches when TORCHINDUCTOR_CACHE_DIR is unset (`default_cache_dir()`, without
    importing torch): `torchinductor_<user>` in the temporary directory."""
    return Path(tempfile.gettempdir()) / inductor_dir_name()


def private_compile_caches(environ: MutableMapping[str, str] = os.environ) -> list[str]:
    """Point torch.compile's caches at directories only this user can write (see the module's docstring); the
    lines to log. A cache directory you set, or a temporary directory, that someone else owns or can write, or
    that lies where someone else can rename it, raises UsageError."""
    said = []
    for name in (INDUCTOR, TRITON):
        if environ.get(name):
            ensure_private_dir(Path(environ[name]), name, example=f"$HOME/.cache/{name.lower()}", planted=PLANTED,
                               parents=True)
            said.append(f"compile cache: {name}={environ[name]} (set by you; yours alone)")
    if environ.get(INDUCTOR):
        return said
    default = torch_default_cache_dir()
    check_temporary_directory(default.parent)
    why = why_not_private(default, PLANTED) if os.path.lexists(default) else None
    if why is None:
        ensure_private_dir(default, INDUCTOR, example="$HOME/.cache/torchinductor", planted=PLANTED, parents=True)
        environ[INDUCTOR] = str(default)
        return [*said, f"compile cache: {INDUCTOR}={default} (yours alone)"]
    fresh = tempfile.mkdtemp(prefix="ddp-tmp-")  # 0700, at a name no one can guess, where no one else renames it
    environ["TMPDIR"] = fresh
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    inductor = torch_default_cache_dir()
    ensure_private_dir(inductor, INDUCTOR, example="$HOME/.cache/torchinductor", planted=PLANTED, parents=True)
    environ[INDUCTOR] = str(inductor)
    return [*said, f"warning: the compile cache's usual place {default} {why}: not used; this run compiles "
                   f"into {inductor} (and its temporary files into TMPDIR={fresh}); remove the other one, or "
                   f"set {INDUCTOR} to a directory of yours"]
