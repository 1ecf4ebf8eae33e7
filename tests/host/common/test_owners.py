"""Who besides you can change a file (app/host/common/owners.py): a group of one is no one else, any other group is
its members, and the job's checkout is refused in one line, naming the path and who can write it, when anyone but
you and root could change the code the job runs."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.common import exitcodes, owners
from app.host.launch.checkout import text
from tests.fixtures.other_user import needs_shared_group, writable_by_a_group
from tests.trainer_runs import REPO

ALICE, BOB = 1000, 1001
#: A user database of two users on RHEL's convention (each a group of their own) and a group both are in
USERS = {ALICE: pwd.struct_passwd(("alice", "x", ALICE, ALICE, "", "/home/alice", "/bin/bash")),
         BOB: pwd.struct_passwd(("bob", "x", BOB, 100, "", "/home/bob", "/bin/bash"))}
GROUPS = {ALICE: grp.struct_group(("alice", "x", ALICE, [])),
          100: grp.struct_group(("users", "x", 100, [])),  # SUSE's: every user's primary group, no member listed
          2000: grp.struct_group(("proj", "x", 2000, ["alice", "bob"])),
          2001: grp.struct_group(("alice", "x", 2001, [])),  # named like alice, not her primary group
          }
PASSWD = "alice:x:1000:1000::/home/alice:/bin/bash\nbob:x:1001:100::/home/bob:/bin/bash\n"


@pytest.fixture
def user_database(monkeypatch, tmp_path):
    """USERS and GROUPS as the `pwd` and `grp` modules answer, PASSWD as /etc/passwd; returns that file."""
    def lookup(table):
        def get(key):
            if key not in table:
                raise KeyError(key)
            return table[key]
        return get

    monkeypatch.setattr(owners.pwd, "getpwuid", lookup(USERS))
    monkeypatch.setattr(owners.grp, "getgrgid", lookup(GROUPS))
    passwd = tmp_path / "passwd"
    passwd.write_text(PASSWD)
    monkeypatch.setattr(owners, "PASSWD", str(passwd))
    owners.private_group.cache_clear()
    yield passwd
    owners.private_group.cache_clear()


@pytest.mark.parametrize(("gid", "uid", "members", "extra_account", "one"), [
    (ALICE, ALICE, [], "", True),  # RHEL's useradd: alice's group, named alice, no member listed
    (ALICE, ALICE, ["alice"], "", True),  # the same, listing its owner
    (ALICE, ALICE, ["bob"], "", False),  # bob was added to it
    (ALICE, ALICE, [], "operator:x:11:1000::/root:/sbin/nologin\n", False),  # another account's primary group too
    (ALICE, BOB, [], "", False),  # alice's, not bob's
    (100, BOB, [], "", False),  # bob's primary group, but everyone's: `users`
    (2000, ALICE, None, "", False),  # a project's group
    (2001, ALICE, None, "", False),  # named like her, not her primary group
    (4242, ALICE, None, "", False),  # a group with no name here: whose it is cannot be told
    (ALICE, 4242, [], "", False),  # a user with no name here
])
def test_a_group_is_a_group_of_one_only_by_the_user_private_group_conventions_marks(
        user_database, monkeypatch, gid, uid, members, extra_account, one):
    if members is not None:
        monkeypatch.setitem(GROUPS, gid, grp.struct_group((GROUPS[gid].gr_name, "x", gid, members)))
    user_database.write_text(PASSWD + extra_account)
    assert owners.private_group(gid, uid) is one


def stat_of(mode: int, uid: int = ALICE, gid: int = ALICE) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(("mode", "gid", "others"), [
    (0o100644, ALICE, False),
    (0o100664, ALICE, False),  # umask 002 with her group of one: no one else
    (0o040775, ALICE, False),
    (0o100664, 2000, True),  # the project's group: bob too
    (0o100664, 100, True),
    (0o100666, ALICE, True),  # everyone, whatever the group
    (0o040757, ALICE, True),
])
def test_others_can_write_by_the_mode_and_whose_group_it_is(user_database, mode, gid, others):
    assert owners.others_can_write(stat_of(mode, gid=gid)) is others


def test_who_else_writes_names_the_group_and_the_mode(user_database):
    assert owners.who_else_writes(stat_of(0o102775, gid=2000)) == "the group proj (gid 2000, mode 2775)"
    assert owners.who_else_writes(stat_of(0o100666)) == "every user (mode 0666)"
    assert owners.who_else_writes(stat_of(0o100664, gid=4242)) == "the group of gid 4242 (mode 0664)"


def a_checkout(top: Path, *parts: str) -> Path:
    """A checkout of a few files in each of PARTS, made under umask 022: this user's, 0755 and 0644."""
    for part in parts:
        (top / part / "pkg" / "__pycache__").mkdir(parents=True)
        (top / part / "pkg" / "mod.py").write_text("x = 1\n")
        (top / part / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"bytecode")
    for path in [top, *top.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return top


def test_a_checkout_of_yours_alone_passes(tmp_path):
    assert owners.why_checkout_unsafe(str(a_checkout(tmp_path / "ddp", "app", "jobscripts")), owners.JOB.parts) is None


def test_this_checkout_passes_for_the_job_and_the_image_build():
    """The tests run from a checkout as a user makes one: what the job scripts run from it must pass."""
    for program in (owners.JOB, *owners.PROGRAMS.values()):
        assert owners.why_checkout_unsafe(str(REPO), program.parts) is None


@pytest.mark.parametrize("where", ["", "app", "app/pkg", "app/pkg/mod.py", "app/pkg/__pycache__",
                                   "app/pkg/__pycache__/mod.cpython-311.pyc", "jobscripts/pkg/mod.py"])
@needs_shared_group
def test_anything_of_the_checkout_a_group_of_others_can_write_is_named_with_the_chmod(tmp_path, where):
    checkout = a_checkout(tmp_path / "ddp", "app", "jobscripts")
    path = checkout / where
    writable_by_a_group(path, 0o775 if path.is_dir() else 0o664)
    why = owners.why_checkout_unsafe(str(checkout), owners.JOB.parts)
    named = f"the checkout {checkout}" if path == checkout else f"{path} in the checkout"
    assert why is not None and why.startswith(f"{named} can be written by the group "), why
    assert why.endswith(f"who can then change the code the job runs as you; chmod -R g-w,o-w {checkout} (or clone "
                        "the project into a directory only you can write)"), why


def test_a_file_every_user_can_write_is_refused(tmp_path):
    checkout = a_checkout(tmp_path / "ddp", "app", "jobscripts")
    (checkout / "jobscripts" / "pkg" / "mod.py").chmod(0o666)
    assert owners.why_checkout_unsafe(str(checkout), owners.JOB.parts).startswith(
        f"{checkout / 'jobscripts' / 'pkg' / 'mod.py'} in the checkout can be written by every user (mode 0666)")


def test_only_what_the_program_runs_is_walked(tmp_path):
    """containers/ is the image build's (its tooling and recipes), not the job's; nor are docs/ or tests/."""
    checkout = a_checkout(tmp_path / "ddp", "app", "jobscripts", "containers", "docs")
    (checkout / "containers" / "pkg" / "mod.py").chmod(0o666)
    (checkout / "docs" / "pkg" / "mod.py").chmod(0o666)
    assert owners.why_checkout_unsafe(str(checkout), owners.JOB.parts) is None
    assert "containers" in owners.why_checkout_unsafe(str(checkout), owners.program("imagetool").parts)


@pytest.mark.parametrize("theirs", ["the whole checkout", "one module"])
@pytest.mark.skipif(os.geteuid() != 0, reason="a file of another user's needs chown (root)")
def test_what_another_user_owns_is_refused_even_where_only_they_can_write_it(tmp_path, theirs):
    """Its owner can chmod it and rewrite it: it is their code, run as you. A colleague's or a site's checkout
    too, 0755 and 0644: clone your own (git itself will not work in a checkout another user owns)."""
    checkout = a_checkout(tmp_path / "ddp", "app", "jobscripts")
    module = checkout / "app" / "pkg" / "mod.py"
    for path in [checkout, *checkout.rglob("*")] if theirs == "the whole checkout" else [module]:
        os.lchown(path, 54321, 54321)
    named = f"the checkout {checkout}" if theirs == "the whole checkout" else f"{module} in the checkout"
    assert owners.why_checkout_unsafe(str(checkout), owners.JOB.parts) == (
        f"{named} belongs to uid 54321, who can rewrite the code the job runs as you; clone the project into a "
        "directory only you can write")


def test_a_symbolic_link_in_the_checkout_is_refused(tmp_path):
    checkout = a_checkout(tmp_path / "ddp", "app", "jobscripts")
    (checkout / "app" / "pkg" / "linked.py").symlink_to(tmp_path / "elsewhere.py")
    assert "linked.py in the checkout is a symbolic link" in owners.why_checkout_unsafe(str(checkout),
                                                                                          owners.JOB.parts)


def test_a_checkout_in_a_directory_others_can_write_is_refused(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o777)
    checkout = a_checkout(tmp_path / "shared" / "ddp", "app", "jobscripts")
    assert owners.why_checkout_unsafe(str(checkout), owners.JOB.parts) == (
        f"the checkout {checkout} lies in {tmp_path / 'shared'}, which other users can write (mode 0777): they can "
        "rename ddp/ and make their own in its place, and with it the code the job runs as you; clone the project "
        "into a directory only you can write")


def test_a_checkout_without_a_part_says_so(tmp_path):
    checkout = a_checkout(tmp_path / "ddp", "app")
    assert owners.why_checkout_unsafe(str(checkout), owners.JOB.parts) == (
        f"cannot read {checkout / 'jobscripts'} (No such file or directory); run the job scripts from a whole checkout")


def test_the_refusal_exits_with_the_usage_code():
    assert owners.USAGE == exitcodes.USAGE


def run_checkout(checkout: Path, *argv: str) -> subprocess.CompletedProcess:
    """run_checkout.py's text as the job scripts pass it to `python3 -I -S -c`, for CHECKOUT."""
    return subprocess.run([sys.executable, "-I", "-S", "-c", text("app/host/launch/run_checkout.py"), str(checkout),
                           *argv], capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(("argv", "name"), [(["app.host.launch", "--script=mn5.sh", "job"], "mn5.sh"),
                                            (["imagetool", "build-job"], "build-image.sh"),
                                            (["app.host.common.history", "event"], "app.host.common.history")])
def test_the_refusal_is_one_line_named_as_the_job_and_exit_2_and_nothing_of_the_checkout_runs(tmp_path, argv, name):
    checkout = tmp_path / "ddp"
    for part in ("app", "containers", "jobscripts"):
        shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    proof = tmp_path / "imported"
    for package in ("app", "containers/imagetool"):
        with open(checkout / package / "__init__.py", "a") as init:
            init.write(f"\nopen({str(proof)!r}, 'w').close()\n")
    (checkout / "jobscripts").chmod(0o777)
    result = run_checkout(checkout, *argv)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr == (f"{name}: error: {checkout / 'jobscripts'} in the checkout can be written by every user "
                             f"(mode 0777), who can then change the code the job runs as you; chmod -R g-w,o-w "
                             f"{checkout} (or clone the project into a directory only you can write)\n")
    assert not proof.exists(), "a module of the refused checkout was imported"


def test_a_checkout_of_yours_runs_the_module_it_names():
    result = run_checkout(REPO, "app.host.launch", "--help")
    assert result.returncode == 0 and "python3 -m app.launch" in result.stdout, result.stderr
