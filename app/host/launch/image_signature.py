"""An image's PGP signature, checked against the keys of your keyring before a job uses it, and made at push
(standard library only).

Apptainer keeps PGP keys in a keyring directory: ~/.apptainer/keys, or APPTAINER_KEYSDIR where set, beside the
system's global keyring /etc/apptainer/global-pgp-public (Apptainer 1.4.4's apptainer-key(1),
apptainer-key-newpair(1); the same in 1.4.5's --help). `apptainer verify --local` ("only verify with local key(s) in
keyring", apptainer-verify(1)) checks every signed object of the SIF with those keys and never asks a key server: a
compute node has no route out, and a key server would vouch for any key anyone uploaded. A group shares its public
keyring (`apptainer key export`), and the one who pushes keeps the secret key.
"""

import os
import re
import stat
import subprocess
from typing import Mapping

from app.host.common.errors import UsageError
from app.host.common.owners import others_can_write

#: What `apptainer verify` says (its "FATAL: Failed to verify container: integrity: ..." line), and what to do
_AGAIN = "do not run it; pull it again from the registry and, if it persists, tell the one who pushed it"
_ADDED = "a part of it was added after it was signed (an overlay, a partition): " + _AGAIN
_REMEDIES = (
    ("signature not found for object group 1", "it is unsigned: sign it with the group's key ('make sign "
                                               "PUSH_IMAGE=FILE') and push it again, or run it unverified with "
                                               "IMAGE_VERIFY=0"),
    ("unknown entity", "it is signed by a key that is not in your keyring ({keyring}): import the group's public key "
                       "('apptainer key import GROUP.asc', or APPTAINER_KEYSDIR=the group's keyring), or ask who "
                       "pushed it; never run an image signed by a stranger"),
    # A partition added to a signed SIF (`apptainer sif add`): in the signed group, or in a group of its own
    ("not signed", _ADDED),
    ("signature not found", _ADDED),
    ("integrity compromised", "its contents changed after it was signed (tampered or damaged): " + _AGAIN),
)


def keyring(environ: Mapping[str, str]) -> str:
    return environ.get("APPTAINER_KEYSDIR") or os.path.join(os.path.expanduser("~"), ".apptainer", "keys")


def check_keyring_owned(environ: Mapping[str, str]) -> None:
    """A keyring another user can write would let them add the key their image is signed with."""
    where = keyring(environ)
    for path in (where, os.path.join(where, "pgp-public")):
        try:
            found = os.stat(path)
        except OSError:
            continue
        if others_can_write(found):  # its owner's group of one (umask 002, user-private groups) is no one else
            raise UsageError(f"the keyring {path} is writable by other users (mode {stat.S_IMODE(found.st_mode):o}), "
                             "who could add the key a forged "
                             f"image is signed with; chmod o-w,g-w {path} or set APPTAINER_KEYSDIR to a keyring only "
                             "its owner writes")


def verify(runtime: str, sif: str, source: str, environ: Mapping[str, str]) -> str:
    """Who signed SIF ("Name <email>, fingerprint F"); a missing, unknown or broken signature stops the job."""
    check_keyring_owned(environ)
    try:
        result = subprocess.run([runtime, "verify", "--local", sif], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, timeout=1800, check=False)  # noqa: UP021 (3.6)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"cannot check the signature of {source}: {runtime} verify: {error}; set "
                         "APPTAINER=/path/to/apptainer") from None
    if result.returncode != 0:
        said = [line for line in result.stdout.splitlines() if "FATAL" in line or "rror" in line]
        line = said[-1] if said else ""
        cause = re.sub(r"^.*Failed to verify container: (integrity: )?|^FATAL:\s*", "", line).strip() or \
            f"{runtime} verify exited {result.returncode}"
        remedy = next((text for key, text in _REMEDIES if key in cause),
                      f"check it by hand with '{runtime} verify --local {sif}'")
        raise UsageError(f"image {source} failed its signature check ({cause}): "
                         f"{remedy.format(keyring=keyring(environ))}")
    entity = re.search(r"Signing entity: (.*)", result.stdout)
    fingerprint = re.search(r"Fingerprint: (\S+)", result.stdout)
    return "{}, fingerprint {}".format(entity.group(1).strip() if entity else "?",
                                       fingerprint.group(1) if fingerprint else "?")


def is_signed_by_keyring(runtime: str, sif: str) -> bool:
    result = subprocess.run([runtime, "verify", "--local", sif], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, timeout=1800, check=False)
    return result.returncode == 0
