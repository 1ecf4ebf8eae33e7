"""Directories only their owner can write: a run's, its snapshots'.

What a resume trusts lies in them (snapshots, the stop file, history.jsonl), and they are often made under a
group-writable project directory at a predictable name (`runs/<job id>`): another user could create the
next job's directory first, or plant a symbolic link in it. So a directory is created with `mode` (0700; 0750
lets the Unix group read), whatever the umask, and an existing one is used only when it is the caller's and no one
else can write it: not others, and not its group unless that is the caller's group of one (a user-private group:
app/host/common/owners.py, where the rule for the directories above it, `why_parents_unsafe`, lives too). The job
applies it to RUN_DIR before any step (app/host/launch/job.py make_run_dir), and its dry run the same checks
without making anything.
"""

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Optional

from app.host.common.errors import UsageError
from app.host.common.owners import others_can_write, why_parents_unsafe

PRIVATE, PRIVATE_FILE = 0o700, 0o600


#: A RUN_DIR that works, for the one-line errors: one directory an experiment, named (a $SLURM_JOB_ID typed on a
#: login node expands to nothing there, and every later job would share, and resume from, one directory)
RUN_DIR_EXAMPLE = "$HOME/runs/exp1 (a directory an experiment: a job resumes from what it finds there)"
#: What another user's directory could hold, by default: a run directory's
RUN_FILES = "snapshots or a stop file"


def why_not_private(directory: Path, planted: str = RUN_FILES) -> Optional[str]:
    """None when `directory` is a directory this user owns that neither others nor a group but its owner's own can
    write (`others_can_write`; a symbolic link counts only when this user made it), else why not (`planted`: what
    another user could plant there)."""
    me = os.geteuid()
    info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode):
        if info.st_uid != me:
            return f"is a symbolic link made by another user (uid {info.st_uid})"
        info = os.stat(directory)
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if info.st_uid != me:
        return f"belongs to another user (uid {info.st_uid}), who could have planted {planted} in it"
    if others_can_write(info):
        return (f"is writable by other users (mode {stat.S_IMODE(info.st_mode):04o}), who could plant {planted} "
                f"in it (if it holds only your files: chmod go-w {directory})")
    return None


def why_new_entries_unsafe(directory: Path, entry: str) -> Optional[str]:
    """None when an entry named `entry` that this user makes in `directory` (a temporary directory, where a cache of
    this user's is made next) no one but this user and root can rename or replace: `why_parents_unsafe` for it,
    whoever holds that name there now (that is for the caller to judge)."""
    return why_parents_unsafe(directory / entry, new=True)


def check_private(directory: Path, key: str, example: str = "$SCRATCH/runs/myrun", planted: str = RUN_FILES) -> None:
    """`UsageError` naming `key` (and `example`, a value of it that works) unless `why_not_private(directory)` is
    None."""
    why = why_not_private(directory, planted)
    if why is not None:
        raise UsageError(f"{key}={str(directory)!r} {why}; give a directory of your own, example: {key}={example}")


def ensure_private_dir(directory: Path, key: str, mode: int = PRIVATE, example: str = "$SCRATCH/runs/myrun",
                       planted: str = RUN_FILES, parents: bool = False) -> None:
    """Create `directory` with `mode` (exactly: the umask does not apply) unless it exists, then `check_private`
    (with `parents`, also `why_parents_unsafe`: a run's directory); `key` names the setting in the one-line error,
    `example` a value that works. A path whose parents are unsafe is refused before anything is made on it, and
    checked again once it is there; the directories made above it are never writable by group or others."""
    if parents:
        if os.path.lexists(directory):  # its own owner and mode say most: checked first
            check_private(directory, key, example, planted)
        _check_parents(directory, key, example)
    try:
        for missing in reversed([above for above in directory.parents if not os.path.lexists(above)]):
            with contextlib.suppress(FileExistsError):  # made meanwhile: checked below like the rest
                os.mkdir(missing, 0o755)  # masked by the umask, never beyond 0755: others may not rename in it
        os.mkdir(directory, mode)
        os.chmod(directory, mode)  # mkdir's mode is masked by the umask
    except FileExistsError:
        pass
    except OSError as err:
        raise UsageError(f"{key}={str(directory)!r} is not writable ({err.strerror}); "
                         f"example: {key}={example}") from None
    if parents:
        _check_parents(directory, key, example)
    check_private(directory, key, example, planted)


def check_private_dir(directory: Path, key: str, example: str = "$SCRATCH/runs/myrun",
                      planted: str = RUN_FILES) -> None:
    """What `ensure_private_dir(..., parents=True)` refuses, checked without making anything (a dry run): the
    directories above `directory` that exist, `directory` itself when it exists, and that this user may write
    where it would be made; the same one-line errors."""
    if os.path.lexists(directory):
        check_private(directory, key, example, planted)
    _check_parents(directory, key, example)
    # What the job would make it in, or it itself: the job stops where mkdir or a write would fail
    nearest = next(path for path in (directory, *directory.parents) if os.path.lexists(path))
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise UsageError(f"{key}={str(directory)!r} is not writable (you may not write in {nearest}); "
                         f"example: {key}={example}")


def _check_parents(directory: Path, key: str, example: str) -> None:
    why = why_parents_unsafe(directory)
    if why is not None:
        raise UsageError(f"{key}={str(directory)!r} {why}; put it under a directory only you can write, example: "
                         f"{key}={example}")


def probe_writable(directory: Path, key: str) -> None:
    """Write and remove a file under an unpredictable name, following no link (`O_EXCL | O_NOFOLLOW`)."""
    probe = directory / f".write-test-{secrets.token_hex(8)}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        probe.unlink()
    except OSError as err:
        raise UsageError(f"{key}={str(directory)!r} is not writable ({err.strerror}); "
                         f"example: {key}=$SCRATCH/runs/myrun") from None


def make_private_dir(directory: Path) -> None:
    """mkdir `directory` with `group_readable_mode` of its parent, exactly (the umask does not apply)."""
    mode = group_readable_mode(directory.parent, PRIVATE)
    os.mkdir(directory, mode)
    os.chmod(directory, mode)


def make_private_files(directory: Path) -> None:
    """chmod the files right under `directory` to `group_readable_mode` of it (what a library wrote with the
    umask's mode: DCP's shards)."""
    mode = group_readable_mode(directory, PRIVATE_FILE)
    for path in directory.iterdir():
        if path.is_file() and not path.is_symlink():
            os.chmod(path, mode)


def group_readable_mode(directory: Path, private: int) -> int:
    """`private` (a file's 0600 or a directory's 0700) plus the group's read (and search) bits when `directory`
    lets its group read: what is created inside a run directory opens to no one the directory does not."""
    if os.stat(directory).st_mode & stat.S_IRGRP:
        return private | (private >> 3 & 0o050)
    return private
