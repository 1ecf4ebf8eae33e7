"""jobscripts/build-image.sh submitted: the image built as a batch job on a compute node with no route out, from the
mirror `make sources` wrote on the head (docs/images.md, "Build it on the cluster, as a job").

The script is its scheduler headers and one line that starts the job's Python (containers/imagetool/buildjob.py),
whose refusals, plan, private directory and stop are tested without a scheduler in
tests/containers/test_imagetool_buildjob.py. Here is what only a submission shows: the batch system runs a copy of the
script, which still finds the checkout and the node's python3; `#PBS -V` carries the submitter's variables; a
refusal's exit 2 is the job's; and the whole offline build, as the unprivileged job user on a node of the Slurm test
cluster whose network namespace has no default route, on the node's python3 (no torch, no virtual environment).
The whole build is the README's: its `sbatch` (or its `qsub`) line and its `cp` to app.sif, typed by the job user in
a login shell of their own, in a checkout they own and have committed (a copy of this one's tracked files), with what
the test cluster is not given as their environment (the smoke flavour, the mirror, the base). In CI that app.sif is
the image every machine-wide test runs, the README's walkthroughs included: the README's way from a checkout to a
first job, in order.
Its base is the smoke rootfs as a SIF (a local base, as `BASE=ngc.sif` is offline: a user's fakeroot cannot read a
root-owned directory's private files). The mirror: the pinned GitHub archives copied from the shared source mirror
(as the twin's, tests/fixtures/twin.py), then `make sources FLAVOURS=smoke` with the network: the locked wheels from
PyPI and the packages the smoke rootfs lacks from Debian. Under the emulated PBS the same script finds the checkout,
refuses a flavour of another architecture and builds the image the same way.
Cost on a 2-core machine: the mirror 2 to 5 minutes (pip re-checks the wheels; 176 s on a fresh directory, load 8), the
build 5 to 12 (DeepSpeed's CPU op compiles in it; 403 s for this module with the mirror made, on an otherwise idle
machine; 585 s at load 3 to 5, of which the job's own steps 515 s: wheelhouse 12, apptainer build 502), each
refusal about a second. The whole build runs when DDP_TEST_BUILD_JOB=1: `nox -s build_job`, and `nox -s tests`
(`make test`, CI) beside the tests that use no machine-wide resource, where the image it builds becomes the smoke image
the machine-wide tests run (DDP_BUILD_JOB_SMOKE_SIF, noxfile.py); the refusals run in every run.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from imagetool.buildargs import app_version

from tests.docs.test_readme_walkthrough import readme_command, readme_pbs_command, run_as_the_user, submitted_job
from tests.fixtures.slurm import JOB_USER, REPO, SlurmCluster
from tests.fixtures.twin import ARGS, source_mirror
from tests.fixtures.twin import REPO as CHECKOUT

pytestmark = [pytest.mark.slurm, pytest.mark.apptainer, pytest.mark.slow, pytest.mark.root]

SCRIPT = REPO / "jobscripts" / "build-image.sh"
#: What `make sources` gathers for the smoke flavour, kept between sessions (make keeps what still checks out)
MIRROR = CHECKOUT / "build" / "job-build-sources"
#: The job log under the emulated PBS (#PBS -N build-image) and under Slurm (--output=%x-%j.out)
PBS_LOG = "build-image.o{job_id}"
SLURM_LOG = "build-image-{job_id}.out"
BUILD_TIMEOUT_S = 1200
#: Where the built image goes for the rest of the run, when set (`nox -s tests`: build/smoke.sif, which `make
#: smoke-image` then finds up to date: it is newer than every input)
INSTALL_AS = "DDP_BUILD_JOB_SMOKE_SIF"
#: The test cluster's nodes, each a network namespace (tests/slurm/up.sh); the Slurm build is pinned to the first
NODE_NAMESPACES = ("sln1", "sln2", "sln3")
NODE = "node1"


def run_make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-C", str(CHECKOUT), *args], capture_output=True, text=True, timeout=1800)


@functools.cache
def smoke_mirror() -> Path:
    """The mirror as `make sources` writes it on the head (with the network), readable by the job user."""
    for target in ("build/smoke-rootfs/.debootstrapped",):
        made = run_make(target)
        assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    MIRROR.mkdir(parents=True, exist_ok=True)
    for name in (ARGS["LIBFABRIC_ARCHIVE"], ARGS["AWS_OFI_NCCL_ARCHIVE"], ARGS["NCCL_TESTS_ARCHIVE"]):
        if not (MIRROR / name).exists():
            shutil.copy(source_mirror() / name, MIRROR / name)
    made = run_make("sources", f"SOURCES={MIRROR}", "ARCH=x86_64", "FLAVOURS=smoke")
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert (MIRROR / "debs-smoke" / "SHA256SUMS").is_file(), made.stdout[-3000:]
    subprocess.run(["chmod", "-R", "a+rX", str(MIRROR)], check=True)
    return REPO / MIRROR.relative_to(CHECKOUT)


@functools.cache
def smoke_base() -> Path:
    """The smoke rootfs as a SIF (as root, once per session), the local base the job builds on."""
    sif = CHECKOUT / "build" / "smoke-base.sif"
    built = subprocess.run(["apptainer", "build", "--fakeroot", "--force", "--mksquashfs-args",
                            "-comp zstd -Xcompression-level 1", str(sif), str(CHECKOUT / "build" / "smoke-rootfs")],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    sif.chmod(0o644)
    return REPO / sif.relative_to(CHECKOUT)


def assert_the_nodes_reach_no_network() -> None:
    """No node's namespace has a route out: no default route, and the kernel finds none to a public address (PyPI's)
    (`ip route get` asks the routing table; no packet leaves)."""
    for namespace in NODE_NAMESPACES:
        default = subprocess.run(["ip", "-n", namespace, "route", "show", "default"], capture_output=True, text=True,
                                 timeout=60)
        assert default.returncode == 0 and not default.stdout.strip(), default.stdout + default.stderr
        public = subprocess.run(["ip", "-n", namespace, "route", "get", "151.101.0.223"], capture_output=True,
                                text=True, timeout=60)
        assert public.returncode != 0 and "unreachable" in public.stderr, public.stdout + public.stderr


#: The README's section that gets the image onto the cluster: the build job's command and the copy after it
IMAGE_SECTION = "Get the project and the image onto the cluster"


def stand_ins(path: str) -> dict[str, str]:
    """What the test cluster is not, given as a user's environment (sbatch exports it; `#PBS -V` carries it): the
    smoke flavour on a node without a GPU, the mirror of a site without a route out, the smoke rootfs as the base,
    a quicker compression. PATH: the login shell's (under PBS, the qsub stand-in first)."""
    return {"FLAVOUR": "smoke", "SOURCES": str(smoke_mirror()), "BASE": str(smoke_base()),
            "SQUASHFS_ARGS": "-comp zstd -Xcompression-level 1", "PATH": path}


def users_checkout(cluster: SlurmCluster) -> Path:
    """The checkout as a user has it on the cluster's shared filesystem: this one's tracked files as they are now,
    in a git repository the job user owns and has committed (the image's revision label is that commit)."""
    checkout = cluster.workdir()
    listed = subprocess.run(["git", "-C", str(CHECKOUT), "ls-files", "-z"], capture_output=True, text=True,
                            check=True, timeout=60).stdout
    for name in filter(None, listed.split("\0")):
        source = CHECKOUT / name
        if source.is_symlink() or source.is_file():  # a tracked file deleted in the working tree is not there
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / name, follow_symlinks=False)
    subprocess.run(["chown", "-R", f"{JOB_USER}:{JOB_USER}", str(checkout)], check=True, timeout=60)
    commit = ("git init -q && git add -A && "
              "git -c user.name=ddp -c user.email=ddp@localhost commit -q -m 'the checkout on the cluster'")
    run_as_the_user(cluster, checkout, commit, {})
    return checkout


def built_sif(checkout: Path) -> Path:
    """Where the job writes the image: IMAGE_DIR (build/ in the checkout) /app-FLAVOUR-VERSION.sif (buildjob.py)."""
    return checkout / "build" / f"app-smoke-{app_version(CHECKOUT)}.sif"


def copy_as_the_readme_says(cluster: SlurmCluster, checkout: Path) -> Path:
    """The README's copy of the built image to app.sif, where the job scripts take it; the smoke flavour for <arch>."""
    copy = readme_command(IMAGE_SECTION, r"cp build/app-<arch>-<version>\.sif app\.sif", arch="smoke",
                          version=app_version(CHECKOUT))
    run_as_the_user(cluster, checkout, copy, {})
    image = checkout / "app.sif"
    assert image.stat().st_size == built_sif(checkout).stat().st_size, copy
    return image


def install_for_the_run(image: Path, destination: Path) -> None:
    """The user's app.sif at `destination`, renamed into place (a reader never sees half of it)."""
    partial = destination.with_name(destination.name + ".from-job.tmp")
    shutil.copyfile(image, partial)
    partial.chmod(0o644)
    os.replace(partial, destination)


def remove_images(checkout: Path) -> None:
    """The built image and the user's copy of it: a gigabyte each on the test machine's /tmp."""
    shutil.rmtree(checkout / "build", ignore_errors=True)
    (checkout / "app.sif").unlink(missing_ok=True)


def assert_built_offline(output: str, checkout: Path) -> None:
    assert "building flavour smoke on node" in output, output[-6000:]
    assert f"build route: --fakeroot with {JOB_USER}'s /etc/subuid and /etc/subgid ranges" in output, output[-6000:]
    assert "offline: every archive, wheel and distribution package from the mirror" in output
    if (MIRROR / "debs-smoke" / "SHA256SUMS").read_text().split():  # packages the smoke rootfs lacks
        assert "installing from the package mirror /opt/app/sources/debs-smoke" in output, output[-6000:]
    sif = built_sif(checkout)
    assert f"built {sif}" in output, output[-6000:]
    [took] = [line for line in output.splitlines() if line.startswith("build-image.sh: the steps took lint ")]
    print(took)  # `nox -s build_job -- -s` shows where the job's time went
    labels = subprocess.run(["apptainer", "inspect", "--labels", str(sif)], capture_output=True, text=True,
                            timeout=120)
    revision = re.search(r"org.opencontainers.image.revision: (\S+)", labels.stdout)
    assert revision and re.fullmatch(r"[0-9a-f]{40}(-dirty)?", revision.group(1)), labels.stdout + labels.stderr
    # The private build directory went with the job
    assert not list(Path("/tmp").glob("app-build.*")), "the job left its build directory in /tmp"


#: The whole build only where asked: it takes minutes
needs_build_job = pytest.mark.skipif(
    os.environ.get("DDP_TEST_BUILD_JOB") != "1",
    reason="the whole build as a job takes 3 to 17 minutes on 2 cores: `nox -s build_job` runs it, and `nox -s tests` "
           "beside its first run")


@needs_build_job
def test_the_readmes_build_job_builds_the_image_on_a_node_with_no_route_out(slurm_cluster: SlurmCluster) -> None:
    """The README's `sbatch -p <partition> jobscripts/build-image.sh`, typed by the user in their checkout, then its
    `cp` to app.sif: the image the walkthroughs' jobs then run (in CI, DDP_BUILD_JOB_SMOKE_SIF)."""
    mirror = smoke_mirror()
    assert_the_nodes_reach_no_network()
    checkout = users_checkout(slurm_cluster)
    build = readme_command(IMAGE_SECTION, r"sbatch -p <partition> jobscripts/build-image\.sh", partition="debug")
    job_id = submitted_job(run_as_the_user(slurm_cluster, checkout, build, stand_ins(slurm_cluster.env["PATH"])))
    job = slurm_cluster.wait(job_id, checkout, timeout_s=BUILD_TIMEOUT_S, log=SLURM_LOG)
    assert job.state == "COMPLETED", job.output[-6000:]
    assert_built_offline(job.output, checkout)
    assert mirror.is_dir()
    image = copy_as_the_readme_says(slurm_cluster, checkout)
    if os.environ.get(INSTALL_AS):
        install_for_the_run(image, CHECKOUT / os.environ[INSTALL_AS])
    remove_images(checkout)


@needs_build_job
def test_under_pbs_the_readmes_build_job_builds_the_image_on_a_node_with_no_route_out(
        slurm_cluster: SlurmCluster) -> None:
    """The README's `qsub` for the build job under the emulated PBS, with a chunk resource of the user's own in its
    `-l select=1:...`: the same offline build, on whichever node the job gets, with the user's variables carried by
    the script's own `#PBS -V`."""
    smoke_mirror()
    assert_the_nodes_reach_no_network()
    checkout = users_checkout(slurm_cluster)
    build = readme_pbs_command(IMAGE_SECTION, r"qsub -q <queue> \[-l select=1:<site's resources>\] "
                                              r"jobscripts/build-image\.sh", **{"site's_resources": "ncpus=2"})
    build = build.replace("[", "").replace("]", "")  # the optional part, given
    path = f"{slurm_cluster.pbs_bin}:{slurm_cluster.env['PATH']}"
    job_id = run_as_the_user(slurm_cluster, checkout, build, stand_ins(path)).strip().partition(".")[0]
    job = slurm_cluster.wait(job_id, checkout, timeout_s=BUILD_TIMEOUT_S, log=PBS_LOG)
    assert job.state == "COMPLETED", job.output[-6000:]
    assert_built_offline(job.output, checkout)
    copy_as_the_readme_says(slurm_cluster, checkout)
    remove_images(checkout)


def assert_refused_for_its_architecture(output: str) -> None:
    other = "aarch64" if os.uname().machine == "x86_64" else "x86_64"
    [error] = [line for line in output.splitlines() if "error:" in line]
    assert f"flavour {other} is an {other} image and this node (node" in error, output
    assert f") is {os.uname().machine}; submit to {other} nodes" in error and f"FLAVOUR={os.uname().machine}" in error


def test_a_flavour_of_another_architecture_is_refused_in_one_line(slurm_cluster: SlurmCluster) -> None:
    workdir = slurm_cluster.workdir()
    other = "aarch64" if os.uname().machine == "x86_64" else "x86_64"
    job_id = slurm_cluster.submit(workdir, "-w", NODE, str(SCRIPT), env={"FLAVOUR": other, "CHECKOUT": str(REPO)})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=120, log=SLURM_LOG)
    assert job.exit_code == "2:0", job.output
    assert_refused_for_its_architecture(job.output)


def test_under_pbs_the_script_takes_the_submitters_variables_and_refuses_another_architecture(
        slurm_cluster: SlurmCluster) -> None:
    """qsub without -v: FLAVOUR and CHECKOUT reach the job through the script's own `#PBS -V`."""
    workdir = slurm_cluster.workdir()
    other = "aarch64" if os.uname().machine == "x86_64" else "x86_64"
    job_id = slurm_cluster.qsub(workdir, str(SCRIPT), env={"FLAVOUR": other, "CHECKOUT": str(REPO)})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=120, log=PBS_LOG)
    assert_refused_for_its_architecture(job.output)


def test_without_checkout_the_job_looks_in_the_submit_directory(slurm_cluster: SlurmCluster) -> None:
    """sbatch runs a copy of the script from its spool directory: the checkout is the submit directory, here one
    that holds none, which the job says in one line (the remedy: submit from the project directory)."""
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-w", NODE, str(SCRIPT), env={"FLAVOUR": "smoke"})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=120, log=SLURM_LOG)
    assert job.exit_code == "2:0", job.output
    assert f"build-image.sh: error: {workdir} holds no containers/app.def; submit from the project directory" in \
        job.output, job.output
