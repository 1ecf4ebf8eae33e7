"""Build arguments: containers/versions.env + containers/arch/<flavour>.env -> one --build-arg-file.

versions.env holds every pinned version; an arch file holds only what differs between flavours and
refers to versions as `${NAME}`. Rendering expands those references, then adds what is known only at
build time (git revision, build date, app version, wheelhouse). Apptainer reads the result with
`--build-arg-file` (KEY=VALUE lines); the command line (`--build-arg`) still wins.
"""

import datetime as _dt
import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Match, Optional

from app.host.common.errors import UsageError

CONTAINERS_DIR = Path(__file__).resolve().parents[1]  # the definitions this tool renders and lints
VERSIONS_FILE = "versions.env"
_KEY = re.compile(r"^[A-Z][A-Z0-9_]*$")
_REFERENCE = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")
_GITHUB_TAG_ARCHIVE = re.compile(r"^https://github\.com/[^/]+/(?P<repo>[^/]+)/archive/refs/tags/(?P<tag>.+)$")


def flavours(containers_dir: Path = CONTAINERS_DIR) -> List[str]:
    """The names `--arch` accepts: one per file in containers/arch/."""
    return sorted(p.stem for p in (containers_dir / "arch").glob("*.env"))


def read_env_file(path: Path) -> Dict[str, str]:
    """KEY=VALUE lines, blank lines and `#` comment lines; anything else is an error naming the line."""
    try:
        text = path.read_text()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    values: Dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition("=")
        if not sep or not _KEY.match(key):
            raise UsageError(f"{path}:{number}: expected KEY=VALUE (e.g. NCCL_VERSION=2.30.4), got {stripped!r}")
        if key in values:
            raise UsageError(f"{path}:{number}: {key} is set twice; keep one value per key")
        values[key] = value
    return values


def archive_name(url: str) -> str:
    """The file a source mirror holds for `url`: REPOSITORY-TAG.tar.gz for a GitHub tag archive (the
    name shared/sources and `make sources` use), else the URL's last path element."""
    match = _GITHUB_TAG_ARCHIVE.match(url)
    return f"{match['repo']}-{match['tag']}" if match else url.rsplit("/", 1)[-1]


def _expand(value: str, versions: Dict[str, str], where: str) -> str:
    def lookup(match: Match[str]) -> str:
        name = match.group(1)
        if name not in versions:
            raise UsageError(f"{where} refers to ${{{name}}}, which containers/{VERSIONS_FILE} does not define")
        return versions[name]

    return _REFERENCE.sub(lookup, value)


def git_revision(repo: Path) -> str:
    """The commit the image is built from, with `-dirty` when the work tree has uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, stdout=subprocess.PIPE,  # noqa: UP022
                              stderr=subprocess.PIPE, universal_newlines=True, check=True)  # noqa: UP021 (3.6)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,  # noqa: UP022
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=True)  # noqa: UP021 (3.6)
    except OSError:
        return "unknown (no git on the build host)"
    except subprocess.CalledProcessError as err:
        # git (>= 2.35.2) refuses a repository another user owns, a colleague's shared checkout, unless the builder's
        # own config trusts it (safe.directory; git-config(1))
        if "dubious ownership" in err.stderr:
            return (f"unknown (git refuses {repo}, another user's checkout: git config --global --add "
                    f"safe.directory {repo})")
        return "unknown (not a git checkout)"
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def build_date() -> str:
    """UTC build time; honours SOURCE_DATE_EPOCH (reproducible-builds.org) when set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch
              else _dt.datetime.now(_dt.timezone.utc))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def app_version(repo: Path) -> str:
    """The project's version from pyproject.toml (the wheel the image installs)."""
    match = re.search(r'^version\s*=\s*"([^"]+)"', (repo / "pyproject.toml").read_text(), re.MULTILINE)
    return match.group(1) if match else "unknown"


def render_build_args(flavour: str, containers_dir: Path = CONTAINERS_DIR,
                      overrides: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """Every build argument for `flavour`, in a stable order: versions, then the arch file, then build facts.

    Precedence (later wins): containers/versions.env < containers/arch/<flavour>.env < build facts
    (GIT_REVISION, BUILD_DATE, APP_VERSION, WHEELHOUSE defaults) < `overrides` (the command line).
    """
    known = flavours(containers_dir)
    if flavour not in known:
        raise UsageError(f"unknown --arch {flavour!r}; choose one of {', '.join(known)} (files in "
                         f"{containers_dir / 'arch'}), e.g. --arch aarch64")
    versions: Dict[str, str] = {}
    for key, value in read_env_file(containers_dir / VERSIONS_FILE).items():
        versions[key] = _expand(value, versions, f"{VERSIONS_FILE}: {key}")  # earlier keys only
    versions.update({f"{key[:-len('_URL')]}_ARCHIVE": archive_name(url)
                     for key, url in versions.items() if key.endswith("_URL")})
    arch_path = containers_dir / "arch" / f"{flavour}.env"
    arch = {key: _expand(value, versions, f"{arch_path.name}: {key}")
            for key, value in read_env_file(arch_path).items()}
    repo = containers_dir.parent
    facts = {
        "GIT_REVISION": git_revision(repo),
        "BUILD_DATE": build_date(),
        "APP_VERSION": app_version(repo) if (repo / "pyproject.toml").exists() else "unknown",
        "WHEELHOUSE": f"build/wheelhouse-{flavour}",
        # The source mirror copied into the build (make image SOURCES=DIR); an empty one means download.
        "SOURCES": "build/no-sources",
        # Where in that mirror the distribution packages gathered from this flavour's base lie (make sources).
        "DEBS": f"debs-{flavour}",
    }
    return {**versions, **arch, **facts, **(overrides or {})}


def format_build_args(args: Dict[str, str], used: List[str]) -> str:
    """The --build-arg-file text: only the arguments the definition uses, since Apptainer rejects
    unused ones (and its parser warns about comment lines, so there are none)."""
    return "".join(f"{key}={args[key]}\n" for key in used if key in args)


def parse_overrides(pairs: List[str]) -> Dict[str, str]:
    """`KEY=VALUE` strings from the command line (`--set`)."""
    result = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not _KEY.match(key):
            raise UsageError(f"--set expects KEY=VALUE with an upper-case key, e.g. --set BASE=build/rootfs; "
                             f"got {pair!r}")
        result[key] = value
    return result
