"""Why a path cannot be read or written, said in words a user can act on: the tools' refusals name the cause
(a missing directory, permission denied and whose directory it is), never a traceback.

Standard library only, Python 3.6 (the login tools use it; app.check too). Writing is judged by the kernel's own
rule, access(2) (os.access): it answers for the user who runs the tool, counts a read-only mount (EROFS), and
writes nothing, so thousands of ranks can ask at once.
"""

import os
import pwd
import stat
from typing import Optional

#: What to do about a run directory another user's mode keeps you out of: the job scripts' RUN_DIR_MODE=750 lets
#: the group read a run (docs/knobs.md), chmod does for one already made
READ_REMEDY = ("ask its owner to let your group read it (RUN_DIR_MODE=750 for the next job, chmod -R g+rX on "
               "this one)")


def owner_and_mode(path: str) -> str:
    """'owner alice, mode 700' for `path`, or '' when it cannot be looked at."""
    try:
        info = os.stat(path)
    except OSError:
        return ""
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = f"uid {info.st_uid}"
    return f"owner {owner}, mode {stat.S_IMODE(info.st_mode):o}"


def why_unreadable_directory(path: str) -> Optional[str]:
    """Why the directory `path` cannot be listed and entered ('permission denied (owner alice, mode 700)'), or
    None when it can. Opens it and reads one entry: bounded whatever it holds."""
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as error:
        return _cause(error, path)
    if not os.access(path, os.X_OK):  # listed but not entered: its files cannot be opened
        return f"permission denied ({owner_and_mode(path)})"
    return None


def why_unwritable(path: str) -> Optional[str]:
    """Why the file `path` cannot be written (created or replaced), or None when it can: its directory is
    missing, not a directory or not yours to write, or the path is a directory or a file you may not write."""
    directory = os.path.dirname(path) or "."
    try:
        info = os.stat(directory)
    except OSError as error:
        return f"its directory {directory} {_missing_or(error, directory)}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{directory} is not a directory"
    if os.path.isdir(path):
        return "it is a directory; give a file's path"
    if os.path.lexists(path):
        if not os.access(path, os.W_OK):
            return f"it exists and you may not write it ({owner_and_mode(path)})"
        return None
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"you may not write in {directory} ({owner_and_mode(directory)})"
    return None


def _missing_or(error: OSError, path: str) -> str:
    if isinstance(error, FileNotFoundError):
        return "does not exist"
    if isinstance(error, NotADirectoryError):
        return "is not a directory (a file stands where a directory of its path should be)"
    return f"cannot be reached: {_cause(error, path)}"


def _cause(error: OSError, path: str) -> str:
    """'permission denied (owner alice, mode 700)' for EACCES, else the system's words."""
    if isinstance(error, PermissionError):
        where = owner_and_mode(path)
        return f"permission denied ({where})" if where else "permission denied"
    return (error.strerror or str(error)).lower()
