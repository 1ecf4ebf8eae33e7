#!/usr/bin/env python3
"""Gather the wheels your packages need for an image, and none the image already has (docs/packages.md):

    python3 containers/gather-wheels.py --image-packages image-packages.txt --python-version 3.12 \
        --platform manylinux2014_aarch64 -d wheels/ accelerate

Why not a plain `pip download accelerate`: it fetches every dependency, torch and its CUDA wheels included
(2.9 GB for accelerate), although the image has them and keeps its own. A constraints file cannot help: it pins,
never leaves out, and the image's torch (NVIDIA's 2.12.0a0+...nv26.05) is on no index. So this walks the
dependency closure itself: `pip download --no-deps` one distribution at a time for the image's platform, reads the
wheel's Requires-Dist, and follows only the names the image does not have.

IMAGE_PACKAGES is the image's `pip list --format=freeze` (NAME==VERSION lines), read where its python runs: on a
node of its architecture (`srun -N1 apptainer exec app.sif python3 -m pip list --format=freeze`), or here where
QEMU is registered for it. A requirement that names an image package at a version the image does not have is
said in one line (the extension build would stop on it). Runs on the login node's python3 (3.6 and later) and
its pip; everything after `--` goes to pip (e.g. `-- --index-url URL`, `-- --no-index --find-links DIR`).
Exit codes: 0 done; 2 bad input (one line); otherwise pip's.
"""

import argparse
import os
import re
import subprocess
import sys
import zipfile

try:  # pip's own copy: any login node that has pip has it
    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    from pip._vendor.packaging.version import InvalidVersion, Version
except ImportError:  # pragma: no cover - a pip without a vendored packaging
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

USAGE = 2
#: The platform's machine for environment markers (platform_machine), from a manylinux/musllinux tag
MACHINE = re.compile(r"(x86_64|aarch64|ppc64le|s390x|i686)$")


def canonical(name):
    """PEP 503's normalised name: lower case, runs of -_. as one -."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_image_packages(path):
    """{name: version} from `pip list --format=freeze` lines; a line that is none stops in one line."""
    packages = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, version = line.partition("==")
            if not sep or not name.strip():
                name, sep, _ = line.partition(" @ ")  # a direct-URL install: the name is enough
                if not sep:
                    raise SystemExit(usage(f"{path} line {number} is not NAME==VERSION ({line!r}); write it with "
                                           "python3 -m pip list --format=freeze inside the image"))
            packages[canonical(name.strip())] = version.strip()
    return packages


def usage(message):
    print(f"gather-wheels: error: {message}", file=sys.stderr)
    return USAGE


def marker_environment(python_version, platform):
    """The environment markers of the image's python on PLATFORM (PEP 508), for Requires-Dist's conditions."""
    machine = MACHINE.search(platform)
    major_minor = ".".join(python_version.split(".")[:2])
    return {"python_version": major_minor, "python_full_version": major_minor + ".0",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
            "platform_machine": machine.group(1) if machine else "", "implementation_version": major_minor + ".0",
            "platform_release": "", "platform_version": ""}


def requires_dist(wheel):
    """The Requires-Dist lines of a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if re.match(r"[^/]+\.dist-info/METADATA$", n))
        text = archive.read(metadata).decode("utf-8", "replace")
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def wheel_name(filename):
    """A wheel file's distribution, normalised (PEP 427: NAME-VERSION-...)."""
    return canonical(os.path.basename(filename).split("-")[0])


def needed(requirement_text, extras, environment):
    """The Requirement REQUIREMENT_TEXT, or None where its marker leaves it out for these EXTRAS."""
    requirement = Requirement(requirement_text)
    if requirement.marker is None:
        return requirement
    for extra in extras or {""}:
        if requirement.marker.evaluate(dict(environment, extra=extra)):
            return requirement
    return None


def version_mismatch(requirement, image):
    """A line saying the image's version does not meet REQUIREMENT, or ''."""
    have = image.get(canonical(requirement.name))
    if not have or not str(requirement.specifier):
        return ""
    try:
        ok = requirement.specifier.contains(Version(have), prereleases=True)
    except InvalidVersion:
        return ""
    return "" if ok else (f"gather-wheels: warning: {requirement} is not met by the image's "
                          f"{requirement.name} {have}; the extension build will stop on it (docs/packages.md)")


def download(spec, dest, python_version, platform, pip_args):
    before = set(os.listdir(dest))
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version",
               python_version, "--platform", platform, "--dest", dest, *pip_args, spec]
    # universal_newlines, not text=: login nodes with Python 3.6 (SLES 15) run this
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)  # noqa: UP021
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        raise SystemExit(result.returncode)
    new = sorted(set(os.listdir(dest)) - before)
    wheels = [name for name in new if name.endswith(".whl")]
    if wheels:
        return os.path.join(dest, wheels[0])
    # Already there from an earlier run: pip says "File was already downloaded <path>"
    found = re.search(r"already downloaded (\S+\.whl)", result.stdout)
    return found.group(1) if found else ""


def gather(packages, image, dest, python_version, platform, pip_args):
    """Download PACKAGES and the closure of their dependencies the image lacks; the wheels fetched, in order."""
    environment = marker_environment(python_version, platform)
    queue = [(Requirement(text), set(Requirement(text).extras)) for text in packages]
    seen, fetched = set(), []
    while queue:
        requirement, extras = queue.pop(0)
        name = canonical(requirement.name)
        if name in image:
            mismatch = version_mismatch(requirement, image)
            if mismatch:
                print(mismatch, file=sys.stderr)
            continue
        if name in seen:
            continue
        seen.add(name)
        spec = requirement.name + str(requirement.specifier)
        wheel = download(spec, dest, python_version, platform, pip_args)
        if not wheel:
            continue
        fetched.append(os.path.basename(wheel))
        for text in requires_dist(wheel):
            dependency = needed(text, extras, environment)
            if dependency is not None:
                queue.append((dependency, set(dependency.extras)))
    return fetched


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    pip_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, pip_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(prog="gather-wheels", description=__doc__.split("\n\n")[0])
    parser.add_argument("--image-packages", required=True,
                        help="the image's `python3 -m pip list --format=freeze`, one NAME==VERSION a line")
    parser.add_argument("--python-version", required=True, help="the image's python, e.g. 3.12")
    parser.add_argument("--platform", required=True, help="e.g. manylinux2014_aarch64 (GH200), manylinux2014_x86_64")
    parser.add_argument("-d", "--dest", required=True, help="the directory of wheels make image-extend reads")
    parser.add_argument("packages", nargs="+", help="what to add, e.g. accelerate 'transformers>=4.50'")
    options = parser.parse_args(argv)
    if not re.match(r"^3\.\d+$", options.python_version):
        return usage(f"--python-version {options.python_version!r} is not MAJOR.MINOR (e.g. --python-version 3.12)")
    if not MACHINE.search(options.platform):
        return usage(f"--platform {options.platform!r} names no machine (e.g. --platform manylinux2014_aarch64)")
    if not os.path.isfile(options.image_packages):
        return usage(f"--image-packages {options.image_packages} is not a file; write it where the image runs: "
                     "apptainer exec app.sif python3 -m pip list --format=freeze > image-packages.txt")
    for text in options.packages:
        try:
            Requirement(text)
        except InvalidRequirement:
            return usage(f"{text!r} is not a package requirement (e.g. accelerate, 'transformers>=4.50')")
    image = read_image_packages(options.image_packages)
    os.makedirs(options.dest, exist_ok=True)
    fetched = gather(options.packages, image, options.dest, options.python_version, options.platform, pip_args)
    print(f"gather-wheels: {len(fetched)} wheel(s) in {options.dest}, none the image has: {' '.join(fetched)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
