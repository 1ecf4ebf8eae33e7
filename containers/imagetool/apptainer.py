"""The Apptainer (or SingularityCE) a build host runs, and the `build` and `pull` command lines made for it.

Sites run Apptainer 1.2, 1.3, 1.4 and SingularityCE 4, whose `build` and `pull` take different flags; a flag
a release does not register stops it at once (`Error: unknown flag: --arch`). So the command line follows the
version `--version` prints. Each fact below names the source file and tag it was read from.
"""

import re
import shutil
import subprocess
from typing import List, NamedTuple, Tuple

from app.host.common.errors import UsageError

#: Templated definitions (`{{ VAR }}`, `--build-arg-file`) came with Apptainer 1.2.0 and SingularityCE 4.0.0
#: (their CHANGELOGs); older releases stop at the first `{{` with a parse error.
MINIMUM = {"apptainer": (1, 2, 0), "singularity-ce": (4, 0, 0)}
_NAMES = {"apptainer": "Apptainer", "singularity-ce": "SingularityCE"}
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_INSTALL = ("load a newer one ('module avail apptainer') or install it (Debian 12, as root: "
            "bash tests/provision/provision-apptainer.sh), then make image APPTAINER=/path/to/apptainer")


class Runtime(NamedTuple):
    """One installed release: the executable to call, its product and its version."""

    executable: str
    product: str  # "apptainer" or "singularity-ce" (the first word of `--version`, cmd/internal/cli)
    version: Tuple[int, int, int]

    @property
    def name(self) -> str:
        return f"{_NAMES[self.product]} {'.'.join(map(str, self.version))}"

    @property
    def is_apptainer(self) -> bool:
        return self.product == "apptainer"

    @property
    def builds_for_another_arch(self) -> bool:
        """`build --arch` for a local build: Apptainer 1.4.0 (CHANGELOG; cmd/internal/cli/build.go, v1.4.0).
        SingularityCE's `build --arch` is for remote builds only (build_linux.go, v4.0.0 to v4.5.1)."""
        return self.is_apptainer and self.version >= (1, 4, 0)

    @property
    def takes_mksquashfs_args(self) -> bool:
        """`build --mksquashfs-args`: Apptainer 1.4.0 (CHANGELOG; build.go, v1.4.0); no SingularityCE has it."""
        return self.is_apptainer and self.version >= (1, 4, 0)

    @property
    def env_prefix(self) -> str:
        """APPTAINER_TMPDIR / APPTAINER_CACHEDIR, or SINGULARITY_... (cmdline EnvKeys get the product's prefix)."""
        return "APPTAINER" if self.is_apptainer else "SINGULARITY"

    @property
    def default_cache(self) -> str:
        """Where layers and pulled images go when no CACHEDIR is set (each product's build_env docs)."""
        return "~/.apptainer/cache" if self.is_apptainer else "~/.singularity/cache"


def product_of(line: str) -> str:
    """The product a `--version` line names: "singularity-ce" for SingularityCE and an older Singularity
    ("singularity version 3.8.7"), else "apptainer"."""
    return "singularity-ce" if line.startswith("singularity") else "apptainer"


def parse_version(line: str, executable: str) -> Runtime:
    """The Runtime `EXECUTABLE --version` describes ("apptainer version 1.3.6-1.el8", "singularity-ce version
    4.1.2-jammy"); an older Singularity ("singularity version 3.8.7") counts as a too-old SingularityCE."""
    product = product_of(line)
    match = _VERSION.search(line)
    minimum = ".".join(map(str, MINIMUM[product]))
    if match is None:
        raise UsageError(f"'{executable} --version' printed {line.strip()!r}, no version; "
                         f"need {_NAMES[product]} >= {minimum}: {_INSTALL}")
    version = (int(match[1]), int(match[2]), int(match[3] or 0))
    if version < MINIMUM[product]:
        raise UsageError(f"{_NAMES[product]} {match[0]} is too old to build these images (templated definitions "
                         f"need >= {minimum}): {_INSTALL}")
    return Runtime(executable, product, version)


def read_runtime(executable: str) -> Runtime:
    """Run `EXECUTABLE --version` and parse it; a missing executable says how to get one."""
    if shutil.which(executable) is None:
        raise UsageError(f"'{executable}' not found. Install Apptainer >= 1.2 (Debian 12, as root: bash "
                         "tests/provision/provision-apptainer.sh; clusters: 'module load apptainer' or 'module load "
                         "singularity' and make image APPTAINER=singularity)")
    result = subprocess.run([executable, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,  # noqa: UP022
                            universal_newlines=True, timeout=60)  # noqa: UP021 (3.6)
    return parse_version(result.stdout.strip() or result.stderr.strip(), executable)


def check_cross_build(runtime: Runtime, target_arch: str, host_arch: str) -> None:
    """Refuse, in one line, a build for another architecture that this release cannot do."""
    if target_arch == host_arch or runtime.builds_for_another_arch:
        return
    where = f"or build on a {target_arch} node (make image ARCH={target_arch} there)"
    if runtime.is_apptainer:
        raise UsageError(f"building a {target_arch} image on this {host_arch} machine needs Apptainer >= 1.4 "
                         f"(build --arch), this is {runtime.name}: load a newer one ('module avail apptainer') {where}")
    raise UsageError(f"SingularityCE builds only for its host's architecture ({runtime.name} on {host_arch}: "
                     f"'Cannot build locally' for {target_arch}): use Apptainer >= 1.4 {where}")


def build_command(runtime: Runtime, *, target_arch: str, host_arch: str, docker_arch: str, args_file: str,
                  squashfs_args: str, extra: Tuple[str, ...], out: str, definition: str) -> List[str]:
    """`apptainer build` for this release: --arch only for a cross-build (Apptainer >= 1.4; natively every
    release takes the host's platform out of a multi-arch base), --mksquashfs-args only where it exists
    (elsewhere mksquashfs's default, gzip). Flags before the two positional arguments."""
    check_cross_build(runtime, target_arch, host_arch)
    command = [runtime.executable, "build", "--force", "--fakeroot"]
    if target_arch != host_arch:
        command += ["--arch", docker_arch]
    command += ["--build-arg-file", args_file]
    if runtime.takes_mksquashfs_args and squashfs_args:
        command += ["--mksquashfs-args", squashfs_args]
    return [*command, *extra, out, definition]


def pull_command(runtime: Runtime, *, docker_arch: str, out: str, ref: str) -> List[str]:
    """`pull` of a multi-arch base for one platform. Every supported release takes `pull --arch` for OCI
    sources: Apptainer from 1.2.0 (cmd/internal/cli/pull.go passes it to oci.PullOptions.Pullarch), SingularityCE
    from 4.0.0 (singularity.go's --arch/--platform on PullCmd; CHANGELOG 4.0.0)."""
    return [runtime.executable, "pull", "--arch", docker_arch, out, ref]
