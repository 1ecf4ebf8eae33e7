"""Who besides you can change a file or a directory: its owner, its mode, its group, the directories above it
(standard library only, Python 3.6). The job's first Python reads this file as text, by its path, before anything
else of the checkout runs (app/host/launch/run_checkout.py): it imports nothing of the project.

A file is its owner's to rewrite; one whose mode lets its group write, every member's, except where the group is
its owner's private group: on systems that give each user a group of their own (the user-private-group
convention: RHEL, Fedora, Debian and Ubuntu's `useradd` default), umask 002 is the default and makes every file
group-writable by a group whose one member is its owner (`private_group`). A directory others can write lets them
rename what is in it and put their own in its place (`why_parents_unsafe`, for RUN_DIR, the image, the caches).

The job's checkout (`why_checkout_unsafe`): the job runs its code on the batch host and imports it on every node,
so whoever can change a file of it runs their code as you. The job scripts start the job through
run_checkout.py, which checks the checkout here before it imports any of it and refuses in one line, exit 2
(`exit_unless_yours`). What runs before that check cannot be protected by it: the job script's few bash lines,
run_checkout.py and this file.
"""

import functools
import grp
import os
import pwd
import stat
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional, Set, Tuple

#: The exit code of bad input (app/host/common/exitcodes.py USAGE: this file imports nothing of the project)
USAGE = 2
#: The local accounts (read as a file: see `private_group`)
PASSWD = "/etc/passwd"


@functools.lru_cache(maxsize=None)
def private_group(gid: int, uid: int) -> bool:
    """Whether group GID is user UID's group of one, by the convention's own marks: it has that user's name, it is
    that user's primary group, it lists no other member, and no other local account has it as its primary group.

    Accounts from a directory service (LDAP, SSSD) whose primary group it is are not looked for:
    `pwd.getpwall()` lists them only where the site lets the directory be enumerated (SSSD does not by default,
    and then lists local accounts alone, which proves nothing), and where it does, it reads the whole directory,
    at every job start. A directory that keeps the convention gives each user's group that user's name and gid.
    The local accounts are read from /etc/passwd itself, a small file: that is where a system account sharing a
    user's group is found (RHEL's `operator`, `sync`, `halt` and `shutdown` have root's group as theirs)."""
    try:
        user = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
    except KeyError:  # a group or user without a name here: whose it is cannot be told
        return False
    if gid != user.pw_gid or group.gr_name != user.pw_name or set(group.gr_mem) - {user.pw_name}:
        return False
    return not _primary_group_of_another(gid, user.pw_name)


def _primary_group_of_another(gid: int, name: str) -> bool:
    """Whether an account in /etc/passwd other than NAME has GID as its primary group."""
    try:
        with open(PASSWD, encoding="utf-8", errors="replace") as passwd:
            fields = [line.split(":") for line in passwd]
    except OSError:
        return False
    return any(len(entry) > 3 and entry[0] != name and entry[3] == str(gid) for entry in fields)


def others_can_write(info: os.stat_result) -> bool:
    """Whether anyone but the owner (and root) may write what INFO describes, by its mode: others may, or its group
    may and is not its owner's group of one (`private_group`)."""
    if info.st_mode & stat.S_IWOTH:
        return True
    return bool(info.st_mode & stat.S_IWGRP) and not private_group(info.st_gid, info.st_uid)


def who_else_writes(info: os.stat_result) -> str:
    """Who besides its owner may write what INFO describes (`others_can_write` is true), in words with its mode."""
    mode = f"mode {stat.S_IMODE(info.st_mode):04o}"
    if info.st_mode & stat.S_IWOTH:
        return f"every user ({mode})"
    try:
        return f"the group {grp.getgrgid(info.st_gid).gr_name} (gid {info.st_gid}, {mode})"
    except KeyError:
        return f"the group of gid {info.st_gid} ({mode})"


def _unmapped_owner() -> "Tuple[int, ...]":
    """The uid files of unmapped owners show inside a user namespace (an unprivileged Apptainer container maps only
    its user, so root's /, /tmp and /gpfs show as the kernel's overflow uid, 65534): trusted as root is, since the
    namespace cannot say whose they are; the job scripts check RUN_DIR's parents on the host before the container
    starts. Outside a user namespace (the identity map): none."""
    try:
        with open("/proc/self/uid_map") as uid_map:
            if uid_map.read().split() == ["0", "0", "4294967295"]:
                return ()
        with open("/proc/sys/kernel/overflowuid") as overflow:
            return (int(overflow.read()),)
    except (OSError, ValueError):
        return ()


def trusted_owners() -> Set[int]:
    """The owners whose directories this user trusts as its own: this user, root, and inside a user namespace the
    unmapped owner (`_unmapped_owner`)."""
    return {os.geteuid(), 0, *_unmapped_owner()}


def why_parents_unsafe(directory: Path, trusted: Optional[Set[int]] = None, new: bool = False) -> Optional[str]:
    """None when no user but this one (and root) can rename `directory` or any directory above it, else which
    parent lets them and why. A parent others can write (`others_can_write`) lets them rename what is in it and put
    their own in its place (`runs/` swapped for theirs: the later snapshots go to them), unless it is sticky (/tmp,
    1777) and what is in it on the way is this user's: then only its owner may rename it. Both the path as given
    and the one its links lead to are checked. `trusted`: the owners trusted instead of this user and root (the
    image build's mirror also trusts the checkout's owner). What does not exist yet is skipped: whoever makes it
    later is this user, so the path can be checked before anything on it is made; with `new`, `directory` itself
    counts as not made yet, whoever holds its name now."""
    trusted = trusted_owners() if trusted is None else trusted
    absolute = Path(os.path.abspath(str(directory)))
    for path in (absolute, Path(os.path.realpath(str(directory)))):
        for parent, child in zip(path.parents, [path, *path.parents]):
            try:
                info = os.stat(str(parent))
            except FileNotFoundError:
                continue
            if info.st_uid not in trusted:
                return (f"lies in {parent}, which belongs to another user (uid {info.st_uid}), who can rename what "
                        "is in it")
            if not others_can_write(info):
                continue
            mode = f"mode {stat.S_IMODE(info.st_mode):04o}"
            if not info.st_mode & stat.S_ISVTX:
                name = child.name if os.path.lexists(str(child)) and not os.path.isdir(str(child)) else child.name + "/"
                return (f"lies in {parent}, which other users can write ({mode}): they can rename {name} and "
                        "make their own in its place")
            if not (new and child == path) and _owner(child) not in trusted:  # root's own is trusted, as its parents
                return (f"lies in {child}, which is not yours, in {parent} ({mode}, sticky): its owner can rename "
                        "what is in it")
    return None


def _owner(path: Path) -> int:
    """Who owns `path`; this user for one not made yet (this user makes it)."""
    try:
        return os.lstat(str(path)).st_uid
    except FileNotFoundError:
        return os.geteuid()


class Program(NamedTuple):
    """What a program run_checkout.py starts takes from the checkout."""

    #: The directories of the checkout whose every file and directory it may run or import, checked whole
    parts: Tuple[str, ...]
    #: Where it imports from, first to last, relative to the checkout ("" is the checkout itself)
    path: Tuple[str, ...]
    #: The name its one-line errors go by where the command line names none (`--script=NAME`)
    name: str


#: The job (app.host.launch) and the job's own commands: the checkout's app/ (the job on the batch host, and every
#: worker of train and check, which import this checkout's app; the node wrapper and the other shell texts the job
#: runs on the nodes live in it too) and jobscripts/
JOB = Program(("app", "jobscripts"), ("",), "")
#: The image build job (jobscripts/build-image.sh): containers/imagetool, the recipes and scripts the build runs,
#: and the app/ it imports
PROGRAMS = {"imagetool": Program(("app", "containers", "jobscripts"), ("containers", ""), "build-image.sh")}


def program(module: str) -> Program:
    """What MODULE, run by run_checkout.py, takes from the checkout."""
    return PROGRAMS.get(module, JOB)


def why_checkout_unsafe(checkout: str, parts: Tuple[str, ...]) -> Optional[str]:
    """None when no one but this user and root can change what runs from CHECKOUT: the checkout directory (on the
    import path first, where a module planted beside app/ would hide the standard library's), every directory
    above it (`why_parents_unsafe`), and every file and directory under PARTS (bytecode caches included: Python
    loads a `__pycache__/*.pyc` that names its source's size and time instead of the source) must belong to this
    user or root and be writable by no one else (`others_can_write`); a symbolic link among them is refused, as
    what it leads to is not checked. Else the first that fails, why, and the remedy, in one line."""
    top = os.path.abspath(checkout)
    trusted = trusted_owners()
    try:
        why = _why_not_yours(top, os.stat(top), trusted, top)
    except OSError as err:
        return f"cannot read the checkout {top} ({err.strerror}); run the job scripts from a whole checkout"
    if why is not None:
        return why
    above = why_parents_unsafe(Path(top))
    if above is not None:
        return (f"the checkout {top} {above}, and with it the code the job runs as you; clone the project into a "
                "directory only you can write")
    for part in parts:
        try:
            why = _why_tree_not_yours(os.path.join(top, part), trusted, top)
        except OSError as err:
            return f"cannot read {os.path.join(top, part)} ({err.strerror}); run the job scripts from a whole checkout"
        if why is not None:
            return why
    return None


def _why_tree_not_yours(directory: str, trusted: Set[int], top: str) -> Optional[str]:
    """`_why_not_yours` for DIRECTORY and everything under it, read with os.scandir (one lstat an entry)."""
    why = _why_not_yours(directory, os.lstat(directory), trusted, top)
    if why is not None:
        return why
    with os.scandir(directory) as entries:
        for entry in entries:
            info = entry.stat(follow_symlinks=False)
            why = _why_not_yours(entry.path, info, trusted, top)
            if why is None and stat.S_ISDIR(info.st_mode):
                why = _why_tree_not_yours(entry.path, trusted, top)
            if why is not None:
                return why
    return None


def _why_not_yours(path: str, info: os.stat_result, trusted: Set[int], top: str) -> Optional[str]:
    """Why PATH (described by INFO), in the checkout TOP, could hold code that is not yours, with the remedy."""
    where = f"the checkout {top}" if path == top else f"{path} in the checkout"
    if stat.S_ISLNK(info.st_mode):
        return (f"{where} is a symbolic link, and what it leads to is not checked; replace it with a copy of what it "
                "leads to")
    if info.st_uid not in trusted:
        return (f"{where} belongs to {_user(info.st_uid)}, who can rewrite the code the job runs as you; clone the "
                "project into a directory only you can write")
    if others_can_write(info):
        return (f"{where} can be written by {who_else_writes(info)}, who can then change the code the job runs as "
                f"you; chmod -R g-w,o-w {top} (or clone the project into a directory only you can write)")
    return None


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def exit_unless_yours(checkout: str, module: str, argv: List[str]) -> None:
    """Exit with `USAGE` and one line on stderr, named as the command line names the job (`--script=NAME`) or as
    its program (`Program.name`, else the module), unless `why_checkout_unsafe` finds nothing."""
    why = why_checkout_unsafe(checkout, program(module).parts)
    if why is None:
        return
    named = [word[len("--script="):] for word in argv if word.startswith("--script=")]
    print(f"{(named or [program(module).name or module])[0]}: error: {why}", file=sys.stderr, flush=True)
    raise SystemExit(USAGE)
