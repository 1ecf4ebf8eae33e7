"""The run directory (and the snapshot directory) hold what a resume trusts: snapshots, the stop file, the run's
history. In a group-writable project directory another user can create `runs/<next job id>` first, or plant a
symbolic link where the trainer probes: the trainer creates its directories private to its owner and refuses
one that someone else owns or can write."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.train.cli import check_writable
from app.train.snapshot import layout
from tests.fixtures.other_user import needs_other_user, other_uid, runs_swapped_by_the_other_user, writable_by_a_group
from tests.train.test_snapshot_metadata import FIXTURE
from tests.trainer_runs import run, train_command

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's directory needs chown (root)")

OTHER_UID = 54321
TEST_USER = os.environ.get("APPTAINER_TEST_USER", "ddpuser")
REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin")


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_run_dir_is_private_to_its_owner_whatever_the_umask(tmp_path, umask_022):
    run_dir = tmp_path / "runs" / "123"
    check_writable(run_dir, "run.dir")
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700


def test_the_directories_made_above_a_new_run_dir_are_not_group_writable_under_a_group_umask(tmp_path):
    """A umask of 002 (common where groups share projects) would give `runs/` mode 0775, which the check then
    refuses as a place group members can rename the run in: what the trainer makes, it makes safe."""
    run_dir = tmp_path / "scratch" / "runs" / "123"
    previous = os.umask(0o002)
    try:
        check_writable(run_dir, "run.dir")
    finally:
        os.umask(previous)
    assert [stat.S_IMODE(path.stat().st_mode) for path in (run_dir.parent.parent, run_dir.parent, run_dir)] == \
        [0o755, 0o755, 0o700]


def test_a_run_dir_another_user_owns_is_refused(tmp_path):
    run_dir = tmp_path / "123"
    run_dir.mkdir(mode=0o755)
    os.chown(run_dir, OTHER_UID, OTHER_UID)
    with pytest.raises(UsageError, match=f"uid {OTHER_UID}"):
        check_writable(run_dir, "run.dir")


def test_a_symbolic_link_another_user_planted_as_the_run_dir_is_refused(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "123"
    link.symlink_to(mine)
    os.lchown(link, OTHER_UID, OTHER_UID)
    with pytest.raises(UsageError, match="symbolic link"):
        check_writable(link, "run.dir")


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_a_run_dir_others_can_write_is_refused_with_the_chmod_that_fixes_it(tmp_path, mode):
    run_dir = tmp_path / "123"
    run_dir.mkdir()
    writable_by_a_group(run_dir, mode)  # a group of others: a group of one of yours is no one else
    with pytest.raises(UsageError, match="chmod go-w"):
        check_writable(run_dir, "run.dir")


def test_the_write_probe_follows_no_planted_link(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    (run_dir / f".write-test-{os.getpid()}").symlink_to(victim)
    check_writable(run_dir, "run.dir")
    assert not victim.exists(), "the probe wrote through a planted symbolic link"


@pytest.mark.slow  # the trainer's interpreter, importing torch
def test_the_trainer_refuses_another_users_run_dir_in_one_line_exit_2(tmp_path):
    run_dir = tmp_path / "123"
    run_dir.mkdir(mode=0o755)
    os.chown(run_dir, OTHER_UID, OTHER_UID)
    result = run(train_command("--config", "regression", f"run.dir={run_dir}", "train.max_steps=1"))
    assert result.returncode == 2, result.stderr[-2000:]
    error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "run.dir" in error[0] and "example" in error[0], result.stderr[-2000:]
    assert list(run_dir.iterdir()) == []


@pytest.mark.slow  # the trainer's interpreter, importing torch
def test_a_snapshot_dir_another_user_owns_is_refused_before_anything_is_read(tmp_path):
    snapshots = tmp_path / "shared-snapshots"
    snapshots.mkdir(mode=0o755)
    os.chown(snapshots, OTHER_UID, OTHER_UID)
    result = run(train_command("--config", "regression", f"run.dir={tmp_path / 'run'}",
                               f"snapshot.dir={snapshots}", "train.max_steps=1"))
    assert result.returncode == 2, result.stderr[-2000:]
    assert "snapshot.dir" in result.stderr and f"uid {OTHER_UID}" in result.stderr


def test_a_sharded_snapshot_directory_others_can_write_is_not_resumed_from(tmp_path):
    snapshot = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, snapshot)
    assert layout.read(snapshot) is not None
    snapshot.chmod(0o777)
    assert layout.read(snapshot) is None
    snapshot.chmod(0o700)
    os.chown(snapshot, OTHER_UID, OTHER_UID)
    assert layout.read(snapshot) is None


@pytest.mark.parametrize(("parent_mode", "runs_owner", "refused"), [
    (0o775, "me", True),  # a group-writable project directory: a member renames runs/ and makes their own
    (0o777, "me", True),
    (0o1777, "other", True),  # sticky, but runs/ is someone else's: they rename what is in it
    (0o1777, "me", False),  # sticky (/tmp-like) and runs/ is mine: no one else can rename it
    (0o755, "me", False),
])
def test_a_run_dir_under_a_parent_others_can_rename_it_in_is_refused(tmp_path, parent_mode, runs_owner, refused):
    project = tmp_path / "project"
    (project / "runs").mkdir(parents=True, mode=0o755)
    writable_by_a_group(project, parent_mode)
    if runs_owner == "other":
        os.chown(project / "runs", OTHER_UID, OTHER_UID)
        (project / "runs").chmod(0o777)  # theirs, open to all: the run directory itself is still made and mine
    run_dir = project / "runs" / "123"
    if not refused:
        check_writable(run_dir, "run.dir")
        return
    with pytest.raises(UsageError) as raised:
        check_writable(run_dir, "run.dir")
    message = str(raised.value)
    assert "\n" not in message and "run.dir=$SCRATCH/runs/" in message
    assert str(project if runs_owner == "me" else project / "runs") in message
    assert not run_dir.exists(), "the refused run directory was made before its parents were checked"


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("runuser") is None or SYSTEM_PYTHON is None or
                    subprocess.run(["id", TEST_USER], capture_output=True).returncode != 0,
                    reason=f"needs root and the test user {TEST_USER} (tests/provision/system.sh)")
def test_a_users_run_dir_in_a_directory_root_made_in_a_sticky_tmp_is_accepted():
    """A site (or a job's prolog) makes a directory in /tmp as root and the user's runs/ in it: only root and the
    user can rename anything on that path."""
    made_by_root = Path(tempfile.mkdtemp(prefix="ddp-root-made-", dir="/tmp"))
    try:
        made_by_root.chmod(0o755)
        (made_by_root / "runs").mkdir()
        shutil.chown(made_by_root / "runs", TEST_USER)
        probe = ("import sys; from pathlib import Path; from app.host.common.private_dir import why_parents_unsafe; "
                 "print(why_parents_unsafe(Path(sys.argv[1])))")
        # The system's python3: the module needs only the standard library, and the test user may not reach .venv's
        result = subprocess.run(["runuser", "-u", TEST_USER, "--", SYSTEM_PYTHON, "-I", "-c",
                                 f"import sys; sys.path.insert(0, {str(REPO)!r}); {probe}",
                                 str(made_by_root / "runs" / "1")],
                                capture_output=True, text=True, timeout=60, cwd="/tmp")
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "None"
    finally:
        shutil.rmtree(made_by_root, ignore_errors=True)


@pytest.mark.slow  # the trainer's interpreter, importing torch
def test_the_trainer_refuses_a_run_dir_in_a_group_writable_directory_in_one_line_exit_2(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    writable_by_a_group(project, 0o775)
    result = run(train_command("--config", "regression", f"run.dir={project / 'runs' / '123'}",
                               "train.max_steps=1"))
    assert result.returncode == 2, result.stderr[-2000:]
    error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and str(project) in error[0] and "run.dir=$SCRATCH/runs/" in error[0], result.stderr
    assert "Traceback" not in result.stderr
    assert list(project.iterdir()) == [], "the trainer made directories in a place it refused"


@pytest.mark.slow  # the trainer's interpreter, importing torch
@needs_other_user
def test_the_trainer_refuses_a_run_dir_in_a_runs_directory_another_user_swapped_in_in_one_line_exit_2(
        group_project):
    theirs = runs_swapped_by_the_other_user(group_project)
    result = run(train_command("--config", "regression", f"run.dir={theirs / '123'}", "train.max_steps=1"))
    assert result.returncode == 2, result.stderr[-2000:]
    error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and f"{theirs}, which belongs to another user (uid {other_uid()})" in error[0], \
        result.stderr[-2000:]
    assert "run.dir=$SCRATCH/runs/" in error[0] and "Traceback" not in result.stderr
    assert list(theirs.iterdir()) == [], "the trainer made something in their runs/"
