"""The invariants every image definition must keep, checked on the rendered definition.

What is checked, and why:
  1. sections %files %post %environment %labels %help %test exist (the image must say what it is,
     how to run it, and test itself);
  2. `Bootstrap: docker` bases are pinned by digest alone (`NAME@sha256:<64 hex>`): a tag can move under
     a rebuild, and Apptainer refuses `NAME:TAG@sha256:...` (the tag goes in a label). A `localimage`
     base (the smoke rootfs, the NGC twin, a user's `BASE=ngc.sif` for offline builds) must say in
     BASE_DIGEST what it is, since no registry digest describes it;
  3. every download is checksum-verified: the build scripts fetch only through `fetch_verified URL
     SHA256 DEST` (no bare curl/wget), and every *_SHA256 build argument is 64 hex digits;
  4. every pinned version the definition uses has a label (`{{ X_VERSION }}` appears in %labels),
     plus the base digest, the git revision and the build date;
  5. no stale NCCL_NET_PLUGIN is left set: nothing assigns it, the fabric policy unsets one that names
     no plugin there (NGC's, a site module's) and the build runs remove-stale-plugins;
  6. the fabric policy (app/host/common/fabric_policy.env, copied to /opt/app) sets every NCCL_*/FI_*
     variable only if unset, through `app_setting`, each with a comment line above it saying why.
     %runscript sources it and %environment sets no NCCL_*/FI_* variable: Apptainer (1.4) evaluates
     %environment without the host's variables and lets its exports override them, so "only if
     unset" cannot work there.
"""

import re
from pathlib import Path
from typing import Dict, List, Optional

from app.host.common.fabric_policy import POLICY_FILE
from imagetool.definition import Definition, DefinitionError, parse_with_spython, spython_installed, substitute

REQUIRED_SECTIONS = ("files", "post", "environment", "runscript", "labels", "help", "test")
REQUIRED_LABELS = ("org.opencontainers.image.revision", "org.opencontainers.image.created",
                   "org.opencontainers.image.base.digest")
RUNTIME_ENV = POLICY_FILE.name
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
# NAME:TAG@sha256:...: a colon after the last slash, before the digest.
_TAG_AND_DIGEST = re.compile(r":[^/@]+@sha256:")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PINNED = re.compile(r"_(VERSION|TAG|SUITE|DIGEST)$")
# curl/wget run as a command (line start, after ; & | ( or $( ), not named in a package list.
_DOWNLOAD_COMMAND = re.compile(r"(^|[;&|(]|\$\()\s*(curl|wget)\s")
_FABRIC_ASSIGN = re.compile(r"^(?:export\s+)?((?:NCCL|FI)_[A-Z0-9_]+)=")


def _check_sections(template: Definition) -> List[str]:
    return [f"section %{name} is missing; every image needs it (see containers/app.def)"
            for name in REQUIRED_SECTIONS if name not in template.sections]


def _check_base(rendered: Definition, args: Dict[str, str]) -> List[str]:
    bootstrap = rendered.header.get("bootstrap", "")
    base = rendered.header.get("from", "")
    if bootstrap == "docker":
        if not _DIGEST.search(base):
            return [f"base {base!r} is not pinned by digest; use NAME@sha256:<64 hex> "
                    "(e.g. nvcr.io/nvidia/pytorch@sha256:...) in containers/arch/<arch>.env"]
        if _TAG_AND_DIGEST.search(base):
            return [f"base {base!r} has a tag and a digest, which Apptainer refuses ('Docker references with "
                    "both a tag and digest are currently not supported'); keep NAME@sha256:... in BASE and "
                    "the tag in BASE_NAME"]
        return []
    if bootstrap == "localimage":
        if not args.get("BASE_DIGEST"):
            return [f"local base {base!r} has no BASE_DIGEST; say what it is (make image BASE=FILE.sif records "
                    "the file's sha256)"]
        return []
    return [f"Bootstrap {bootstrap!r} is not allowed: use 'Bootstrap: docker' with a digest-pinned base, or "
            "'localimage' with a local base (make image BASE=FILE.sif)"]


def _check_downloads(args: Dict[str, str], scripts: Dict[str, str]) -> List[str]:
    problems = [f"build argument {key}={value!r} is not a sha256 (64 lower-case hex digits); pin it in "
                "containers/versions.env" for key, value in args.items()
                if key.endswith("_SHA256") and not _SHA256.match(value)]
    for name, text in scripts.items():
        for number, line in enumerate(text.splitlines(), start=1):
            code = line.split("#", 1)[0]
            if name != "lib.sh" and _DOWNLOAD_COMMAND.search(code):
                problems.append(f"containers/scripts/{name}:{number} downloads without a checksum; use "
                                "fetch_verified URL \"$X_SHA256\" DEST (containers/scripts/lib.sh)")
            call = re.match(r"\s*fetch_verified\s+(\S+)(?:\s*\\\s*$)?", code)
            if call:
                rest = " ".join([code, *text.splitlines()[number:number + 1]])
                if not re.search(r'"\$\{?[A-Z0-9_]+_SHA256\}?"', rest):
                    problems.append(f"containers/scripts/{name}:{number}: fetch_verified without a "
                                    "*_SHA256 build argument as its checksum")
    return problems


def _check_labels(template: Definition, rendered: Definition) -> List[str]:
    labelled = " ".join(template.body("labels"))
    used = set(re.findall(r"\{\{\s*([A-Z0-9_]+)\s*\}\}", "\n".join(
        line for name, lines in template.sections.items() for line in lines)))
    used |= set(re.findall(r"\{\{\s*([A-Z0-9_]+)\s*\}\}", " ".join(template.header.values())))
    problems = [f"pinned version {{{{ {key} }}}} is used but has no label; add e.g. "
                f"'app.pin.{key.lower()[:-len('_version')].replace('_', '-')} {{{{ {key} }}}}' to %labels"
                for key in sorted(used) if _PINNED.search(key) and not key.endswith("_SHA256")
                and not re.search(r"\{\{\s*" + key + r"\s*\}\}", labelled)]
    labels = rendered.labels()
    problems += [f"label {name} is missing from %labels (provenance: base digest, git revision, build date)"
                 for name in REQUIRED_LABELS if name not in labels]
    return problems


def _check_environment(rendered: Definition, runtime_env: Optional[str], scripts: Dict[str, str]) -> List[str]:
    problems = []
    environment = rendered.body("environment")
    sources = any(re.match(rf"^(\.|source)\s+\S*/{RUNTIME_ENV}$", line) for line in rendered.body("runscript"))
    if not sources:
        problems.append(f"%runscript does not source /opt/app/{RUNTIME_ENV}; the fabric defaults must be "
                        "applied where the user's own values are visible")
    if not any(RUNTIME_ENV in line for line in rendered.body("files")):
        problems.append(f"%files does not copy app/host/common/{RUNTIME_ENV} into the image")
    if runtime_env is None:
        return [*problems, f"app/host/common/{RUNTIME_ENV} is missing"]
    for line in environment:
        if re.search(r"\b(NCCL|FI)_[A-Z0-9_]+=", line) or "app_default" in line or RUNTIME_ENV in line:
            problems.append(f"%environment sets fabric variables ({line!r}); Apptainer evaluates it without the "
                            f"host's variables and overrides them: set them in {RUNTIME_ENV}, applied by %runscript")
    for number, line in enumerate(runtime_env.splitlines(), start=1):
        match = _FABRIC_ASSIGN.match(line.strip())
        if match:
            problems.append(f"{RUNTIME_ENV}:{number} sets {match.group(1)} unconditionally; use "
                            f"'app_setting FABRIC WHEN {match.group(1)} VALUE REASON' so a user's setting wins")
    previous = ""
    for number, line in enumerate(runtime_env.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("app_setting ") and not previous.startswith("#"):
            problems.append(f"{RUNTIME_ENV}:{number}: {stripped!r} has no comment above it saying why")
        if re.match(r"(?:export\s+)?NCCL_NET_PLUGIN\b|app_setting\s+\S+\s+\S+\s+NCCL_NET_PLUGIN\b", stripped):
            problems.append(f"{RUNTIME_ENV}:{number} sets NCCL_NET_PLUGIN; it must stay unset (NCCL would "
                            "ignore NCCL_NET)")
        previous = stripped or previous
    if not re.search(r"^\s*unset NCCL_NET_PLUGIN$", runtime_env, re.MULTILINE):
        problems.append(f"{RUNTIME_ENV} does not 'unset NCCL_NET_PLUGIN' (NGC bases set it)")
    if "remove-stale-plugins" not in scripts.get("build.sh", ""):
        problems.append("containers/scripts/build.sh does not run remove-stale-plugins (stale/EFA NCCL plugins)")
    return problems


def lint_definition(template_text: str, args: Dict[str, str], containers_dir: Path,
                    policy_path: Path = POLICY_FILE) -> Definition:
    """Check every invariant; return the rendered definition, or raise DefinitionError listing all problems."""
    rendered_text = substitute(template_text, args)
    template, rendered = Definition.split(template_text), Definition.split(rendered_text)
    scripts = {p.name: p.read_text() for p in sorted((containers_dir / "scripts").glob("*.sh"))}
    runtime_env = policy_path.read_text() if policy_path.exists() else None
    problems = [
        *_check_sections(template),
        *_check_base(rendered, args),
        *_check_downloads(args, scripts),
        *_check_labels(template, rendered),
        *_check_environment(rendered, runtime_env, scripts),
    ]
    if not rendered.body("post"):
        problems.append("%post holds no command; the build installs everything there")
    # spython, a second parser, only where it is installed (a workstation's .venv): the build job runs on a
    # node's bare python3, and what spython adds is a cross-check of the header our own split already reads.
    if not problems and spython_installed():
        parsed = parse_with_spython(rendered_text, rendered)
        expected_from = rendered.header.get("from", "").lower()
        if parsed.from_header != expected_from:
            problems.append(f"spython read the base as {parsed.from_header!r}, not {expected_from!r}: a comment "
                            "or %post line probably contains 'from:'; reword it")
        if not parsed.install:
            problems.append("spython found no %post commands")
    if problems:
        raise DefinitionError(f"{len(problems)} problem(s) in the definition: " + "; ".join(problems))
    return rendered
