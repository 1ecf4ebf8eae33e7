"""The image file a job runs: only its owner (and root) may be able to replace it (standard library only).

Every step runs `apptainer exec IMAGE`, so whoever can put another file at that path runs their code as you on
every node. The default, `./app.sif`, lies in the submit directory, which is often a project directory the whole
group can write: a member could plant or swap it. So the file must not be writable by others, nor by its group
unless that is its owner's group of one (app/host/common/owners.py), and no directory above it may let anyone but
you, root or the file's owner rename it (`why_parents_unsafe`, as for RUN_DIR). An image another user owns (a
site's, a colleague's) is run as the trust in its owner allows, and the log says whose it is."""

import os
import pwd
import stat
from pathlib import Path
from typing import List

from app.host.common.errors import UsageError
from app.host.common.owners import others_can_write, trusted_owners, why_parents_unsafe


def check_image_file(image: str) -> List[str]:
    """UsageError when someone other than the file's owner and root could replace IMAGE; else the lines to log."""
    info = os.stat(image)
    owner = info.st_uid
    if others_can_write(info):
        why = f"is writable by other users (mode {stat.S_IMODE(info.st_mode):04o})"
    else:
        why = why_parents_unsafe(Path(image), {*trusted_owners(), owner})
    if why is not None:
        name = Path(image).name
        raise UsageError(f"IMAGE={image!r} {why}: an image they put there would run as you in every step; keep it "
                         f"where only you can write, e.g. mkdir -m 700 $HOME/images && cp {image} $HOME/images/ and "
                         f"IMAGE=$HOME/images/{name}")
    if owner in trusted_owners():
        return []
    return [f"IMAGE {image} belongs to {_user_name(owner)}: the job runs what its owner puts there"]


def _user_name(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"
