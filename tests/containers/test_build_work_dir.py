"""The image build compiles in a private directory of its own, never in the build host's shared /tmp.

Apptainer's %post sees the build host's /tmp: a fixed name there (/tmp/build) can be created first by another
user, who could then swap a source archive between its sha256 check and its use.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "containers" / "scripts" / "lib.sh"
#: Every script that runs inside an image build's %post (the app image's steps and the twin's layout)
BUILD_SCRIPTS = sorted([*REPO.glob("containers/scripts/*.sh"), REPO / "containers/twin/lay-out-ngc.sh"])


def _private_work_dir(root: Path) -> Path:
    result = subprocess.run(["bash", "-c", f'source "{LIB}"; private_work_dir "$1"', "test", str(root)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return Path(result.stdout.strip())


def test_private_work_dir_ignores_a_precreated_world_writable_build_dir(tmp_path):
    squatted = tmp_path / "build"
    squatted.mkdir()
    squatted.chmod(0o1777)
    work = _private_work_dir(tmp_path)
    assert work.parent == tmp_path
    assert work != squatted
    info = work.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.geteuid()


def test_private_work_dir_is_new_on_each_call(tmp_path):
    assert _private_work_dir(tmp_path) != _private_work_dir(tmp_path)


def test_no_build_script_writes_to_the_hosts_tmp():
    uses = []
    for script in BUILD_SCRIPTS:
        for number, line in enumerate(script.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"(^|[\s=\"'])/(var/)?tmp(/|\b)", code):
                uses.append(f"{script.relative_to(REPO)}:{number}: {line.strip()}")
    assert not uses, "\n".join(uses)
