"""imagetool: build arguments for every flavour, the definition's invariants, the command line, make -n."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from imagetool.buildargs import git_revision, render_build_args
from imagetool.definition import DefinitionError, placeholders
from imagetool.lint import lint_definition

from app.host.common.fabric_policy import POLICY_FILE

REPO = Path(__file__).resolve().parents[2]
CONTAINERS = REPO / "containers"
#: Lint parses with spython (the `image` extra): a host with only the runtime (a GPU machine) skips these.
needs_spython = pytest.mark.skipif(importlib.util.find_spec("spython") is None,
                                   reason="needs spython: pip install -e '.[image]'")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def _python_image(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CONTAINERS), str(REPO)])}
    return subprocess.run([sys.executable, "-m", "imagetool", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize(("arch", "docker_arch", "wheel_platform"), [
    ("x86_64", "amd64", "manylinux2014_x86_64"),
    ("aarch64", "arm64", "manylinux2014_aarch64"),
])
def test_render_gives_each_architecture_its_platform_and_the_same_pinned_base(arch, docker_arch, wheel_platform):
    args = render_build_args(arch)
    assert args["ARCH"] == arch
    assert args["DOCKER_ARCH"] == docker_arch
    assert args["WHEEL_PLATFORM"] == wheel_platform
    assert args["BOOTSTRAP"] == "docker"
    assert DIGEST.search(args["BASE"]), args["BASE"]
    assert args["BASE"].endswith(args["BASE_DIGEST"])
    assert args["WITH_CUDA"] == "1"
    assert args["TORCH_VERSION"] == args["NGC_TORCH_VERSION"]


def test_smoke_flavour_uses_a_local_base_and_the_cpu_torch_pin():
    args = render_build_args("smoke", overrides={"BASE": "/tmp/rootfs"})
    assert (args["BOOTSTRAP"], args["BASE"], args["WITH_CUDA"]) == ("localimage", "/tmp/rootfs", "0")
    assert args["TORCH_VERSION"] == args["SMOKE_TORCH_VERSION"]


def test_render_writes_only_the_arguments_the_definition_uses(tmp_path):
    out = tmp_path / "aarch64.args"
    result = _python_image("render", "--arch", "aarch64", "--out", str(out))
    assert result.returncode == 0, result.stderr
    keys = [line.split("=", 1)[0] for line in out.read_text().splitlines()]
    assert sorted(keys) == sorted(placeholders((CONTAINERS / "app.def").read_text()))
    assert "WHEEL_PLATFORM" not in keys  # Apptainer rejects unused build arguments


@needs_spython
@pytest.mark.parametrize("arch", ["x86_64", "aarch64", "smoke"])
def test_lint_accepts_the_definition_for_every_flavour(arch):
    result = _python_image("lint", "--arch", arch)
    assert result.returncode == 0, result.stderr
    assert "keeps every invariant" in result.stdout
    assert "WARNING" not in result.stderr  # spython's own logger, silenced for our valid definition


@needs_spython
def test_summary_lists_the_base_digest_and_every_pinned_version():
    result = _python_image("summary", "--arch", "aarch64")
    assert result.returncode == 0, result.stderr
    args = render_build_args("aarch64")
    for key in ("NCCL_VERSION", "AWS_OFI_NCCL_VERSION", "LIBFABRIC_VERSION", "NCCL_TESTS_VERSION"):
        assert re.search(rf"{key}\s+{re.escape(args[key])}", result.stdout), key
    assert args["BASE_DIGEST"] in result.stdout


def test_unknown_arch_exits_2_with_the_valid_choices():
    result = _python_image("render", "--arch", "arm64")
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown --arch 'arm64'; choose one of aarch64, ngc-twin, ngc-twin-aarch64, "
                                    "smoke, x86_64")
    assert "Traceback" not in result.stderr


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def _commit_in(repo: Path) -> None:
    repo.mkdir(exist_ok=True)
    _git(repo, "init", "-q")
    (repo / "file").write_text("one\n")
    _git(repo, "add", "file")
    _git(repo, "commit", "-q", "-m", "one")


def test_the_revision_label_is_the_commit_and_says_dirty_or_not_a_checkout(tmp_path):
    assert git_revision(tmp_path) == "unknown (not a git checkout)"
    repo = tmp_path / "repo"
    _commit_in(repo)
    assert re.fullmatch(r"[0-9a-f]{40}", git_revision(repo))
    (repo / "file").write_text("two\n")
    assert re.fullmatch(r"[0-9a-f]{40}-dirty", git_revision(repo))


@pytest.mark.root
def test_a_checkout_another_user_owns_is_named_with_the_setting_that_trusts_it(tmp_path):
    """A colleague's shared checkout: git refuses it (dubious ownership), which is not "not a git checkout"."""
    repo = tmp_path / "repo"
    _commit_in(repo)
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    assert git_revision(repo) == (f"unknown (git refuses {repo}, another user's checkout: git config --global --add "
                                  f"safe.directory {repo})")


POLICY = POLICY_FILE.name
# Each row breaks one invariant in a copy of containers/ (or of the fabric policy) and names the message
# that must say so.
# (file, old text, new text, flavour, expected message)
VIOLATIONS = [
    ("app.def", "%help\n", "%unknownsection\n", "x86_64", "section %help is missing"),
    ("arch/x86_64.env", "@${NGC_PYTORCH_DIGEST}", "", "x86_64", "is not pinned by digest"),
    ("arch/aarch64.env", "BOOTSTRAP=docker", "BOOTSTRAP=oras", "aarch64", "Bootstrap 'oras' is not allowed"),
    # Apptainer refuses NAME:TAG@DIGEST ("Docker references with both a tag and digest ...").
    ("arch/x86_64.env", "${NGC_PYTORCH_IMAGE}@", "${NGC_PYTORCH_IMAGE}:${NGC_PYTORCH_TAG}@", "x86_64",
     "has a tag and a digest, which Apptainer refuses"),
    ("arch/ngc-twin.env", "BASE_DIGEST=none: local twin of the NGC PyTorch base (CI only, not for clusters)",
     "BASE_DIGEST=", "ngc-twin", "has no BASE_DIGEST"),
    ("versions.env", "AWS_OFI_NCCL_SHA256=12fd67f0", "AWS_OFI_NCCL_SHA256=", "x86_64",
     "AWS_OFI_NCCL_SHA256='5872600c"),
    ("scripts/build-nccl-tests.sh", "tar -xzf", 'curl -LO "$url"\ntar -xzf', "x86_64",
     "build-nccl-tests.sh:19 downloads without a checksum"),
    ("scripts/build-nccl-tests.sh", '"$NCCL_TESTS_SHA256"', '"$(curl -sL "$url.sha256")"', "x86_64",
     "build-nccl-tests.sh:18: fetch_verified without a *_SHA256 build argument"),
    ("app.def", "    app.pin.nccl-tests {{ NCCL_TESTS_VERSION }}\n", "", "x86_64",
     "{{ NCCL_TESTS_VERSION }} is used but has no label"),
    ("app.def", "    org.opencontainers.image.revision {{ GIT_REVISION }}\n", "", "x86_64",
     "label org.opencontainers.image.revision is missing"),
    ("app.def", "    export PYTHONDONTWRITEBYTECODE=1\n",
     "    export PYTHONDONTWRITEBYTECODE=1\n    export NCCL_NET_PLUGIN=hpcx\n", "x86_64",
     "%environment sets fabric variables ('export NCCL_NET_PLUGIN=hpcx')"),
    ("app.def", "    export PYTHONDONTWRITEBYTECODE=1\n",
     "    export PYTHONDONTWRITEBYTECODE=1\n    . /opt/app/fabric_policy.env\n", "x86_64",
     "%environment sets fabric variables ('. /opt/app/fabric_policy.env')"),
    ("app.def", "    . /opt/app/fabric_policy.env\n", "", "x86_64",
     "%runscript does not source /opt/app/fabric_policy.env"),
    (POLICY, "app_setting slingshot always FI_PROVIDER cxi", "export FI_PROVIDER=cxi", "aarch64",
     "sets FI_PROVIDER unconditionally; use 'app_setting FABRIC WHEN FI_PROVIDER VALUE REASON'"),
    (POLICY, "# Bootstrap and socket traffic on the high-speed NICs (hsn0..3), not the management Ethernet that the\n"
     "# node's hostname resolves to (Olivia's `...hostmgmt...` names).\n", "",
     "aarch64", "'app_setting slingshot always NCCL_SOCKET_IFNAME hsn"),
    (POLICY, "unset NCCL_NET_PLUGIN\n", "", "x86_64", "does not 'unset NCCL_NET_PLUGIN'"),
    (POLICY, "unset NCCL_NET_PLUGIN\n", "unset NCCL_NET_PLUGIN\nexport NCCL_NET_PLUGIN=hpcx\n", "x86_64",
     "sets NCCL_NET_PLUGIN; it must stay unset"),
    ("scripts/build.sh", "remove-stale-plugins ", "", "x86_64", "does not run remove-stale-plugins"),
    ("app.def", "{{ NVCC_GENCODE }}", "{{ NVCC_FLAGS }}", "x86_64", "undefined build arguments NVCC_FLAGS"),
    # spython 0.3 loses the From header when a header comment contains "from:"; lint must notice.
    pytest.param("app.def", "%files\n", "# base copied from: the NGC catalogue\n%files\n", "x86_64",
                 "spython read the base as ''", marks=needs_spython),
]


@pytest.mark.parametrize(("path", "old", "new", "arch", "message"), VIOLATIONS,
                         ids=[getattr(row, "values", row)[4][:40] for row in VIOLATIONS])
def test_definition_breaking_an_invariant_is_rejected_with_a_clear_message(tmp_path, path, old, new, arch, message):
    containers = tmp_path / "containers"
    shutil.copytree(CONTAINERS, containers)
    policy = tmp_path / POLICY
    shutil.copy(POLICY_FILE, policy)
    target = policy if path == POLICY else containers / path
    text = target.read_text()
    assert old in text, f"fixture out of date: {old!r} not in {path}"
    target.write_text(text.replace(old, new, 1))
    with pytest.raises(DefinitionError) as caught:
        args = render_build_args(arch, containers)
        lint_definition((containers / "app.def").read_text(), args, containers, policy)
    assert message in str(caught.value)


def test_cli_rejects_a_bad_definition_with_exit_2_and_one_line(tmp_path):
    containers = tmp_path / "containers"
    shutil.copytree(CONTAINERS, containers)
    definition = containers / "app.def"
    definition.write_text(definition.read_text().replace("%test\n", "%nottest\n"))
    result = _python_image("lint", "--arch", "x86_64", "--definition", str(definition))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: 1 problem(s)")
    assert "section %test is missing" in result.stderr


def test_make_dry_run_shows_lint_then_the_aarch64_build_command():
    result = subprocess.run(["make", "-n", "image", "ARCH=aarch64"], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    lint = next(i for i, line in enumerate(lines) if "-m imagetool lint --arch aarch64" in line)
    check = next(i for i, line in enumerate(lines) if "check-host --arch aarch64 --build-arch aarch64" in line)
    build = next(i for i, line in enumerate(lines) if "-m imagetool build " in line)
    assert lint < check < build
    assert re.search(r"imagetool build --arch aarch64 --build-arch aarch64 --apptainer apptainer .*"
                     r"--args-file build/aarch64\.args .*--out build/app-aarch64-[0-9.]+\.sif\.tmp$", lines[build])
    assert any(re.match(r"mv build/app-aarch64-[0-9.]+\.sif\.tmp build/app-aarch64-[0-9.]+\.sif$", line)
               for line in lines)


def test_make_offline_build_checks_the_mirror_first_and_takes_the_base_from_a_file():
    result = subprocess.run(["make", "-n", "image", "ARCH=x86_64", "SOURCES=/mirror", "BASE=/bases/ngc.sif"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    wanted = "imagetool sources --check --arch x86_64 --mirror /mirror"
    check = next(i for i, line in enumerate(lines) if wanted in line)
    build = next(i for i, line in enumerate(lines) if "-m imagetool build " in line)
    assert check < build
    render = next(line for line in lines if "imagetool render" in line)
    assert "--set SOURCES=/mirror" in render
    assert "--set BOOTSTRAP=localimage --set BASE=/bases/ngc.sif" in render
    assert "sha256sum /bases/ngc.sif" in render
