"""The app's own wheel (app-VERSION-py3-none-any.whl, PEP 427) for the image's wheelhouse, built from the checkout
with the standard library alone: the image build job runs on the node's python3 (jobscripts/build-image.sh), whose
pip and setuptools cannot build this project. Python 3.6's pip 18 runs `setup.py egg_info`, which a project with
only a pyproject.toml lacks; 3.8's and 3.9's setuptools (56, 58) read no [project] table; a newer setuptools on
3.9 refuses the project's requires-python >= 3.10, a requirement of the image's Python, not of the builder's.

The wheel holds the files setuptools' build takes (pyproject.toml's build backend): the packages its
[tool.setuptools.packages.find] finds (setuptools/discovery.py, PackageFinder._find_iter), each package's *.py
(setuptools/command/build_py.py, find_package_modules) and the package data that [tool.setuptools.package-data]
names (build_py.find_data_files, with its implicit *.pyi and py.typed). A key of pyproject.toml this builder does
not write stops the build and names it, rather than leave it out of the wheel.

The same checkout gives the same bytes: files in sorted order, one fixed timestamp, modes 644 or 755.
"""

import base64
import csv
import glob
import hashlib
import io
import os
import re
import stat
import zipfile
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Dict, List, Match, NamedTuple, Tuple

from app.host.common.errors import UsageError
from imagetool.pyproject import read_pyproject

#: The build backend whose choice of files this builder copies
BACKEND = "setuptools.build_meta"
#: The [project] keys written into the wheel; any other stops the build (it would be missing from the wheel)
PROJECT_KEYS = ("name", "version", "description", "readme", "requires-python", "license", "dependencies",
                "optional-dependencies", "scripts", "gui-scripts", "entry-points")
#: The [tool.setuptools] keys whose effect this builder copies
SETUPTOOLS_KEYS = ("packages", "package-data")
FIND_KEYS = ("where", "include", "exclude", "namespaces")
#: What setuptools' PackageFinder always leaves out (setuptools/discovery.py, PackageFinder.DEFAULT_EXCLUDE)
DEFAULT_EXCLUDE = ("ez_setup", "*__pycache__")
#: Package data setuptools takes without being asked (setuptools/command/build_py.py, _IMPLICIT_DATA_FILES)
IMPLICIT_DATA = ("*.pyi", "py.typed")
#: Every entry's time: the earliest a zip file holds (1980-01-01), so that a build does not depend on when it ran
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
#: PEP 440's normal form, the one a wheel's file name takes as it is written
_VERSION = re.compile(r"^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$")
_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
#: A requirement's name and extras: `app[test,image]`, whose extras setuptools writes sorted
_EXTRAS = re.compile(r"^(\s*[A-Za-z0-9._-]+\s*)\[([^\]]*)\]")
_README_TYPES = {".md": "text/markdown", ".rst": "text/x-rst"}


class Project(NamedTuple):
    """What the wheel says of the project, from pyproject.toml."""

    name: str
    version: str
    headers: List[Tuple[str, str]]
    """METADATA's fields, in order, after Metadata-Version."""
    description: str
    """METADATA's body: the readme."""
    entry_points: Dict[str, Dict[str, str]]
    """Group (console_scripts, ...) -> name -> `module:function`."""
    files: Dict[str, Path]
    """Path in the wheel -> the file in the checkout."""

    @property
    def dist_info(self) -> str:
        return f"{_escaped(self.name)}-{self.version}.dist-info"

    @property
    def wheel_name(self) -> str:
        return f"{_escaped(self.name)}-{self.version}-py3-none-any.whl"


def build_wheel(root: Path, out_dir: Path) -> Path:
    """The wheel of the project at ROOT, written into OUT_DIR (renamed into place once whole); its path."""
    project = read_project(root)
    wheel = out_dir / project.wheel_name
    partial = out_dir / f".{project.wheel_name}.partial"
    data = wheel_bytes(project)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(data)
        os.replace(str(partial), str(wheel))
    except OSError as err:
        raise UsageError(f"cannot write {wheel}: {err.strerror}; point the wheelhouse at a directory of "
                         "yours with room (IMAGE_DIR=...)") from None
    finally:
        if partial.exists():
            partial.unlink()
    return wheel


def read_project(root: Path) -> Project:
    """The project at ROOT as its wheel holds it, or a UsageError naming the key this builder cannot write."""
    pyproject = read_pyproject(root)
    backend = pyproject.get("build-system", {}).get("build-backend")
    if backend != BACKEND:
        raise UsageError(f"pyproject.toml builds with {backend}, and the image's wheel builder "
                         f"(containers/imagetool/appwheel.py) takes the files {BACKEND} takes; teach it the new "
                         "backend's choice of files")
    project = pyproject.get("project", {})
    _refuse_unknown(project, PROJECT_KEYS, "[project]")
    name, version = project.get("name", ""), project.get("version", "")
    if not _NAME.match(name) or not _VERSION.match(version):
        raise UsageError(f"pyproject.toml names the project {name!r}, version {version!r}; the wheel needs a name "
                         "like 'app' and a version in PEP 440's normal form, like '0.1.0'")
    description, content_type = _readme(root, project.get("readme"))
    headers = [("Name", name), ("Version", version)]
    headers += _optional_header("Summary", project.get("description"))
    headers += _optional_header("License", _license(project.get("license")))
    headers += _optional_header("Requires-Python", project.get("requires-python"))
    headers += _optional_header("Description-Content-Type", content_type)
    headers += _requirements(project.get("dependencies", []), project.get("optional-dependencies", {}))
    return Project(name=name, version=version, headers=headers, description=description,
                   entry_points=_entry_points(project),
                   files=package_files(root, pyproject.get("tool", {}).get("setuptools", {})))


def package_files(root: Path, setuptools: Dict[str, Any]) -> Dict[str, Path]:
    """Path in the wheel -> file, for every module and package data file setuptools' build takes."""
    _refuse_unknown(setuptools, SETUPTOOLS_KEYS, "[tool.setuptools]")
    if (root / "MANIFEST.in").exists():
        raise UsageError(f"{root / 'MANIFEST.in'} can add package data that setuptools takes and the image's wheel "
                         "builder does not; name those files in [tool.setuptools.package-data] instead")
    packages = setuptools.get("packages", {})
    find = packages.get("find") if isinstance(packages, dict) else None
    if not isinstance(find, dict):
        raise UsageError("pyproject.toml lists no [tool.setuptools.packages.find]; the image's wheel builder finds "
                         "the packages as it says (include = [\"app*\"], namespaces = false)")
    _refuse_unknown(find, FIND_KEYS, "[tool.setuptools.packages.find]")
    if find.get("namespaces", True):
        raise UsageError("[tool.setuptools.packages.find] finds namespace packages (namespaces = true, the default); "
                         "the image's wheel builder takes regular packages only: set namespaces = false")
    package_data = {("" if key == "*" else key): value for key, value in setuptools.get("package-data", {}).items()}
    files: Dict[str, Path] = {}
    for where in find.get("where", ["."]):
        for package, directory in _find_packages(root / where, find.get("include", ["*"]),
                                                 [*find.get("exclude", []), *DEFAULT_EXCLUDE]):
            patterns = ["*.py", *IMPLICIT_DATA, *package_data.get("", []), *package_data.get(package, [])]
            for path in _matching_files(directory, patterns):
                files[f"{package.replace('.', '/')}/{path.relative_to(directory).as_posix()}"] = path
    if not files:
        raise UsageError(f"[tool.setuptools.packages.find] finds no package under {root} (a directory with an "
                         "__init__.py that its include patterns match); run from the project's checkout")
    return files


def _find_packages(where: Path, include: List[str], exclude: List[str]) -> List[Tuple[str, Path]]:
    """(package, directory) as setuptools' PackageFinder walks: into directories with an __init__.py and no dot
    in their name only, taking those whose dotted name an include pattern matches and no exclude pattern does."""
    found = []
    for directory, subdirectories, _files in os.walk(str(where), followlinks=True):
        subdirectories[:] = sorted(name for name in subdirectories
                                   if "." not in name and os.path.isfile(os.path.join(directory, name, "__init__.py")))
        for name in subdirectories:
            package = os.path.relpath(os.path.join(directory, name), str(where)).replace(os.sep, ".")
            if any(fnmatchcase(package, pattern) for pattern in include) and \
                    not any(fnmatchcase(package, pattern) for pattern in exclude):
                found.append((package, Path(directory, name)))
    return sorted(found)


def _matching_files(directory: Path, patterns: List[str]) -> List[Path]:
    """The files a pattern matches, relative to DIRECTORY, as build_py globs them (`**` spans directories)."""
    matches = set()
    for pattern in patterns:
        for match in glob.glob(os.path.join(glob.escape(str(directory)), pattern), recursive=True):
            if os.path.isfile(match):
                matches.add(Path(match))
    return sorted(matches)


def wheel_bytes(project: Project) -> bytes:
    """The wheel: the package files in sorted order, then its .dist-info, RECORD last (PEP 427)."""
    entries = [(name, path.read_bytes(), _mode(path)) for name, path in sorted(project.files.items())]
    dist_info = project.dist_info
    entries += [(f"{dist_info}/METADATA", metadata_text(project).encode("utf-8"), 0o644),
                (f"{dist_info}/WHEEL", wheel_text().encode("utf-8"), 0o644)]
    if project.entry_points:
        entries.append((f"{dist_info}/entry_points.txt", entry_points_text(project).encode("utf-8"), 0o644))
    top_level = sorted({name.split("/")[0] for name in project.files})
    entries.append((f"{dist_info}/top_level.txt", "".join(f"{name}\n" for name in top_level).encode("utf-8"), 0o644))
    entries.append((f"{dist_info}/RECORD", record_text(entries, f"{dist_info}/RECORD").encode("utf-8"), 0o644))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.create_system = 3  # Unix: external_attr holds the mode
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def metadata_text(project: Project) -> str:
    """Core metadata 2.1 (the fields this builder writes are all in it), the readme as its body."""
    lines = [f"{key}: {value}\n" for key, value in [("Metadata-Version", "2.1"), *project.headers]]
    return "".join(lines) + ("\n" + project.description if project.description else "")


def wheel_text() -> str:
    return ("Wheel-Version: 1.0\nGenerator: imagetool (containers/imagetool/appwheel.py)\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n")


def entry_points_text(project: Project) -> str:
    sections = []
    for group, entries in sorted(project.entry_points.items()):
        sections.append(f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in sorted(entries.items())))
    return "\n".join(sections)


def record_text(entries: List[Tuple[str, bytes, int]], record: str) -> str:
    """RECORD: each file with its sha256 (urlsafe base64, no padding) and size; RECORD itself with neither."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    for name, data, _mode in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        writer.writerow([name, f"sha256={digest}", len(data)])
    writer.writerow([record, "", ""])
    return text.getvalue()


def _mode(path: Path) -> int:
    """755 for a file its owner may run (the job scripts' helpers), else 644: the same whatever the umask."""
    return 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644


def _escaped(name: str) -> str:
    """The name as a wheel's file name writes it (runs of -_. as one _, lower case)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _refuse_unknown(table: Dict[str, Any], known: Tuple[str, ...], where: str) -> None:
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise UsageError(f"pyproject.toml's {where} has {', '.join(unknown)}, which the image's wheel builder "
                         f"(containers/imagetool/appwheel.py) does not write; teach it, or take it out (it knows "
                         f"{', '.join(known)})")


def _optional_header(key: str, value: Any) -> List[Tuple[str, str]]:
    if value is None:
        return []
    if not isinstance(value, str) or "\n" in value:
        raise UsageError(f"pyproject.toml's {key.lower()} is {value!r}; write it as one line of text")
    return [(key, value)]


def _license(value: Any) -> Any:
    """`license = "SPDX"` or `{ text = "..." }` as METADATA's License; a license file is not copied: refused."""
    if isinstance(value, dict):
        if set(value) != {"text"}:
            raise UsageError(f"pyproject.toml's license is {value!r}; the image's wheel builder writes "
                             "license = { text = \"...\" } or license = \"SPDX-ID\"")
        return value["text"]
    return value


def _readme(root: Path, readme: Any) -> Tuple[str, Any]:
    """(METADATA's body, its Description-Content-Type) from `readme`: a file name, or { file | text, content-type }."""
    if readme is None:
        return "", None
    table = {"file": readme} if isinstance(readme, str) else readme
    if not isinstance(table, dict) or len({"file", "text"} & set(table)) != 1:
        raise UsageError(f"pyproject.toml's readme is {readme!r}; write readme = \"README.md\"")
    if "text" in table:
        return table["text"], table.get("content-type", "text/plain")
    path = root / table["file"]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot read the readme {path}: {err.strerror}") from None
    return text, table.get("content-type", _README_TYPES.get(path.suffix.lower(), "text/plain"))


def _requirements(dependencies: List[str], extras: Dict[str, List[str]]) -> List[Tuple[str, str]]:
    """Requires-Dist of every dependency, then each extra's Provides-Extra and its requirements, marked as setuptools
    marks them (`; extra == "test"`)."""
    headers = [("Requires-Dist", _requirement(dependency)) for dependency in dependencies]
    for extra, requirements in extras.items():
        extra = re.sub(r"[-_.]+", "-", extra).lower()  # PEP 685
        headers.append(("Provides-Extra", extra))
        for requirement in requirements:
            spec, _, marker = _requirement(requirement).partition(";")
            condition = f'({marker.strip()}) and extra == "{extra}"' if marker.strip() else f'extra == "{extra}"'
            headers.append(("Requires-Dist", f"{spec.strip()}; {condition}"))
    return headers


def _requirement(requirement: str) -> str:
    def sorted_extras(match: Match[str]) -> str:
        return f"{match.group(1).strip()}[{','.join(sorted(e.strip() for e in match.group(2).split(',')))}]"

    return _EXTRAS.sub(sorted_extras, requirement.strip(), count=1)


def _entry_points(project: Dict[str, Any]) -> Dict[str, Dict[str, str]]:
    groups = {name: dict(entries) for name, entries in project.get("entry-points", {}).items()}
    for key, group in (("scripts", "console_scripts"), ("gui-scripts", "gui_scripts")):
        if key in project:
            groups[group] = dict(project[key])
    return groups
