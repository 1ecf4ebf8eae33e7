"""The image build job (jobscripts/build-image.sh): `make image`'s steps on the compute node the job landed on.

  PYTHONPATH=containers:. python3 -m imagetool build-job      (its knobs are environment variables, docs/knobs.md)

It reads the knobs, refuses in one line (exit 2) what this node cannot build, makes a private directory (mode 0700)
on the node's scratch for Apptainer's temporary space and cache, runs lint, check-host, sources --check, render,
the wheelhouse and the build as `make image` does (Makefile, build_image), and renames the image into place. The
private directory goes at the end: after the image is in place, after a failed step, and when the scheduler stops
the job with SIGTERM (Slurm's time limit and scancel, PBS's walltime and qdel).
"""

import contextlib
import os
import platform
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Mapping, NamedTuple, Optional, Tuple

from app.host.common import exitcodes
from app.host.common.errors import UsageError
from imagetool.apptainer import product_of
from imagetool.buildargs import CONTAINERS_DIR, app_version, read_env_file
from imagetool.sources import sha256_of

#: The name every line of the job log starts with: the script the user submitted
SCRIPT = "build-image.sh"
#: mksquashfs flags where the release takes them (Apptainer 1.4+): zstd level 3, ~3x faster than gzip (Makefile)
SQUASHFS_ARGS = "-comp zstd -Xcompression-level 3"
#: Seconds a step has to end after the job passed it SIGTERM, before SIGKILL: under Slurm's KillWait (30 s by
#: default, slurm.conf) and PBS Pro's kill_delay (10 s by default), after which the scheduler kills us all anyway
STOP_GRACE_S = 8
#: The signals a scheduler stops a job with: SIGTERM (Slurm, PBS), SIGINT and SIGHUP (a direct run's terminal)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class BuildJob(NamedTuple):
    """The build this job will run, from its knobs and the node it landed on."""

    checkout: Path
    flavour: str
    node: str  # the node's hostname
    node_arch: str  # its `uname -m`
    apptainer: str
    sources: Optional[Path]  # a `make sources` mirror: offline
    sets: List[str]  # the --set KEY=VALUE words every imagetool step takes (a local base)
    render_sets: List[str]  # the ones render takes instead (a local base's sha256 stands for the registry digest)
    image_dir: Path
    version: str
    scratch: Path  # where the private build directory is made
    cachedir: Optional[str]  # the user's own Apptainer cache, else the private directory's
    build_flags: str  # APPTAINER_BUILD_FLAGS
    squashfs_args: str

    @property
    def sif(self) -> Path:
        return self.image_dir / f"app-{self.flavour}-{self.version}.sif"

    @property
    def sif_tmp(self) -> Path:
        """Where `apptainer build` writes: renamed to `sif` only once whole, so a job never sees half an image."""
        return self.image_dir / f"app-{self.flavour}-{self.version}.sif.tmp"


class Step(NamedTuple):
    """One command of the build, with what it adds to the job's environment."""

    name: str
    argv: List[str]
    env: Dict[str, str]


class Stopped(Exception):
    """The scheduler (or a terminal) stopped the job with a signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _local_base_sets(base: Path, bootstrap: str, digest: str) -> List[str]:
    """A local base in place of the flavour's: for a registry flavour also Bootstrap: localimage, its name and a
    digest (Makefile BASE_LOCAL); a flavour with a local base already (smoke) takes only the path."""
    if bootstrap != "docker":
        return ["--set", f"BASE={base}"]
    return ["--set", "BOOTSTRAP=localimage", "--set", f"BASE={base}", "--set", f"BASE_NAME={base.name}",
            "--set", f"BASE_DIGEST={digest}"]


def _flavour_for(node: str, node_arch: str, flavour: str, checkout: Path) -> Dict[str, str]:
    """The flavour's arch file, when it is one of this node's architecture."""
    flavour_file = checkout / "containers" / "arch" / f"{flavour}.env"
    if "/" in flavour or not flavour_file.is_file():
        raise UsageError(f"no flavour '{flavour}' (containers/arch/{flavour}.env); FLAVOUR=x86_64, FLAVOUR=aarch64 "
                         "or FLAVOUR=smoke")
    flavour_env = read_env_file(flavour_file)
    # The image is for the machine it is built on: a flavour of another architecture would need QEMU on the node.
    image_arch = flavour_env.get("ARCH", "")
    if image_arch != node_arch:
        raise UsageError(f"flavour {flavour} is an {image_arch} image and this node ({node}) is {node_arch}; submit "
                         f"to {image_arch} nodes (sbatch -p <their partition>, qsub -q <their queue>) or pick "
                         f"FLAVOUR={node_arch}")
    return flavour_env


def _base_sets(base: str, node: str, flavour_env: Dict[str, str], checkout: Path) -> Tuple[List[str], List[str]]:
    """(every step's, render's) --set words for BASE, a local base; empty for the flavour's own."""
    if not base:
        return [], []
    path = Path(os.path.realpath(str(checkout / base)))
    if not path.exists():
        arch = flavour_env["ARCH"]
        raise UsageError(f"BASE={base}: no such file or directory on {node}; name the base `make base ARCH={arch}` "
                         f"pulled, e.g. BASE=$PWD/build/ngc-pytorch-{arch}.sif")
    bootstrap = flavour_env.get("BOOTSTRAP", "")
    sets = _local_base_sets(path, bootstrap, f"local file {path.name}")
    if bootstrap != "docker" or not path.is_file():
        return sets, sets
    # Hashed once, for the image's labels (tens of seconds for NGC's 10 GiB), as `make image BASE=FILE` does
    return sets, _local_base_sets(path, bootstrap, f"sha256:{sha256_of(path)} (local file {path.name})")


def read_job(env: Mapping[str, str], checkout: Path = CONTAINERS_DIR.parent, node_arch: Optional[str] = None,
             node: Optional[str] = None) -> BuildJob:
    """The build the knobs ask for on this node (by default the one this runs on), or a UsageError in one line
    that says which knob to change. Relative paths are taken from the checkout, where the job runs."""
    node_arch = node_arch or platform.machine()
    node = node or socket.gethostname()
    apptainer = env.get("APPTAINER") or "apptainer"
    if shutil.which(apptainer) is None:
        raise UsageError(f"no {apptainer} on {node}; load it (module load apptainer) or name it: APPTAINER=singularity")
    flavour = env.get("FLAVOUR") or env.get("ARCH") or node_arch
    flavour_env = _flavour_for(node, node_arch, flavour, checkout)
    sets, render_sets = _base_sets(env.get("BASE", ""), node, flavour_env, checkout)
    if flavour == "smoke" and not sets:
        sets = render_sets = ["--set", f"BASE={checkout / 'build' / 'smoke-rootfs'}"]
    sources = None
    if env.get("SOURCES"):
        sources = Path(os.path.realpath(str(checkout / env["SOURCES"])))
        if not sources.is_dir():
            raise UsageError(f"SOURCES={env['SOURCES']}: no such directory on {node}; name the mirror `make sources` "
                             "wrote, e.g. SOURCES=$PWD/build/sources, or leave SOURCES empty to download")
    return BuildJob(
        checkout=checkout, flavour=flavour, node=node, node_arch=node_arch, apptainer=apptainer, sources=sources,
        sets=sets, render_sets=render_sets,
        image_dir=Path(os.path.abspath(str(checkout / (env.get("IMAGE_DIR") or "build")))),
        version=app_version(checkout), scratch=Path(env.get("BUILD_SCRATCH") or env.get("TMPDIR") or "/tmp"),
        cachedir=env.get("APPTAINER_CACHEDIR") or env.get("SINGULARITY_CACHEDIR") or None,
        build_flags=env.get("APPTAINER_BUILD_FLAGS", ""), squashfs_args=env.get("SQUASHFS_ARGS") or SQUASHFS_ARGS)


def plan(job: BuildJob, work: Path) -> List[Step]:
    """`make image`'s steps (Makefile, build_image) for this job, with `work` as its private directory."""
    tool = [sys.executable, "-S", "-m", "imagetool"]
    # The tooling from this checkout, and only for its own steps: pip and Apptainer get the job's PYTHONPATH
    tool_env = {"PYTHONPATH": f"{job.checkout / 'containers'}:{job.checkout}"}
    arch = ["--arch", job.flavour]
    host = ["--build-arch", job.node_arch, "--apptainer", job.apptainer]
    args_file = job.image_dir / f"{job.flavour}.args"
    wheelhouse = job.image_dir / f"wheelhouse-{job.flavour}"
    mirror = job.sources or work / "no-sources"
    steps = [Step("lint", [*tool, "lint", *arch, *job.sets], tool_env),
             Step("check-host", [*tool, "check-host", *arch, *host, *job.sets, f"--extra={job.build_flags}"],
                  tool_env)]
    if job.sources:
        steps.append(Step("sources", [*tool, "sources", "--check", *arch, "--mirror", str(job.sources)], tool_env))
    steps += [
        Step("render", [*tool, "render", *arch, "--out", str(args_file), "--set", f"WHEELHOUSE={wheelhouse}",
                        *job.render_sets, "--set", f"SOURCES={mirror}"], tool_env),
        Step("wheelhouse", ["bash", str(job.checkout / "containers" / "wheelhouse.sh"), job.flavour, str(wheelhouse),
                            sys.executable], {"SOURCES": str(job.sources or "")}),
        Step("build", [*tool, "build", *arch, *host, *job.sets, "--args-file", str(args_file),
                       "--squashfs-args", job.squashfs_args, f"--extra={job.build_flags}", "--out", str(job.sif_tmp)],
             tool_env)]
    return steps


def _say(message: str) -> None:
    print(f"{SCRIPT}: {message}", flush=True)


def _stop_on_signals() -> None:
    def stop(signum: int, _frame: object) -> None:
        _ignore_signals()  # one stop is enough: the clean-up must not be interrupted by the next signal
        raise Stopped(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)


def _ignore_signals() -> None:
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _run_step(step: Step) -> int:
    """The step's exit status (128 + N when signal N ended it). A stop stops the step's whole process tree: it
    runs in a process group of its own (in the job's session, where PBS's MoM signals it; Slurm signals the job's
    cgroup), since a signal sent to this process alone (`kill PID`, Ctrl-C) reaches no child."""
    child = subprocess.Popen(step.argv, env={**os.environ, **step.env}, stdin=subprocess.DEVNULL,
                             preexec_fn=os.setpgrp)  # 3.6: no process_group= (3.11)
    try:
        code = child.wait()
    except Stopped as stopped:
        _stop_group(child, stopped.signum)
        raise
    return 128 - code if code < 0 else code


def _stop_group(child: "subprocess.Popen[bytes]", signum: int) -> None:
    try:
        os.killpg(child.pid, signum)
        child.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)  # what is left of the group, the step included
    child.wait()


def _version_line(executable: str) -> str:
    result = subprocess.run([executable, "--version"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)  # noqa: UP021 (3.6)
    return result.stdout.strip()


def _remove(work: Path) -> None:
    """Remove the private directory; a part it cannot remove is said in one line, and the job's status stands."""
    failures: List[str] = []

    def retry_writable(function, path, _info) -> None:  # type: ignore[no-untyped-def]
        # Build trees hold read-only directories (Go's module cache, some wheels): make the parent writable
        try:
            parent = os.path.dirname(path)
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
            function(path)
        except OSError as err:
            failures.append(f"{path}: {err.strerror}")

    shutil.rmtree(str(work), onerror=retry_writable)
    if failures:
        _say(f"warning: could not remove {len(failures)} paths under {work} (first: {failures[0]}); remove it "
             "by hand")


def run(job: BuildJob) -> int:
    """Build the image in a private directory on the node's scratch, and remove that directory at the end."""
    try:
        # mkdtemp: mode 0700, a fresh name. Never the shared /tmp itself: another user can neither read the build
        # nor plant files in it. The cache goes there too unless you keep your own.
        work = Path(tempfile.mkdtemp(prefix="app-build.", dir=str(job.scratch)))
    except OSError:
        raise UsageError(f"cannot make a directory in {job.scratch}; BUILD_SCRATCH=/a/dir/of/yours") from None
    _stop_on_signals()
    try:
        return _build_in(job, work)
    except Stopped as stopped:
        _say(f"stopped by {signal.Signals(stopped.signum).name}; removing {work}")
        return 128 + stopped.signum
    finally:
        _ignore_signals()
        if job.sif_tmp.exists():
            job.sif_tmp.unlink()
        _remove(work)


def _build_in(job: BuildJob, work: Path) -> int:
    (work / "tmp").mkdir()
    (work / "no-sources").mkdir()
    apptainer_version = _version_line(job.apptainer)
    # APPTAINER_ or SINGULARITY_: each product reads its own (imagetool/apptainer.py, Runtime.env_prefix)
    prefix = "SINGULARITY" if product_of(apptainer_version) == "singularity-ce" else "APPTAINER"
    cache = job.cachedir or str(work / "cache")
    os.environ.update({f"{prefix}_TMPDIR": str(work / "tmp"), f"{prefix}_CACHEDIR": cache, "TMPDIR": str(work / "tmp")})
    _say(f"building flavour {job.flavour} on {job.node} ({job.node_arch}) with {apptainer_version} and "
         f"Python {platform.python_version()}")
    _say(f"temporary space and cache in {work} ({prefix}_TMPDIR, {prefix}_CACHEDIR={cache})")
    job.image_dir.mkdir(parents=True, exist_ok=True)
    if job.sources:
        _say(f"offline: every archive, wheel and distribution package from the mirror {job.sources}")
    took = []
    for step in plan(job, work):
        started = time.monotonic()
        code = _run_step(step)
        if code != exitcodes.OK:
            _say(f"stopped: the {step.name} step ended with exit {code}")
            return code
        took.append(f"{step.name} {time.monotonic() - started:.0f} s")
    os.replace(str(job.sif_tmp), str(job.sif))
    _say(f"the steps took {', '.join(took)}")
    _say(f"built {job.sif}; in a job: IMAGE={job.sif} (apptainer inspect --labels {job.sif})")
    return exitcodes.OK


def main(env: Mapping[str, str]) -> int:
    """The job: its refusals as `build-image.sh: error: ...` and exit 2, else the build's status."""
    try:
        job = read_job(env)
        os.chdir(str(job.checkout))
        return run(job)
    except UsageError as err:
        print(f"{SCRIPT}: error: {err}", file=sys.stderr, flush=True)
        return err.exit_code
