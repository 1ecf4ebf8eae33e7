"""Images a group shares through an OCI registry: pushed once, signed, and pulled by the jobs that name them
(standard library only: the job scripts run it on the batch host's python3, and a login node of any architecture
pulls with it).

`IMAGE=oras://HOST/NAMESPACE/app:TAG` is pulled once, on the job's head node before any step starts, into the
checkout's build/images/ (IMAGE_CACHE), one file per digest: a second job finds it there, and a tag that moved
pulls the new digest. `IMAGE=oras://...@sha256:DIGEST` pins one image: the registry's must be that one, and once
pulled it needs no registry. The file's signature is verified against your keyring before the job uses it
(app/host/launch/image_signature.py). The architecture is not checked here: an x86_64 login node pulls the aarch64
image for its aarch64 nodes, and the node checks it (app/host/launch/host_checks.py).

    python3 -m app.host.launch.image_registry pull IMAGE [--no-https] [--verify auto|1|0] [--cache DIR]
    python3 -m app.host.launch.image_registry push SIF --registry oras://HOST/NAMESPACE --tag TAG [--no-https]
"""

import argparse
import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import List, Mapping, NamedTuple, Optional, Sequence

from app.host.common import exitcodes
from app.host.common.errors import UsageError
from app.host.common.owners import others_can_write, why_parents_unsafe
from app.host.launch.image_signature import is_signed_by_keyring, verify
from app.host.launch.oci_registry import Reference, Unreachable, is_registry_image, parse_reference, registry_for

#: The checkout's own image cache (build/ is the images' directory: Makefile IMAGE_DIR)
DEFAULT_CACHE = Path(__file__).resolve().parents[3] / "build" / "images"
VERIFY_CHOICES = ("auto", "1", "0")


class Resolved(NamedTuple):
    """The image a job runs: the local file, and for a registry image its digest and the reference that pulls
    exactly it again ("" for a local file)."""

    sif: str
    digest: str
    pull: str
    said: List[str]
    #: Downloaded by this call (not found in the cache)
    fresh: bool = False


def cached_name(digest: str) -> str:
    return digest.replace(":", "-") + ".sif"


def _owned(path: Path) -> None:
    """Only you may have written what a job runs from the cache."""
    found = os.stat(str(path))
    if found.st_uid != os.getuid() or others_can_write(found):
        raise UsageError(f"{path} is not yours alone (owner uid {found.st_uid}, mode "
                         f"{stat.S_IMODE(found.st_mode):o}): another user could put an image there "
                         "that your job would run; remove it, or set IMAGE_CACHE to a directory of your own")


def cache_dir(path: Path) -> Path:
    try:
        os.makedirs(str(path), mode=0o755, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create the image cache {path}: {error.strerror}; set IMAGE_CACHE to a directory "
                         "you can write") from None
    _owned(path)
    why = why_parents_unsafe(path)  # a directory above it that others can write lets them swap the whole cache
    if why is not None:
        raise UsageError(f"IMAGE_CACHE={str(path)!r} {why}: an image they put there would run as you; set "
                         "IMAGE_CACHE to a directory only you can write, e.g. IMAGE_CACHE=$HOME/.cache/app-images")
    return path


def _download(reference: Reference, registry, manifest, target: Path) -> None:
    """The SIF into TARGET, whole or not at all (a part file renamed once its digest is right)."""
    part = target.with_name(f".{target.name}.{os.getpid()}.part")
    fd = os.open(str(part), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as out:
            registry.fetch_sif(reference.repository, manifest, out)
            out.flush()
            os.fsync(out.fileno())
        os.rename(str(part), str(target))
    except BaseException:
        if part.exists():
            part.unlink()
        raise


def pull(image: str, cache: Path, no_https: bool, environ: Mapping[str, str]) -> Resolved:
    """IMAGE (oras://...) as a file in CACHE: from the cache when its digest is there, else from the registry."""
    reference = parse_reference(image)
    if reference.digest and not reference.tag:
        target = cache / cached_name(reference.digest)
        if target.exists():
            _owned(target)
            return Resolved(str(target), reference.digest, image, [f"{image}: already pulled, {target}"])
    registry = registry_for(reference, no_https, dict(environ))
    try:
        manifest = registry.manifest(reference.repository, reference.tag or reference.digest)
    except Unreachable:
        target = cache / cached_name(reference.digest) if reference.digest else None
        if target is None or not target.exists():
            raise
        _owned(target)  # the pinned digest decides; whether the tag still names it is left unchecked
        return Resolved(str(target), reference.digest, image, [f"{image}: the registry is unreachable, and the "
                                                               f"pinned digest is already pulled: {target}"])
    if reference.digest and manifest.digest != reference.digest:
        raise UsageError(f"IMAGE pins {reference.digest} but {reference.repository}:{reference.tag} at "
                         f"{reference.host} is now {manifest.digest}: not the image the job was given; pin the new one "
                         f"(IMAGE={reference.pinned(manifest.digest)}) or ask who moved the tag")
    target = cache / cached_name(manifest.digest)
    pinned = reference.pinned(manifest.digest)
    if target.exists():
        _owned(target)
        said = f"{image} is {manifest.digest}: already pulled, {target}"
        return Resolved(str(target), manifest.digest, pinned, [said])
    _download(reference, registry, manifest, target)
    said = f"{image} is {manifest.digest}: pulled {manifest.sif_size / 1e6:.1f} MB into {target}"
    return Resolved(str(target), manifest.digest, pinned, [said], fresh=True)


def runtime_found(runtime: str) -> str:
    """APPTAINER, or `singularity` where that is the only one (MareNostrum 5's name for it)."""
    if shutil.which(runtime) is None and runtime == "apptainer" and shutil.which("singularity"):
        return "singularity"
    return runtime


def resolve(image: str, runtime: str, verify_mode: str, no_https: str, cache: str, environ: Mapping[str, str],
            dry_run: bool) -> Resolved:
    """The image the job's steps run, pulled and verified as IMAGE_VERIFY asks: auto verifies registry images,
    1 every image, 0 none (both knobs checked by app/host/launch/knobs.py)."""
    if image == "none":
        return Resolved(image, "", "", [])
    registry_image = is_registry_image(image)
    if dry_run and registry_image:
        reference = parse_reference(image)
        said = f"DRY_RUN=1: would pull {image} into {cache or DEFAULT_CACHE} and verify its signature"
        return Resolved(image, reference.digest, "", [said])
    if registry_image:
        resolved = pull(image, cache_dir(Path(cache) if cache else DEFAULT_CACHE), no_https == "1", environ)
    else:
        resolved = Resolved(image, "", "", [])
    if verify_mode == "1" or (verify_mode == "auto" and registry_image):
        if dry_run and not os.path.isfile(image):
            return resolved
        try:
            signer = verify(runtime_found(runtime), resolved.sif, image, environ)
        except UsageError:
            if resolved.fresh:  # not kept: a later job would only refuse it again
                os.unlink(resolved.sif)
            raise
        resolved.said.append(f"{resolved.sif}: signature verified, signed by {signer}")
    elif registry_image:
        resolved.said.append(f"warning: IMAGE_VERIFY=0: {image} runs without its signature checked")
    return resolved


def _sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as sif:
        for chunk in iter(lambda: sif.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def push(sif: str, registry: str, tag: str, runtime: str, no_https: bool, environ: Mapping[str, str]) -> str:
    """SIF signed (with the first key of your keyring, unless a key of it signed it already) and pushed to
    REGISTRY/app:TAG; returns the reference that pins what was pushed."""
    if not os.path.isfile(sif):
        raise UsageError(f"{sif} not found; build it (make image ARCH=...) or name it: make push PUSH_IMAGE=FILE")
    try:
        reference = parse_reference("{}/app:{}".format(registry.rstrip("/"), tag))
    except UsageError:
        raise UsageError(f"REGISTRY={registry} is not oras://HOST[:PORT]/NAMESPACE (lowercase); e.g. make push "
                         "REGISTRY=oras://registry.example.org/mygroup") from None
    runtime = runtime_found(runtime)
    if not is_signed_by_keyring(runtime, sif) and subprocess.run([runtime, "sign", sif], check=False).returncode:
        raise UsageError(f"{runtime} sign {sif} failed; make the group's key with '{runtime} key newpair' (or import "
                         f"it: '{runtime} key import --secret KEY.asc'), APPTAINER_KEYSDIR names its keyring")
    print(f"{sif}: signed by {verify(runtime, sif, sif, environ)}")
    target = f"oras://{reference.host}/{reference.repository}:{reference.tag}"
    if subprocess.run([runtime, "push", *(["--no-https"] if no_https else []), sif, target], check=False).returncode:
        raise UsageError(f"{runtime} push {sif} {target} failed (see above); log in with '{runtime} registry login "
                         f"oras://{reference.host}'")
    manifest = registry_for(reference, no_https, dict(environ)).manifest(reference.repository, reference.tag)
    if manifest.sif_digest != _sha256_of(sif):
        raise UsageError(f"{target} now holds {manifest.sif_digest}, not {sif}: someone pushed to the same tag "
                         "meanwhile; push again")
    return reference.pinned(manifest.digest)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m app.host.launch.image_registry",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command")
    commands.required = True
    get = commands.add_parser("pull", help="pull IMAGE (oras://...) into the cache and verify its signature")
    get.add_argument("image")
    get.add_argument("--verify", default="auto", choices=VERIFY_CHOICES, help="IMAGE_VERIFY")
    get.add_argument("--cache", default="", help="IMAGE_CACHE (default: the checkout's build/images)")
    put = commands.add_parser("push", help="sign SIF if need be, push it as REGISTRY/app:TAG, print its digest")
    put.add_argument("sif")
    put.add_argument("--registry", required=True, help="oras://HOST/NAMESPACE")
    put.add_argument("--tag", required=True, help="e.g. 0.1.0-aarch64")
    for command in (get, put):
        command.add_argument("--no-https", action="store_true", help="a registry on plain http")
        command.add_argument("--apptainer", default="apptainer", help="APPTAINER")
    args = parser.parse_args(argv)
    try:
        if args.command == "pull":
            if not is_registry_image(args.image):
                raise UsageError(f"pull takes a registry image, not {args.image}: e.g. make pull "
                                 "IMAGE=oras://registry.example.org/mygroup/app:0.1.0-aarch64")
            resolved = resolve(args.image, args.apptainer, args.verify, "1" if args.no_https else "0", args.cache,
                               os.environ, dry_run=False)
            for line in resolved.said:
                print(line)
            print(f"image: {resolved.sif}\ndigest: {resolved.digest}\nIMAGE={resolved.pull}")
        else:
            pinned = push(args.sif, args.registry, args.tag, args.apptainer, args.no_https, os.environ)
            print(f"pushed; jobs name it (this exact image) with:\nIMAGE={pinned}")
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return exitcodes.USAGE
    return exitcodes.OK


if __name__ == "__main__":
    sys.exit(main())
