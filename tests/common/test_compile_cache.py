"""torch.compile's caches (app/common/compile_cache.py): what inductor loads from them runs as the job's user,
so a directory another user made first at their usual place (`$TMPDIR/torchinductor_$USER`, on a shared /tmp)
is never used. The other user is the provisioned unprivileged `ddpuser`, acting with runuser."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.other_user import as_other_user, needs_other_user
from tests.trainer_runs import REPO, clean_env

#: What the worker reports: every cache directory torch 2.13 resolves, after the trainer's own step
RESOLVE = """
import json, sys
from app.common.compile_cache import private_compile_caches
said = private_compile_caches()
from torch._inductor.cache import InductorOnDiskCache
from torch._inductor.runtime.cache_dir_utils import cache_dir, default_cache_dir, triton_cache_dir
print(json.dumps({"said": said, "cache_dir": cache_dir(), "default_cache_dir": default_cache_dir(),
                  "triton_cache_dir": triton_cache_dir(0), "on_disk_cache": str(InductorOnDiskCache().base_dir)}))
"""

# Each test starts an interpreter that imports torch (slow); acting as another user needs root
pytestmark = [pytest.mark.slow, pytest.mark.root, needs_other_user]


def resolve(tmpdir: Path, **extra: str) -> dict:
    env = clean_env(TMPDIR=str(tmpdir), **extra)
    for name in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
        if name not in extra:
            env.pop(name, None)
    result = subprocess.run([sys.executable, "-c", RESOLVE], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def assert_private_and_not_under(paths: list[str], planted: Path) -> None:
    for path in paths:
        assert not Path(path).is_relative_to(planted), f"{path} is under the other user's {planted}"
        owner = Path(path)
        while not owner.exists():
            owner = owner.parent
        info = owner.stat()
        assert info.st_uid == os.geteuid() and not info.st_mode & 0o022, f"{owner} is not private"


def test_a_cache_directory_another_user_made_first_at_torchs_usual_place_is_not_used(shared_tmp):
    planted = shared_tmp / "torchinductor_root"
    as_other_user("mkdir", "-m", "0777", str(planted))
    resolved = resolve(shared_tmp)
    paths = [resolved[key] for key in ("cache_dir", "default_cache_dir", "triton_cache_dir", "on_disk_cache")]
    assert_private_and_not_under(paths, planted)
    assert stat.S_IMODE(Path(resolved["cache_dir"]).stat().st_mode) == 0o700
    assert [line for line in resolved["said"] if line.startswith("warning")] == [
        f"warning: the compile cache's usual place {planted} belongs to another user (uid "
        f"{planted.stat().st_uid}), who could have planted compiled code that torch loads in it: not used; this "
        f"run "
        f"compiles into {resolved['cache_dir']} (and its temporary files into TMPDIR="
        f"{Path(resolved['cache_dir']).parent}); remove the other one, or set TORCHINDUCTOR_CACHE_DIR to a "
        f"directory of yours"]
    assert list(planted.iterdir()) == []


def test_torchs_usual_place_is_made_private_before_torch_makes_it(shared_tmp):
    resolved = resolve(shared_tmp)
    assert resolved["cache_dir"] == str(shared_tmp / "torchinductor_root")
    assert stat.S_IMODE((shared_tmp / "torchinductor_root").stat().st_mode) == 0o700


@pytest.mark.parametrize("name", ["TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"])
def test_a_cache_directory_you_name_that_another_user_can_write_is_refused(shared_tmp, name):
    planted = shared_tmp / "cache"
    as_other_user("mkdir", "-m", "0777", str(planted))
    env = clean_env(TMPDIR=str(shared_tmp), **{name: str(planted)})
    result = subprocess.run([sys.executable, "-c", RESOLVE], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode != 0
    assert f"UsageError: {name}='{planted}' belongs to another user" in result.stderr


@pytest.mark.parametrize("name", ["TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"])
def test_a_cache_directory_you_name_in_a_directory_your_group_can_write_is_refused(group_project, name):
    # Yours and 0700, but in a directory a group member can write: they rename it away and put theirs in its place
    cache = group_project / "cache"
    cache.mkdir(mode=0o700)
    env = clean_env(**{name: str(cache)})
    result = subprocess.run([sys.executable, "-c", RESOLVE], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode != 0
    assert (f"UsageError: {name}='{cache}' lies in {group_project}, which other users can write (mode 2775): they "
            "can rename cache/ and make their own in its place") in result.stderr


def test_a_temporary_directory_in_a_directory_your_group_can_write_stops_the_trainer_in_one_line(group_project,
                                                                                                  tmp_path):
    # TMPDIR yours and 0700, in the group's project directory: torch's cache would be made in it, where a member
    # swapped it for theirs after the first compiled run and had their code run in the next
    temporary = group_project / "tmp"
    temporary.mkdir(mode=0o700)
    env = clean_env(TMPDIR=str(temporary))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    command = [sys.executable, "-m", "app.train", "--config", "demo", "train.max_steps=1",
               f"run.dir={tmp_path / 'run'}"]
    result = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.splitlines()[-1] == (
        f"error: TMPDIR='{temporary}': torch.compile's cache {temporary / 'torchinductor_root'} lies in "
        f"{group_project}, which other users can write (mode 2775): they can rename tmp/ and make their own in its "
        "place, and torch loads the compiled code it finds there as you; set TMPDIR (or TORCHINDUCTOR_CACHE_DIR) "
        "to a directory only you can write, example: TMPDIR=$HOME/tmp")
    assert not (temporary / "torchinductor_root").exists()


@pytest.mark.skipif(not os.environ.get("APP_COMPILE_PROOF"),
                    reason="a compiled CPU run takes 30-120 s: APP_COMPILE_PROOF=1 (nox -s proofs) runs it")
def test_a_compiled_training_run_writes_and_reads_nothing_in_another_users_cache_directory(shared_tmp, tmp_path):
    planted = shared_tmp / "torchinductor_root"
    as_other_user("mkdir", "-m", "0777", str(planted))
    env = clean_env(TMPDIR=str(shared_tmp))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    command = [sys.executable, "-m", "app.train", "--config", "demo", "workload.name=regression", "train.max_steps=2",
               "train.eval_every=0", "train.compile=true", f"run.dir={tmp_path / 'run'}"]
    result = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "completed at step 2" in result.stderr
    # What the run compiled went to a private directory; the other user's holds nothing of it (before, it held
    # every kernel, which its owner can swap for code of theirs before the next compiled run loads it)
    assert list(planted.iterdir()) == []
    private = [path for path in shared_tmp.iterdir() if path.name.startswith("ddp-tmp-")]
    assert len(private) == 1 and any((private[0] / "torchinductor_root").iterdir())


#: A script of your own under the job scripts: torch's defaults, nothing of this project's
YOUR_SCRIPT = """
import json
from torch._inductor.cache import InductorOnDiskCache
from torch._inductor.runtime.cache_dir_utils import cache_dir, default_cache_dir, triton_cache_dir
print(json.dumps({"cache_dir": cache_dir(), "default_cache_dir": default_cache_dir(),
                  "triton_cache_dir": triton_cache_dir(0), "on_disk_cache": str(InductorOnDiskCache().base_dir)}))
"""


def your_script_under_the_node_wrapper(shared_tmp) -> subprocess.CompletedProcess[str]:
    """YOUR_SCRIPT started by the real node wrapper, as the job scripts start your own script, in `shared_tmp`."""
    env = clean_env(TMPDIR=str(shared_tmp), LOGNAME="root")
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    return subprocess.run(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"), str(shared_tmp / "stop"), "", "",
                           sys.executable, "-c", YOUR_SCRIPT], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("planting", [["mkdir", "-m", "0777"], ["mkdir", "-m", "0755"], ["ln", "-s", "/tmp"]],
                         ids=["writable", "theirs", "link"])
def test_your_own_script_under_the_node_wrapper_never_uses_another_users_cache_directory(shared_tmp, planting):
    planted = shared_tmp / "torchinductor_root"
    as_other_user(*planting, str(planted))
    result = your_script_under_the_node_wrapper(shared_tmp)
    assert result.returncode == 0, result.stderr
    resolved = json.loads(result.stdout.splitlines()[-1])
    assert_private_and_not_under(list(resolved.values()), planted)
    assert f"warning: the compile cache's usual place {planted} is not yours alone: not used; TMPDIR=" \
        in result.stderr
    assert planting[0] == "ln" or list(planted.iterdir()) == []


def test_your_own_script_under_the_node_wrapper_keeps_torchs_place_when_it_is_yours(shared_tmp):
    (shared_tmp / "torchinductor_root").mkdir(mode=0o700)
    result = your_script_under_the_node_wrapper(shared_tmp)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["cache_dir"] == str(shared_tmp / "torchinductor_root")
    assert "warning" not in result.stderr
