"""Sessions: `nox -l` lists them. `make test` runs `tests` inside the Makefile's .venv (--no-venv)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

#: The CPU build on local disk here; an unpinned `torch` would download a multi-GB CUDA build.
TORCH_VERSION = os.environ.get("TORCH_VERSION", "2.13.0")
SHELL_SCRIPTS = ["jobscripts", "containers", "tests", ".ci", "app"]
#: `nox -s fast`: every test that is not slow and needs no root, Slurm cluster or Apptainer (pyproject.toml's
#: markers; tests/conftest.py gives the last three to each test that asks for the cluster or an image, and
#: `--machine-wide=skip` leaves them out)
FAST_TIER = ["-m", "not slow", "--machine-wide=skip"]
#: The build job's tests (route 1 of docs/images.md: the image built as a batch job, offline, on a test node with no
#: route out, submitted with sbatch, then with qsub under the emulated PBS), run beside the first run of `nox -s
#: tests`; the image the first builds is then the smoke image (_build_beside)
BUILD_JOB_TESTS = [f"tests/jobscripts/test_build_image_job.py::{name}" for name in (
    "test_the_readmes_build_job_builds_the_image_on_a_node_with_no_route_out",
    "test_under_pbs_the_readmes_build_job_builds_the_image_on_a_node_with_no_route_out")]
#: What the builds beside the first run printed (`nox -s tests` on the whole suite)
BESIDE_LOG = os.path.join("build", "builds-beside-tests.log")
#: The test sessions keep the bytecode Python compiles (in __pycache__, which git ignores) even where the environment
#: says not to (PYTHONDONTWRITEBYTECODE=1): each pytest worker then reads its rewritten test modules and the app's
#: modules back instead of compiling them: 12 instead of 24 CPU seconds of collection a worker. An empty
#: value is unset for Python (3.6 too).
KEEP_BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
#: The test runs' environment. TCPStore names each peer it connects to or accepts with getnameinfo, without
#: NI_NUMERICHOST (torch/csrc/distributed/c10d/socket.cpp), and a loopback peer is ::ffff:127.0.0.1, which
#: /etc/hosts does not list: every store connection of the tests asks the machine's DNS twice. Where the resolver
#: drops queries past a burst (this machine's answers about 50 a second), each dropped one cost glibc's default
#: 5 s retry inside a test; 1 s bounds it. A RES_OPTIONS of the caller's is kept.
TEST_ENV = {**KEEP_BYTECODE, "RES_OPTIONS": os.environ.get("RES_OPTIONS", "timeout:1")}


def _install(session: nox.Session, *extras: str) -> None:
    """Install torch (pinned) and the project, unless nox runs in an existing environment (--no-venv)."""
    if session.venv_backend == "none":
        return
    session.install(f"torch=={TORCH_VERSION}")
    session.install("-e", f".[{','.join(extras)}]" if extras else ".")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (real torchrun, Apptainer and Slurm where present); extra args go to both pytest runs:
    the tests that need no machine-wide resource, with a worker a core, then those that use the machine's one
    cluster, build directory or root's namespaces, one at a time (tests/conftest.py, MACHINE_WIDE). The whole
    suite builds the smoke image and the NGC twin's base beside the first run (_build_beside)."""
    _install(session, "test", "image", "deepspeed")
    beside = _build_beside(session)
    failed = []
    # The slowest tests in the log: where CI's time goes, to keep the whole run within its budget. Exit code 5:
    # the arguments selected no test of that kind.
    for kind, workers in (("skip", ["--numprocesses=auto"]), ("only", [])):
        env = dict(TEST_ENV)
        if kind == "only" and beside is not None:
            failed += _await_builds(session, *beside)
            env["DDP_TEST_TWIN_BASE"] = "1"  # tests/fixtures/twin.py: the plain NGC image's tests run
        try:
            session.run("pytest", f"--machine-wide={kind}", *workers, "--durations=25", *session.posargs,
                        success_codes=[0, 5], env=env)
        except nox.command.CommandFailed:
            failed.append(f"--machine-wide={kind}")
    if failed:
        session.error(f"tests failed in {' and '.join(failed)} (their summaries are above)")


def _build_beside(session: nox.Session) -> tuple[threading.Thread, list[str]] | None:
    """For the whole suite as root, where Apptainer is: build the two images the machine-wide tests need (and the
    smoke image once more, under the emulated PBS) in the background, beside the tests that use no machine-wide
    resource (none of them touches build/ or the cluster). Each build is mostly one core's work or the network's for
    minutes, which left the other core of a 2-core CI machine idle while the machine-wide tests waited. One after
    the other, as both start from build/smoke-rootfs:
    1. the smoke image, as a user on a cluster builds theirs: `sbatch jobscripts/build-image.sh` on a node of the
       Slurm test cluster with no route out, from the mirror `make sources` writes (BUILD_JOB_TESTS), so every CI
       run proves the build job end to end, at about the cost of `make smoke-image` (its wheelhouse copies from the
       mirror where make's pip re-checks PyPI); the image fixture's `make smoke-image` then finds it up to date;
       then the same build with `qsub` under the emulated PBS;
    2. the NGC twin's base, `make twin-base` (3 GB of CUDA wheels from PyPI, then a squashfs): the plain NGC image
       of route 3 (tests/jobscripts/test_plain_ngc_image.py).
    A build that fails is built again by its fixture, which shows why; the run fails either way. Returns the
    thread and the list it writes the failed builds' names to."""
    if session.posargs or os.geteuid() != 0 or shutil.which("apptainer") is None:
        return None
    os.makedirs("build", exist_ok=True)
    build_job = [_session_pytest(session), "-q", "-p", "no:cacheprovider", "-s", *BUILD_JOB_TESTS]
    builds = [("the build job's tests (the smoke image; Slurm, then PBS)", build_job,
               {"DDP_TEST_BUILD_JOB": "1", "DDP_BUILD_JOB_SMOKE_SIF": os.path.join("build", "smoke.sif")}),
              ("make twin-base (the plain NGC image)", ["make", "twin-base"], {})]
    failures: list[str] = []

    def build_each() -> None:
        with open(BESIDE_LOG, "w") as log:
            for name, argv, env in builds:
                started = time.monotonic()
                log.write(f"--- {name}: {' '.join(argv)}\n")
                log.flush()
                code = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                      env={**os.environ, **KEEP_BYTECODE, **env}).returncode
                log.write(f"--- {name}: exit {code} after {time.monotonic() - started:.0f} s\n")
                log.flush()
                if code != 0:
                    failures.append(name)

    thread = threading.Thread(target=build_each, name="builds beside the tests")
    thread.start()
    session.log(f"running {' and then '.join(name for name, _, _ in builds)} beside the first run (log {BESIDE_LOG})")
    return thread, failures


def _session_pytest(session: nox.Session) -> str:
    """The pytest session.run("pytest") would start: the session's environment's, else the one on PATH."""
    return shutil.which("pytest", path=os.pathsep.join([*(session.bin_paths or []), os.environ["PATH"]])) or "pytest"


def _await_builds(session: nox.Session, thread: threading.Thread, failures: list[str]) -> list[str]:
    """Wait for the builds beside the first run; the log says how long the machine-wide tests waited for them,
    and on a failure shows the end of the builds' log. The failed builds' names."""
    waited = time.monotonic()
    thread.join()
    waited = time.monotonic() - waited
    if not failures:
        session.log(f"the builds beside the first run have ended ({BESIDE_LOG}); the machine-wide tests waited "
                    f"{waited:.0f} s for them")
        return []
    with open(BESIDE_LOG) as log:
        tail = log.read()[-6000:]
    session.warn(f"{' and '.join(failures)} failed beside the first run ({BESIDE_LOG}); the image fixtures build "
                 f"again and show why. The log ends:\n{tail}")
    return failures


@nox.session
def fast(session: nox.Session) -> None:
    """Run the fast tier: no root, Slurm, Apptainer or slow tests (`make check`), one pytest worker a core; extra
    args go to pytest."""
    _install(session, "test", "image")
    session.run("pytest", "--numprocesses=auto", *FAST_TIER, *session.posargs, env=TEST_ENV)


@nox.session
def lint(session: nox.Session) -> None:
    """Lint Python with ruff and every shell script with shellcheck."""
    if session.venv_backend != "none":
        session.install("ruff")
    session.run("ruff", "check", "app", "containers", "tests", "bench", "noxfile.py")
    scripts = [
        os.path.join(root, name)
        for top in SHELL_SCRIPTS
        if os.path.isdir(top)
        for root, _, names in os.walk(top)
        for name in names
        if name.endswith(".sh") or (top == ".ci" and name == "run")
        # the PBS launcher stand-ins of the Slurm tests keep the names of the tools they stand in for
        or root.endswith(os.path.join("tests", "slurm", "pbs-bin"))
    ]
    session.run("shellcheck", "--severity=style", "--external-sources", *sorted(scripts), external=True)


@nox.session(default=False)
def fuzz(session: nox.Session) -> None:
    """Run the property-based suite with the larger example budget (Hypothesis profile `fuzz`; minutes)."""
    _install(session, "test")
    session.run("pytest", "tests/properties", *session.posargs, env={"APP_HYPOTHESIS_PROFILE": "fuzz"})


@nox.session(default=False)
def proofs(session: nox.Session) -> None:
    """Run the security proofs too slow for CI: a compiled CPU training run beside another user's cache (minutes)."""
    _install(session, "test")
    session.run("pytest", "tests/common/test_compile_cache.py", *session.posargs, env={"APP_COMPILE_PROOF": "1"})


@nox.session(default=False)
def gpu_session_dry(session: nox.Session) -> None:
    """Run bench/gpu_session.sh's whole plan dry on the CPU, as the GPU procedure does before a GPU session
    (minutes: developer tooling, too slow for `make test`, which runs its cheap tests); extra args go to pytest."""
    _install(session, "test")
    session.run("pytest", "tests/bench/test_gpu_session.py", *session.posargs,
                env={"APP_GPU_SESSION_DRY_RUN": "1"})


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Run the benchmarks side by side and rewrite BENCHMARKS.md (slow: minutes)."""
    _install(session, "test")
    session.run("python", "-m", "bench", *session.posargs)


@nox.session(default=False, venv_backend="none")
def build_job(session: nox.Session) -> None:
    """Build the smoke image as a batch job on the Slurm test cluster, offline, as a user submits
    jobscripts/build-image.sh (root; 7 to 17 minutes on 2 cores: too slow for `make test`, which runs its refusals)."""
    session.run(sys.executable, "-m", "pytest", "-q", "tests/jobscripts/test_build_image_job.py", *session.posargs,
                env={"DDP_TEST_BUILD_JOB": "1"}, external=True)


@nox.session(default=False, venv_backend="none")
def debian_mirror(session: nox.Session) -> None:
    """Gather the smoke flavour's packages from Debian's real archive and install them offline, verified against
    the rootfs's own keys, and refuse a rebuilt one (root and the network; about 2.5 minutes on 2 cores)."""
    session.run(sys.executable, "-m", "pytest", "-q", "tests/containers/test_signed_debs_debian.py", *session.posargs,
                env={"DDP_TEST_DEBIAN_MIRROR": "1"}, external=True)


@nox.session(default=False, venv_backend="none")
def image_twin(session: nox.Session) -> None:
    """Build the CUDA flavour on the x86_64 NGC twin, offline from `make sources`' mirror, and run the tests of
    that image: its parts, the Slingshot plugin against a Cray libfabric, forward compatibility, nccl-tests across
    two Slurm nodes, and the plain twin base given to the job scripts as an image the user already has (root; about
    25 minutes on 2 cores: too slow for `make test`, which builds the smoke image).

    Run it before any change to containers/ lands, beside `nox -s image_aarch64`. Extra args go to pytest."""
    session.run(sys.executable, "-m", "pytest", "-q", "tests/containers/test_offline_build.py",
                "tests/containers/test_twin_image.py", "tests/jobscripts/test_nccl_tests_multinode.py",
                "tests/jobscripts/test_plain_ngc_image.py", *session.posargs, env={"DDP_TEST_TWIN": "1"},
                external=True)


@nox.session(default=False, venv_backend="none")
def image_aarch64(session: nox.Session) -> None:
    """Build the aarch64 (GH200) flavour on the arm64 NGC twin under QEMU, %test included (root; about an hour).

    Run it before any change to containers/ lands: too slow for CI, which builds the x86_64 twin and checks only
    what fits for aarch64 (tests/containers/test_wheelhouse_aarch64.py, test_check_net_plugin.py). Needs root
    (debootstrap, apptainer build --fakeroot), Apptainer >= 1.4, and QEMU user emulation registered with
    binfmt_misc (containers/twin/build-twin.sh's header says how). Both stages are make targets, so an unchanged
    twin base is not rebuilt: `make twin-base ARCH=aarch64` (arm64 Debian + PyPI's aarch64 torch, NCCL and CUDA
    wheels), then `make twin-image ARCH=aarch64` (containers/app.def, flavour ngc-twin-aarch64, whose build checks
    the aws-ofi-nccl plugin is an aarch64 ELF with NCCL's ncclNetPlugin_v* tables). Extra args go to make
    (e.g. SOURCES=DIR to build offline from `make sources ARCH=aarch64`).
    """
    # The cheap checks first: a lock that cannot resolve for aarch64 would fail the build an hour in.
    session.run(sys.executable, "-m", "pytest", "-q", "tests/containers/test_wheelhouse_aarch64.py",
                "tests/containers/test_check_net_plugin.py", external=True)
    session.run("make", "twin-base", "ARCH=aarch64", *session.posargs, external=True)
    session.run("make", "twin-image", "ARCH=aarch64", *session.posargs, external=True)
    session.run("apptainer", "inspect", "--labels", "build/app-ngc-twin-aarch64.sif", external=True)
