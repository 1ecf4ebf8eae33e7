"""The CPU smoke image, built and run for real: checks, 2-rank torchrun training, labels, pip freeze.

Built once per session by the `smoke_image` fixture (`make smoke-image`), or before by the build job
(`nox -s tests` builds it with jobscripts/build-image.sh beside its first run), run as the non-root user: what these
tests assert holds for either route.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from imagetool.buildargs import app_version, read_env_file

pytestmark = [pytest.mark.apptainer, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
VERSIONS = read_env_file(REPO / "containers" / "versions.env")


def labels_of(sif: Path) -> dict[str, str]:
    result = subprocess.run(["apptainer", "inspect", "--json", "--labels", str(sif)], capture_output=True,
                            text=True, check=True, timeout=60)
    return json.loads(result.stdout)["data"]["attributes"]["labels"]


def test_node_check_runs_inside_the_image(run_in_image):
    result = run_in_image("python", "-m", "app.check", "--node-only")
    assert result.returncode == 0, result.stderr


def test_two_rank_torchrun_trains_inside_the_image_as_a_normal_user(run_in_image, user_dir):
    run_dir = user_dir / "run"
    result = run_in_image("torchrun", "--standalone", "--nproc-per-node=2", "-m", "app.train", "--config", "demo",
                          "train.max_steps=4", f"run.dir={run_dir}", timeout=600, verb="run")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["status"], summary["step"]) == ("completed", 4)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert "app.pin.torch" in json.dumps(manifest), "the run manifest should carry the image's labels"


def test_labels_record_the_pinned_versions_and_what_was_installed(smoke_image):
    labels = labels_of(smoke_image)
    torch_pin = VERSIONS["SMOKE_TORCH_VERSION"]
    assert labels["app.pin.torch"] == torch_pin
    assert labels["app.installed.torch"] == f"{torch_pin}+cpu"
    assert labels["app.pin.python"] == VERSIONS["SMOKE_PYTHON_VERSION"]
    assert labels["app.installed.python"].startswith(VERSIONS["SMOKE_PYTHON_VERSION"] + ".")
    for key, label in [("NCCL_VERSION", "nccl"), ("AWS_OFI_NCCL_VERSION", "aws-ofi-nccl"),
                       ("LIBFABRIC_VERSION", "libfabric"), ("NCCL_TESTS_VERSION", "nccl-tests")]:
        assert labels[f"app.pin.{label}"] == VERSIONS[key]
    assert labels["app.installed.cuda-components"].startswith("skipped")
    assert re.fullmatch(r"[0-9a-f]{40}(-dirty)?", labels["org.opencontainers.image.revision"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", labels["org.opencontainers.image.created"])
    assert labels["org.opencontainers.image.base.digest"].startswith("none: local debootstrap")


def test_pip_freeze_in_the_image_is_exactly_the_lock(run_in_image):
    """Same inputs, same environment: every installed distribution is a pin of the smoke flavour's hash-checked lock
    (whichever route gathered its wheelhouse: make's pip, or the mirror `make sources` wrote), and the project."""
    lock = (REPO / "containers" / "locks" / "wheelhouse-smoke.txt").read_text()
    wheels = {re.sub(r"[-_.]+", "-", name).lower(): version
              for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) ", lock, re.MULTILINE)}
    wheels["app"] = app_version(REPO)
    result = run_in_image("python", "-m", "pip", "freeze", "--all")
    assert result.returncode == 0, result.stderr
    frozen = {}
    for line in result.stdout.splitlines():
        name, _, version = line.partition("==")
        frozen[re.sub(r"[-_.]+", "-", name).lower()] = version
    frozen.pop("pip")  # comes with the venv, not from the wheelhouse
    assert frozen == wheels


@pytest.fixture
def fake_slingshot_node(user_dir: Path) -> Path:
    """A /dev tree with a cxi device, readable by the image's user (bound in through /tmp)."""
    probe = user_dir / "node"
    (probe / "dev").mkdir(parents=True)
    (probe / "dev" / "cxi0").touch()
    for path in [probe, probe / "dev", probe / "dev" / "cxi0"]:
        path.chmod(0o755)
    return probe


def _env_in_image(run_in_image, verb: str, env: dict[str, str]) -> dict[str, str]:
    result = run_in_image("env", env=env, verb=verb)
    assert result.returncode == 0, result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


def test_apptainer_run_applies_fabric_defaults_and_the_users_values_win(run_in_image, fake_slingshot_node):
    env = _env_in_image(run_in_image, "run", {"APP_PROBE_ROOT": str(fake_slingshot_node), "SLURM_JOB_NUM_NODES": "2",
                                              "NCCL_SOCKET_IFNAME": "hsn0", "NCCL_NET_PLUGIN": "stale"})
    assert env["NCCL_NET"] == "AWS Libfabric"
    assert env["FI_PROVIDER"] == "cxi"
    assert env["NCCL_SOCKET_IFNAME"] == "hsn0"
    assert "NCCL_NET_PLUGIN" not in env


def test_apptainer_exec_leaves_the_users_fabric_settings_alone(run_in_image, fake_slingshot_node):
    env = _env_in_image(run_in_image, "exec",
                        {"APP_PROBE_ROOT": str(fake_slingshot_node), "NCCL_SOCKET_IFNAME": "hsn0"})
    assert env["NCCL_SOCKET_IFNAME"] == "hsn0"
    assert "FI_PROVIDER" not in env


def test_make_smoke_image_does_nothing_when_no_input_changed(smoke_image):
    result = subprocess.run(["make", "-q", "-C", str(REPO), "smoke-image"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, "build/smoke.sif is out of date right after the fixture built it"
