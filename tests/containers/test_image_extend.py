"""`make image-extend`: a built image plus a user's own wheels (containers/extend-image.sh, containers/extend.def).

The wheel is built from a tiny local project (`pip wheel`, no network); the image is the smoke image, extended once
for the session's tests (tests/fixtures/extended_image.py). The bad-input tests need neither Apptainer nor an image:
extend-image.sh stops before the build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.extended_image import ExtendedImage, extend, tiny_wheel

REPO = Path(__file__).resolve().parents[2]
EXTEND = REPO / "containers" / "extend-image.sh"
TEST_USER = os.environ.get("APPTAINER_TEST_USER", "ddpuser")


def labels_of(sif: Path) -> dict[str, str]:
    result = subprocess.run(["apptainer", "inspect", "--json", "--labels", str(sif)], capture_output=True,
                            text=True, check=True, timeout=60)
    return json.loads(result.stdout)["data"]["attributes"]["labels"]


@pytest.fixture
def image_dir() -> Iterator[Path]:
    """Where the extended image goes: a directory of the building user (Apptainer as root with --fakeroot cannot
    write into the test user's) that the test user can read."""
    path = Path(tempfile.mkdtemp(prefix="ddp-extended-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def exec_as_user(sif: Path, *command: str) -> subprocess.CompletedProcess[str]:
    as_user = ["runuser", "-u", TEST_USER, "--"] if os.geteuid() == 0 else []
    return subprocess.run([*as_user, "apptainer", "exec", str(sif), *command], cwd="/tmp", capture_output=True,
                          text=True, timeout=300)


BAD_INPUTS = [
    # (what to change, text the one error line must contain)
    ("no-wheels", "no .whl file in WHEELS="),
    ("no-image", "is not a file (build it with make image, or give its path)"),
    ("out-is-image", "OUT is IMAGE"),
    ("bad-name", "PACKAGES item 'x;rm' is not a package name"),
]


@pytest.mark.parametrize(("case", "expected"), BAD_INPUTS, ids=[case for case, _ in BAD_INPUTS])
def test_bad_input_stops_before_the_build_with_one_line_and_exit_2(tmp_path: Path, case: str, expected: str) -> None:
    image = tmp_path / "app.sif"
    image.write_bytes(b"not built: the script must stop before apptainer reads it")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    if case != "no-wheels":
        (wheels / "mine-0.1-py3-none-any.whl").write_bytes(b"")
    args = {"no-wheels": (image, wheels, tmp_path / "my.sif", ""),
            "no-image": (tmp_path / "missing.sif", wheels, tmp_path / "my.sif", ""),
            "out-is-image": (image, wheels, image, ""),
            "bad-name": (image, wheels, tmp_path / "my.sif", "x;rm")}[case]
    result = extend(*args)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("image-extend: error: ")]
    assert len(errors) == 1 and expected in errors[0], result.stderr
    assert "Traceback" not in result.stderr and "apptainer build" not in result.stdout
    assert not (tmp_path / "my.sif").exists()


@pytest.mark.apptainer
@pytest.mark.slow
def test_a_users_wheel_is_importable_in_the_extended_image_beside_the_images_own_packages(
        extended_image: ExtendedImage) -> None:
    # The session's one extended image (tests/fixtures/extended_image.py): ddp_hello needs numpy, a dependency the
    # image has and the wheels directory lacks, taken from the image; Accelerate beside it where it could be had
    assert "installed ddp-hello 0.1" in extended_image.build_output
    out, smoke_image = extended_image.path, extended_image.base

    probe = "import ddp_hello, numpy, torch; print(ddp_hello.greet(), numpy.__version__, torch.__version__)"
    extended = exec_as_user(out, "python", "-c", probe)
    assert extended.returncode == 0, extended.stderr[-3000:]
    base = exec_as_user(smoke_image, "python", "-c", "import numpy, torch; print(numpy.__version__, torch.__version__)")
    assert extended.stdout.split() == ["hello", "from", "your", "package", *base.stdout.split()]
    labels = labels_of(out)
    assert labels["app.extended.packages"] == " ".join(extended_image.packages)
    assert labels["app.extended.packages"].split()[0] == "ddp-hello"
    assert labels["app.pin.torch"] == labels_of(smoke_image)["app.pin.torch"], "the base's labels were lost"
    if not extended_image.without_accelerate:
        # docs/packages.md's route (gather-wheels.py over the image's package list) fetched Accelerate and only what
        # the image lacks: a plain `pip download accelerate` fetches torch and every CUDA wheel besides
        assert any(wheel.startswith("accelerate-") for wheel in extended_image.wheels), extended_image.wheels
        assert "torch" in extended_image.image_packages
        assert not [wheel for wheel in extended_image.wheels
                    if wheel.split("-")[0].lower() in extended_image.image_packages], extended_image.wheels


@pytest.mark.apptainer
@pytest.mark.slow
def test_a_wheel_that_needs_another_version_of_an_image_package_fails_the_build_naming_it(
        smoke_image: Path, image_dir: Path, tmp_path: Path) -> None:
    wheels = tiny_wheel(tmp_path, "needs_old_numpy", ["numpy==1.0.0"])
    out = image_dir / "my.sif"
    result = extend(smoke_image, wheels, out)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "numpy==1.0.0" in output and "needs-old-numpy" in output.replace("_", "-"), output[-3000:]
    assert not out.exists()


@pytest.mark.apptainer
@pytest.mark.slow
def test_without_a_build_a_target_directory_on_pythonpath_adds_a_package_to_the_read_only_image(
        run_in_image, user_dir: Path, tmp_path: Path) -> None:
    """docs/packages.md's way for sites that allow no `apptainer build`: pip --target, then PYTHONPATH."""
    wheels = user_dir / "wheels"
    wheels.mkdir()
    for wheel in tiny_wheel(tmp_path, "ddp_hello", ["numpy"]).iterdir():
        (wheels / wheel.name).write_bytes(wheel.read_bytes())
    target = user_dir / "pylibs"
    installed = run_in_image("python", "-m", "pip", "install", "--no-index", "--no-deps", "--find-links", str(wheels),
                             "--target", str(target), "ddp_hello", cwd=user_dir)
    assert installed.returncode == 0, installed.stderr[-3000:]
    probe = run_in_image("python", "-c", "import ddp_hello; print(ddp_hello.greet())", cwd=user_dir,
                         env={"PYTHONPATH": str(target)})
    assert probe.returncode == 0 and probe.stdout.strip() == "hello from your package", probe.stderr[-3000:]


def fake_runtime(tmp_path: Path, version_line: str, arch: str = "", python: str = "") -> Path:
    """An apptainer that prints VERSION_LINE for --version and records any other call (a build) in calls.txt;
    with ARCH, `inspect --labels` prints an image's labels as Apptainer 1.4.5 prints a built image's: app.arch as
    `make image` writes it, beside the build host's org.label-schema.build-arch (amd64 here, whatever ARCH is),
    and with PYTHON app.installed.python."""
    fake = tmp_path / "bin" / "apptainer"
    fake.parent.mkdir()
    labels = f"app.arch: {arch}\norg.label-schema.build-arch: amd64\norg.label-schema.schema-version: 1.0\n"
    labels += f"app.installed.python: {python}\n" if python else ""
    inspect = f'if [ "$1" = inspect ]; then printf "{labels}"; exit 0; fi\n' if arch else ""
    fake.write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then echo "{version_line}"; exit 0; fi\n{inspect}'
                    f'echo "$@" >>"{tmp_path}/calls.txt"\nexit 1\n')
    fake.chmod(0o755)
    return fake


def extend_with(runtime: Path, tmp_path: Path, *, image: Path | None = None, packages: str = "",
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if image is None:
        image = tmp_path / "app.sif"
        image.write_bytes(b"not built")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "mine-0.1-py3-none-any.whl").write_bytes(b"")
    return subprocess.run(["make", "-s", "-C", str(REPO), "image-extend", f"IMAGE={image}", f"WHEELS={wheels}",
                           f"OUT={tmp_path / 'my.sif'}", f"APPTAINER={runtime}",
                           *([f"PACKAGES={packages}"] if packages else [])], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_without_wheels_the_refusal_gives_commands_that_gather_only_what_the_image_lacks(tmp_path: Path) -> None:
    """The refusal's advice was a plain `pip download PACKAGE`, which fetches torch and every CUDA wheel (2.9 GB for
    accelerate) although the image has them. It gives containers/gather-wheels.py instead, for the image's Python and
    platform as its labels say, and the command runs as printed (for a package the image has: nothing to fetch)."""
    runtime = fake_runtime(tmp_path, "apptainer version 1.4.5", arch=MACHINE, python="3.11.2")
    image, wheels = tmp_path / "app.sif", tmp_path / "wheels"
    image.write_bytes(b"not built")
    wheels.mkdir()
    result = subprocess.run(["make", "-s", "-C", str(REPO), "image-extend", f"IMAGE={image}", f"WHEELS={wheels}",
                             f"OUT={tmp_path / 'my.sif'}", f"APPTAINER={runtime}"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result.stderr
    [error] = [line for line in result.stderr.splitlines() if line.startswith("image-extend: error: ")]
    assert "pip download" not in error, error
    advice = error.split("gather only what the image lacks (docs/packages.md): ", 1)[1]
    listing, gather = advice.split(" (a project of yours")[0].split(" (where the image runs), then ")
    assert listing == f"{runtime} exec {image} python3 -m pip list --format=freeze > image-packages.txt", listing
    assert f" --python-version 3.11 --platform manylinux2014_{MACHINE} -d {wheels} PACKAGE" in gather, gather
    (tmp_path / "image-packages.txt").write_text("numpy==2.2.6\ntorch==2.13.0\n")
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # a python3 with pip, as on a login node
    ran = subprocess.run(["bash", "-c", gather.replace("PACKAGE", "numpy") + " -- --no-index"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": path})
    assert ran.returncode == 0 and f"0 wheel(s) in {wheels}" in ran.stdout, ran.stdout + ran.stderr


@pytest.mark.parametrize(("version_line", "expected"), [
    ("singularity-ce version 3.11.4-jammy", "SingularityCE 3.11.4 cannot read extend.def's templated definition"),
    ("singularity version 3.8.7", "SingularityCE 3.8.7 cannot read extend.def's templated definition"),
    ("apptainer version 1.1.9-1.el8", "Apptainer 1.1.9 cannot read extend.def's templated definition"),
    ("something else", "printed 'something else', no version"),
])
def test_a_runtime_too_old_for_the_templated_definition_stops_before_the_build(tmp_path: Path, version_line: str,
                                                                               expected: str) -> None:
    result = extend_with(fake_runtime(tmp_path, version_line), tmp_path)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("image-extend: error: ")]
    assert len(errors) == 1 and expected in errors[0], result.stderr
    assert "load a newer one" in errors[0]
    assert not (tmp_path / "calls.txt").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the /etc/subuid check runs first")
@pytest.mark.parametrize("version_line", ["apptainer version 1.2.0", "singularity-ce version 4.0.0",
                                          "apptainer version 1.10.1"])
def test_the_oldest_runtimes_that_read_it_go_on_to_the_build(tmp_path: Path, version_line: str) -> None:
    result = extend_with(fake_runtime(tmp_path, version_line), tmp_path)
    assert "build --force --fakeroot" in (tmp_path / "calls.txt").read_text(), result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the /etc/subuid check runs first")
def test_without_packages_the_project_of_every_wheel_is_installed_by_its_normalised_name(tmp_path: Path) -> None:
    """PACKAGES empty: each wheel's project, PEP 503-normalised (the shared extended image names its packages, so
    this is where the default is held)."""
    image = tmp_path / "app.sif"
    image.write_bytes(b"not built")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("ddp_hello-0.1-py3-none-any.whl", "Zope.Interface-7.0-cp311-cp311-manylinux_2_28_x86_64.whl",
                 "ddp_hello-0.1-1-py3-none-any.whl"):
        (wheels / name).write_bytes(b"")
    runtime = fake_runtime(tmp_path, "apptainer version 1.4.0")
    subprocess.run(["make", "-s", "-C", str(REPO), "image-extend", f"IMAGE={image}", f"WHEELS={wheels}",
                    f"OUT={tmp_path / 'my.sif'}", f"APPTAINER={runtime}"], capture_output=True, text=True, timeout=120)
    build = (tmp_path / "calls.txt").read_text()
    assert "--build-arg PACKAGES=ddp-hello zope-interface " in build, build


#: This machine's architecture as uname -m names it, and the other one the project builds images for
MACHINE = {"amd64": "x86_64", "arm64": "aarch64"}.get(os.uname().machine, os.uname().machine)
OTHER = {"x86_64": "aarch64", "aarch64": "x86_64"}.get(MACHINE, "aarch64")


def binfmt_root(tmp_path: Path, entries: dict[str, str]) -> dict[str, str]:
    """A machine root for the binfmt_misc probe (APP_PROBE_ROOT) holding ENTRIES (name -> the kernel's text of
    /proc/sys/fs/binfmt_misc/NAME; Documentation/admin-guide/binfmt-misc.rst)."""
    root = tmp_path / "machine"
    directory = root / "proc" / "sys" / "fs" / "binfmt_misc"
    directory.mkdir(parents=True)
    (directory / "status").write_text("enabled\n")
    for name, text in entries.items():
        (directory / name).write_text(text)
    return {"APP_PROBE_ROOT": str(root)}


def qemu_entry(arch: str, state: str = "enabled") -> str:
    return f"{state}\ninterpreter /usr/libexec/qemu-binfmt/{arch}-binfmt-P\nflags: POCF\noffset 0\nmagic 7f454c46\n"


def assert_stops_for_another_arch(result: subprocess.CompletedProcess[str], image: Path, tmp_path: Path) -> None:
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("image-extend: error: ")]
    assert len(errors) == 1, result.stderr
    image, wheels, out = image.resolve(), (tmp_path / "wheels").resolve(), (tmp_path / "my.sif").resolve()
    assert f"IMAGE={image} is an {OTHER} image and this machine is {MACHINE} with no QEMU registered for {OTHER}" \
        in errors[0]
    assert (f"run the same make command as a job on an {OTHER} node: sbatch -N 1 -p <{OTHER} partition> --wrap "
            f'"make -C {REPO} image-extend IMAGE={image} WHEELS={wheels} OUT={out}') in errors[0]
    assert "(PBS: qsub -l select=1:ncpus=8 -- /usr/bin/make -C " in errors[0]
    assert not (tmp_path / "my.sif").exists()


@pytest.mark.parametrize("entries", [{}, {f"qemu-{OTHER}": qemu_entry(OTHER, "disabled")}],
                         ids=["no-qemu", "qemu-disabled"])
def test_an_image_of_another_architecture_without_qemu_stops_before_the_build_naming_the_job_that_works(
        tmp_path: Path, entries: dict[str, str]) -> None:
    """An aarch64 image on an x86_64 login node: the build would run the image's Python and fail late in Apptainer;
    it stops at once, with the same make as a job on a node of the image's architecture (docs/packages.md)."""
    runtime = fake_runtime(tmp_path, "apptainer version 1.4.5", arch=OTHER)
    image = tmp_path / "app.sif"
    image.write_bytes(b"not built")
    result = extend_with(runtime, tmp_path, image=image, packages="mine numpy",
                         env=binfmt_root(tmp_path, entries))
    assert_stops_for_another_arch(result, image, tmp_path)
    assert f"PACKAGES='mine numpy' APPTAINER={runtime}\"" in result.stderr
    assert not (tmp_path / "calls.txt").exists(), "the runtime was called for more than --version and inspect"


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user the /etc/subuid check runs first")
@pytest.mark.parametrize(("label", "entries"), [
    (OTHER, {f"qemu-{OTHER}": qemu_entry(OTHER)}),  # emulated: slow, but it builds
    ({"x86_64": "amd64", "aarch64": "arm64"}.get(MACHINE, MACHINE), {}),  # this machine's, by its OCI name
], ids=["other-arch-with-qemu", "this-arch-by-oci-name"])
def test_an_image_this_machine_can_run_goes_on_to_the_build(tmp_path: Path, label: str,
                                                            entries: dict[str, str]) -> None:
    result = extend_with(fake_runtime(tmp_path, "apptainer version 1.4.5", arch=label), tmp_path,
                         env=binfmt_root(tmp_path, entries))
    assert "build --force --fakeroot" in (tmp_path / "calls.txt").read_text(), result.stderr


def test_an_image_of_another_architecture_read_by_apptainer_itself_stops_the_same_way(
        tiny_sif, tmp_path: Path) -> None:
    """The label as the real runtime reads it from a SIF labelled as `make image` labels it."""
    image = tiny_sif("app", arch=OTHER)
    result = extend_with(Path(shutil.which("apptainer")), tmp_path, image=image,
                         env=binfmt_root(tmp_path, {}))
    assert_stops_for_another_arch(result, image, tmp_path)
