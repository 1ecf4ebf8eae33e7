"""The image build job's own program (containers/imagetool/buildjob.py), without a scheduler: what it refuses, the
steps it plans, and its private directory, run as `bash jobscripts/build-image.sh` where the script itself is part of
what is tested (a user may run it directly; the batch system runs the same lines). A stand-in Apptainer gives the
version line and can hang, so a stop arrives mid-step. Each test takes about a second; the submissions to the Slurm
test cluster and the emulated PBS, and the whole build, are in tests/jobscripts/test_build_image_job.py.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from imagetool.buildjob import BuildJob, plan, read_job

from tests.fixtures.other_user import needs_shared_group, writable_by_a_group
from tests.test_login_tools import login_python
from tests.trainer_runs import REPO, clean_env

SCRIPT = REPO / "jobscripts" / "build-image.sh"
OTHER_ARCH = "aarch64" if os.uname().machine == "x86_64" else "x86_64"
#: A stand-in `apptainer`: the version line the job logs; with HANG_ON_CALL=N its Nth call writes its pid to MARK
#: and sleeps instead (the job's own `--version` is call 1, check-host's is call 2). The pid is renamed into place:
#: a test that sees MARK signals at once, and a half-written MARK would hold no pid
FAKE_APPTAINER = """#!/bin/sh
n=$(cat "$FAKE_COUNT" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$FAKE_COUNT"
if [ -n "${HANG_ON_CALL:-}" ] && [ "$n" -ge "$HANG_ON_CALL" ]; then
  echo $$ >"$FAKE_MARK.part" && mv "$FAKE_MARK.part" "$FAKE_MARK"; exec sleep 60
fi
[ "$1" = --version ] && { echo "apptainer version 1.4.1"; exit 0; }
echo "stand-in apptainer: $*" >&2; exit 1
"""


@pytest.fixture
def fake_apptainer(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "apptainer"
    path.parent.mkdir()
    path.write_text(FAKE_APPTAINER)
    path.chmod(0o755)
    return path


#: The node's python3, and the oldest a node may have (SLES 15's 3.6) where one is found here
PYTHONS = [pytest.param("python3", id="python3"),
           pytest.param(login_python(), id="python3.6", marks=pytest.mark.skipif(
               login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one (pyenv install 3.6)"))]


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "scratch").mkdir()
    return tmp_path / "scratch"


def job_env(tmp_path: Path, apptainer: Path, **knobs: str) -> dict[str, str]:
    return {**clean_env(), "APPTAINER": str(apptainer), "FAKE_COUNT": str(tmp_path / "count"),
            "FAKE_MARK": str(tmp_path / "mark"), "CHECKOUT": str(REPO), **knobs}


def run_script(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT)], env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


REFUSALS = {
    "another architecture": ({"FLAVOUR": OTHER_ARCH},
                             f"flavour {OTHER_ARCH} is an {OTHER_ARCH} image and this node ({os.uname().nodename}) "
                             f"is {os.uname().machine}; submit to {OTHER_ARCH} nodes (sbatch -p <their partition>, "
                             f"qsub -q <their queue>) or pick FLAVOUR={os.uname().machine}"),
    "ARCH names the flavour too": ({"ARCH": OTHER_ARCH}, f"flavour {OTHER_ARCH} is an {OTHER_ARCH} image"),
    "no such flavour": ({"FLAVOUR": "riscv"}, "no flavour 'riscv' (containers/arch/riscv.env); FLAVOUR=x86_64, "
                        "FLAVOUR=aarch64 or FLAVOUR=smoke"),
    "a flavour outside containers/arch": ({"FLAVOUR": "../arch/smoke"}, "no flavour '../arch/smoke'"),
    "no apptainer": ({"APPTAINER": "no-such-apptainer"},
                     f"no no-such-apptainer on {os.uname().nodename}; load it (module load apptainer) or name it: "
                     "APPTAINER=singularity"),
    "no python": ({"PYTHON": "no-such-python3"},
                  f"no no-such-python3 on {os.uname().nodename}; name the node's Python 3: PYTHON=/usr/bin/python3"),
    "no checkout": ({"CHECKOUT": "/"}, "/ holds no containers/app.def; submit from the project directory (cd "
                    "/path/to/checkout && sbatch jobscripts/build-image.sh)"),
    "no scratch": ({"FLAVOUR": "smoke", "BUILD_SCRATCH": "/no/such/scratch"},
                   "cannot make a directory in /no/such/scratch; BUILD_SCRATCH=/a/dir/of/yours"),
    "no mirror": ({"FLAVOUR": "smoke", "SOURCES": "/no/such/mirror"},
                  f"SOURCES=/no/such/mirror: no such directory on {os.uname().nodename}; name the mirror `make "
                  "sources` wrote, e.g. SOURCES=$PWD/build/sources, or leave SOURCES empty to download"),
    "no base": ({"FLAVOUR": "smoke", "BASE": "/no/such/base.sif"},
                f"BASE=/no/such/base.sif: no such file or directory on {os.uname().nodename}; name the base `make "
                f"base ARCH={os.uname().machine}` pulled"),
}


@pytest.mark.parametrize("knobs, said", REFUSALS.values(), ids=REFUSALS.keys())
def test_each_refusal_is_one_line_with_its_remedy_and_exit_2(knobs, said, tmp_path, fake_apptainer, scratch):
    env = job_env(tmp_path, fake_apptainer, **{"BUILD_SCRATCH": str(scratch), **knobs})
    result = run_script(env, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines() == [result.stderr.strip()], result.stderr  # one line, no traceback
    assert result.stderr.startswith(f"build-image.sh: error: {said}"), result.stderr
    assert not list(scratch.iterdir()), "a refused job left a directory in the scratch"


@needs_shared_group
def test_a_checkout_whose_build_scripts_a_group_can_write_is_refused_before_any_of_it_runs(tmp_path, fake_apptainer,
                                                                                         scratch):
    """The build job runs containers/'s tooling and scripts as you: one a group member could rewrite stops the job
    before the tooling is imported (app/host/launch/run_checkout.py)."""
    checkout = tmp_path / "ddp"
    for part in ("app", "containers", "jobscripts"):
        shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    script = checkout / "containers" / "fetch-wheels.sh"
    writable_by_a_group(script, 0o775)
    env = job_env(tmp_path, fake_apptainer, CHECKOUT=str(checkout), BUILD_SCRATCH=str(scratch))
    result = subprocess.run(["bash", str(checkout / "jobscripts" / "build-image.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert (result.returncode, result.stdout) == (2, ""), result.stdout + result.stderr
    assert result.stderr.startswith(f"build-image.sh: error: {script} in the checkout can be written by the group "), \
        result.stderr
    assert not (tmp_path / "count").exists(), "the job ran apptainer"


def smoke_job(tmp_path: Path, **knobs: str) -> BuildJob:
    return read_job({"APPTAINER": "sh", "FLAVOUR": "smoke", "IMAGE_DIR": str(tmp_path / "images"), **knobs},
                    node_arch="x86_64", node="node1")


def arguments(words: list[str], flag: str) -> list[str]:
    """Every value given after `flag` in a command line."""
    return [value for word, value in itertools.pairwise(words) if word == flag]


def test_offline_the_plan_is_make_images_steps_from_the_mirror(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    job = smoke_job(tmp_path, SOURCES=str(mirror), SQUASHFS_ARGS="-comp zstd -Xcompression-level 1",
                    APPTAINER_BUILD_FLAGS="--notest")
    work = tmp_path / "work"
    steps = plan(job, work)
    assert [step.name for step in steps] == ["lint", "check-host", "sources", "render", "wheelhouse", "build"]
    by_name = {step.name: step.argv for step in steps}
    images = tmp_path / "images"
    assert by_name["sources"][4:] == ["sources", "--check", "--arch", "smoke", "--mirror", str(mirror)]
    assert f"SOURCES={mirror}" in arguments(by_name["render"], "--set")
    assert f"WHEELHOUSE={images / 'wheelhouse-smoke'}" in arguments(by_name["render"], "--set")
    assert arguments(by_name["render"], "--out") == [str(images / "smoke.args")]
    assert by_name["wheelhouse"][1:] == [str(REPO / "containers" / "wheelhouse.sh"), "smoke",
                                         str(images / "wheelhouse-smoke"), by_name["lint"][0]]
    assert steps[4].env == {"SOURCES": str(mirror)}
    build = by_name["build"]
    assert arguments(build, "--build-arch") == ["x86_64"] and arguments(build, "--args-file") == [
        str(images / "smoke.args")]
    assert arguments(build, "--squashfs-args") == ["-comp zstd -Xcompression-level 1"]
    assert "--extra=--notest" in build and "--extra=--notest" in by_name["check-host"]
    # Written beside the image, renamed only once whole
    assert arguments(build, "--out") == [str(images / "app-smoke-0.1.0.sif.tmp")]
    assert job.sif == images / "app-smoke-0.1.0.sif"
    # The smoke flavour's own base unless BASE names another
    assert f"BASE={REPO / 'build' / 'smoke-rootfs'}" in arguments(build, "--set")
    # The checkout's tooling, on the standard library alone
    assert all(step.env == {"PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
               for step in steps if step.name != "wheelhouse")
    assert all(step.argv[1:4] == ["-S", "-m", "imagetool"] for step in steps if step.name != "wheelhouse")


def test_online_the_build_gets_an_empty_mirror_of_its_own_and_no_mirror_check(tmp_path):
    job = smoke_job(tmp_path)
    work = tmp_path / "work"
    steps = plan(job, work)
    assert [step.name for step in steps] == ["lint", "check-host", "render", "wheelhouse", "build"]
    assert f"SOURCES={work / 'no-sources'}" in arguments(steps[2].argv, "--set")
    assert steps[3].env == {"SOURCES": ""}


def test_a_local_base_for_a_registry_flavour_is_built_from_it_with_its_sha256(tmp_path):
    """As `make image BASE=ngc.sif` does: Bootstrap: localimage, the file's name, and its sha256 where the registry
    digest stood (for lint and check-host the name alone: hashing many GB once is enough)."""
    base = tmp_path / "ngc-pytorch-x86_64.sif"
    base.write_bytes(b"a base image")
    job = read_job({"APPTAINER": "sh", "FLAVOUR": "x86_64", "BASE": str(base)}, node_arch="x86_64", node="node1")
    steps = {step.name: step.argv for step in plan(job, tmp_path / "work")}
    local = ["BOOTSTRAP=localimage", f"BASE={base}", f"BASE_NAME={base.name}"]
    for name in ("lint", "check-host", "build"):
        assert arguments(steps[name], "--set") == [*local, f"BASE_DIGEST=local file {base.name}"], name
    digest = hashlib.sha256(b"a base image").hexdigest()
    rendered = [*local, f"BASE_DIGEST=sha256:{digest} (local file {base.name})"]
    assert arguments(steps["render"], "--set")[1:-1] == rendered


def test_relative_knobs_are_taken_from_the_checkout(tmp_path):
    job = read_job({"APPTAINER": "sh", "FLAVOUR": "smoke", "IMAGE_DIR": "build", "SOURCES": "containers"},
                   node_arch="x86_64", node="node1")
    assert (job.image_dir, job.sources) == (REPO / "build", REPO / "containers")


def start_job(env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(["bash", str(SCRIPT)], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def wait_for(path: Path, job: subprocess.Popen[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert job.poll() is None, job.communicate()[0]
        assert time.monotonic() < deadline, f"no {path} after {timeout_s} s"
        time.sleep(0.05)


def ended(pid: int, timeout_s: float = 10) -> bool:
    """The process is gone, or dead and waiting for its reaper (a zombie: state Z in /proc/PID/stat)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("python", PYTHONS)
def test_a_failed_step_ends_the_job_with_its_status_and_removes_the_private_directory(python, tmp_path,
                                                                                     fake_apptainer, scratch):
    """The stand-in Apptainer builds nothing: check-host or, past it, the empty mirror's check stops the build."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    env = job_env(tmp_path, fake_apptainer, FLAVOUR="smoke", SOURCES=str(mirror), BUILD_SCRATCH=str(scratch),
                  IMAGE_DIR=str(tmp_path / "images"), PYTHON=python)
    result = run_script(env, tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"build-image.sh: building flavour smoke on {os.uname().nodename} ({os.uname().machine}) with apptainer " \
           "version 1.4.1 and Python " in result.stdout
    assert "build-image.sh: temporary space and cache in " in result.stdout
    assert "build-image.sh: stopped: the " in result.stdout and " step ended with exit 2" in result.stdout
    assert not list(scratch.iterdir()), "the private directory outlived the job"
    assert not list((tmp_path / "images").iterdir())


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_from_the_scheduler_stops_the_step_and_removes_the_private_directory(signum, python, tmp_path,
                                                                                    fake_apptainer, scratch):
    """The scheduler's SIGTERM (time limit, scancel, qdel), sent here to the job alone: the running step (check-host,
    inside the stand-in Apptainer) and its children go, then the private directory, and the job ends 128+N."""
    env = job_env(tmp_path, fake_apptainer, FLAVOUR="smoke", BUILD_SCRATCH=str(scratch), HANG_ON_CALL="2",
                  IMAGE_DIR=str(tmp_path / "images"), PYTHON=python)
    job = start_job(env, tmp_path)
    try:
        wait_for(tmp_path / "mark", job)
        [work] = scratch.iterdir()
        # mkdtemp's mode: no other user can read the build or plant a file in it
        assert stat.S_IMODE(work.stat().st_mode) == 0o700
        assert (work / "tmp").is_dir()
        job.send_signal(signum)
        output = job.communicate(timeout=30)[0]
    finally:
        job.kill()
    assert job.returncode == 128 + signum, output
    assert f"build-image.sh: stopped by {signal.Signals(signum).name}; removing {work}" in output
    assert not work.exists()
    assert ended(int((tmp_path / "mark").read_text())), "the step's child outlived the job"
