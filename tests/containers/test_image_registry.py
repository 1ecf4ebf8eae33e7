"""The registry route, against a real registry on loopback (tests/fixtures/registry.py): `make push` signs and
pushes, `make pull` and the job's own pull (Job.pull_image) pull once per digest into the cache and verify the
signature; a moved tag, a pinned digest, a wrong digest, a stranger's, a missing and a broken signature, and an
aarch64 image pulled on this x86_64 "login node" (app/host/launch/image_registry.py, oci_registry.py,
image_signature.py).

The images are SIFs of a few kB built in the test (a text file and the label app.arch, as `make image` writes it):
what is checked is the route, not the image's contents. About 15 s in all on 2 cores.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.host_checks import check_image_arch
from tests.host.launch.job_parts import job_parts

REPO = Path(__file__).resolve().parents[2]
VERSION = next(line.split('"')[1] for line in (REPO / "pyproject.toml").read_text().splitlines()
               if line.startswith("version = "))


def sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def make(*args: str, keys: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-s", "-C", str(REPO), *args, f"KEYS_DIR={keys}", "IMAGE_NO_HTTPS=1"],
                          capture_output=True, text=True, timeout=300)


def pushed(sif: Path, registry: str, keys: Path, arch: str = "x86_64") -> str:
    """`make push` as the group's member types it; the IMAGE= line it prints, without IMAGE=."""
    done = make("push", f"REGISTRY=oras://{registry}/group", f"PUSH_IMAGE={sif}", f"ARCH={arch}", keys=keys)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip().splitlines()[-1].removeprefix("IMAGE=")


def signed(sif: Path, keys: Path) -> Path:
    subprocess.run(["apptainer", "sign", str(sif)], env={**os.environ, "APPTAINER_KEYSDIR": str(keys)}, check=True,
                   capture_output=True, timeout=120)
    return sif


def raw_push(sif: Path, target: str) -> None:
    """`apptainer push` by hand: what a member who skips `make push` (and its signing) does."""
    subprocess.run(["apptainer", "push", "--no-https", str(sif), target], check=True, capture_output=True, timeout=120)


def pull(image: str, cache: Path, keys: Path) -> subprocess.CompletedProcess[str]:
    return make("pull", f"IMAGE={image}", f"IMAGE_CACHE={cache}", keys=keys)


def test_push_signs_and_a_pull_by_tag_gives_the_same_file_verified(oci_registry, keyring, tiny_sif, tmp_path):
    keys, sif = keyring("group"), tiny_sif("first")
    pinned = pushed(sif, oci_registry, keys)
    tag = f"oras://{oci_registry}/group/app:{VERSION}-x86_64"
    assert pinned.startswith(tag + "@sha256:")
    done = pull(tag, tmp_path / "cache", keys)
    assert done.returncode == 0, done.stderr
    assert "signature verified, signed by group (test key) <group@example.org>" in done.stdout
    digest = pinned.rsplit("@", 1)[1]
    cached = tmp_path / "cache" / f"{digest.replace(':', '-')}.sif"
    assert sha256(cached) == sha256(sif)  # the signed file, as pushed
    assert f"IMAGE={pinned}" in done.stdout
    # The digest is the registry's own for the tag: what `apptainer pull ...@sha256:` and other clients name
    request = urllib.request.Request(f"http://{oci_registry}/v2/group/app/manifests/{VERSION}-x86_64",
                                     headers={"Accept": "application/vnd.oci.image.manifest.v1+json"})
    with urllib.request.urlopen(request) as answer:
        assert answer.headers["Docker-Content-Digest"] == digest


def test_a_second_pull_finds_the_cache_and_a_moved_tag_pulls_the_new_digest(oci_registry, keyring, tiny_sif,
                                                                              tmp_path):
    keys, cache = keyring("group"), tmp_path / "cache"
    tag = f"oras://{oci_registry}/group/app:moving"
    raw_push(signed(tiny_sif("one"), keys), tag)
    first = pull(tag, cache, keys)
    assert first.returncode == 0 and "pulled" in first.stdout and "already" not in first.stdout, first.stderr
    [cached] = cache.glob("*.sif")
    before = cached.stat()
    again = pull(tag, cache, keys)
    assert again.returncode == 0 and "already pulled" in again.stdout, again.stdout + again.stderr
    assert (cached.stat().st_ino, cached.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    raw_push(signed(tiny_sif("two"), keys), tag)
    moved = pull(tag, cache, keys)
    assert moved.returncode == 0 and "pulled" in moved.stdout and "already" not in moved.stdout, moved.stdout
    assert len(list(cache.glob("*.sif"))) == 2
    assert moved.stdout.splitlines()[-1] != first.stdout.splitlines()[-1]  # IMAGE=...@ the new digest


def test_a_pinned_digest_pulls_that_image_and_once_pulled_needs_no_registry(oci_registry, keyring, tiny_sif,
                                                                             tmp_path):
    keys, cache = keyring("group"), tmp_path / "cache"
    pinned = pushed(tiny_sif("pinned"), oci_registry, keys)
    digest = pinned.rsplit("@", 1)[1]
    by_digest = f"oras://{oci_registry}/group/app@{digest}"
    assert pull(by_digest, cache, keys).returncode == 0
    assert pull(pinned, cache, keys).returncode == 0  # tag and digest: the tag still names it
    # Port 9 on loopback: nothing listens (a compute node without a route to the registry)
    offline = pull(f"oras://127.0.0.1:9/group/app@{digest}", cache, keys)
    assert offline.returncode == 0 and "already pulled" in offline.stdout, offline.stdout + offline.stderr
    # The line `make push` prints (tag and digest): the tag is checked where the registry answers, else the digest
    offline_tag = pull(f"oras://127.0.0.1:9/group/app:{VERSION}-x86_64@{digest}", cache, keys)
    assert offline_tag.returncode == 0 and "the registry is unreachable" in offline_tag.stdout, offline_tag.stderr
    unreachable = pull("oras://127.0.0.1:9/group/app:latest", cache, keys)
    assert unreachable.returncode == 2
    assert "cannot reach the registry 127.0.0.1:9" in unreachable.stderr and "@sha256:" in unreachable.stderr


def test_a_digest_other_than_the_registrys_is_refused_in_one_line(oci_registry, keyring, tiny_sif, tmp_path):
    keys, cache = keyring("group"), tmp_path / "cache"
    pinned = pushed(tiny_sif("wrong"), oci_registry, keys)
    wrong = "sha256:" + "0" * 64
    moved = pull(pinned.rsplit("@", 1)[0] + "@" + wrong, cache, keys)
    assert moved.returncode == 2
    [line] = [text for text in moved.stderr.splitlines() if text.startswith("error:")]
    assert f"IMAGE pins {wrong} but group/app:{VERSION}-x86_64" in line and pinned in line
    absent = pull(f"oras://{oci_registry}/group/app@{wrong}", cache, keys)
    assert absent.returncode == 2 and "has no group/app/manifests/" + wrong in absent.stderr
    assert not list(cache.glob("*.sif"))


@pytest.mark.parametrize("how, said", [
    ("a stranger's key", "signed by a key that is not in your keyring"),
    ("unsigned", "it is unsigned"),
    ("changed after signing", "its contents changed after it was signed"),
    ("a partition added after signing", "a part of it was added after it was signed"),
])
def test_an_image_without_the_groups_valid_signature_is_refused_and_not_kept(oci_registry, keyring, tiny_sif,
                                                                                tmp_path, how, said):
    keys, cache = keyring("group"), tmp_path / "cache"
    sif = tiny_sif("bad", text=how)
    if how == "a stranger's key":
        signed(sif, keyring("mallory"))
    elif how == "changed after signing":
        signed(sif, keys)
        listing = subprocess.run(["apptainer", "sif", "list", str(sif)], capture_output=True, text=True, check=True)
        [start] = [int(line.split("|")[3].split("-")[0]) for line in listing.stdout.splitlines() if "|FS" in line]
        data = bytearray(sif.read_bytes())
        data[start + 100] ^= 0xFF  # a byte of the file system partition, which the signature covers
        sif.write_bytes(bytes(data))
    elif how == "a partition added after signing":  # an overlay partition in a group of its own
        signed(sif, keys)
        (tmp_path / "overlay.img").write_bytes(bytes(65536))
        subprocess.run(["apptainer", "sif", "add", "--datatype", "4", "--parttype", "4", "--partfs", "3",
                        "--partarch", "2", "--groupid", "2", str(sif), str(tmp_path / "overlay.img")], check=True,
                       capture_output=True)
    tag = f"oras://{oci_registry}/group/app:" + re.sub(r"[^a-z]+", "-", how)
    raw_push(sif, tag)
    refused = pull(tag, cache, keys)
    assert refused.returncode == 2, refused.stdout
    [line] = [text for text in refused.stderr.splitlines() if text.startswith("error:")]
    assert f"image {tag} failed its signature check" in line and said in line
    assert not list(cache.glob("*.sif"))  # a later job would only refuse it again


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the login node of this test is an x86_64 one")
def test_an_x86_64_login_node_pulls_the_aarch64_image_and_the_node_checks_its_architecture(
        oci_registry, keyring, tiny_sif, tmp_path):
    keys, cache = keyring("group"), tmp_path / "cache"
    pinned = pushed(tiny_sif("gh200", arch="aarch64"), oci_registry, keys, arch="aarch64")
    assert f"/group/app:{VERSION}-aarch64@sha256:" in pinned
    done = pull(f"oras://{oci_registry}/group/app:{VERSION}-aarch64", cache, keys)
    assert done.returncode == 0, done.stderr
    [image] = cache.glob("*.sif")
    check_image_arch("apptainer", str(image), {"DDP_NODE_ARCH": "aarch64"})  # a GH200 node takes it
    with pytest.raises(UsageError, match="is built for aarch64 but this node is x86_64"):
        check_image_arch("apptainer", str(image), {"DDP_NODE_ARCH": "x86_64"})


def test_the_job_pulls_before_any_step_and_exports_the_digest_the_run_records(oci_registry, keyring, tiny_sif,
                                                                              tmp_path):
    """The job's image part (app/host/launch/job.py Job.pull_image), first of its plan on the head node: IMAGE becomes
    the cached file, and every process of the job gets the digest and the reference that pulls it again."""
    keys = keyring("group")
    pinned = pushed(tiny_sif("job"), oci_registry, keys)
    env = {**os.environ, "IMAGE": f"oras://{oci_registry}/group/app:{VERSION}-x86_64", "APPTAINER": "apptainer",
           "IMAGE_VERIFY": "auto", "IMAGE_NO_HTTPS": "1", "IMAGE_CACHE": str(tmp_path / "c"), "DRY_RUN": "0",
           "APPTAINER_KEYSDIR": str(keys)}
    done = job_parts(["image"], env, script="slurm.sh")
    assert done.returncode == 0, done.stdout + done.stderr
    exported = {name: value for name, value in done.env.items() if name.startswith("DDP_IMAGE_")}
    assert (done.found["knobs"]["IMAGE"], exported) == (
        str(tmp_path / "c" / (pinned.rsplit("@", 1)[1].replace(":", "-") + ".sif")),
        {"DDP_IMAGE_DIGEST": pinned.rsplit("@", 1)[1], "DDP_IMAGE_PULL": pinned})
    env["APPTAINER_KEYSDIR"] = str(keyring("mallory"))  # a keyring without the group's key: the job stops
    refused = job_parts(["image"], env, script="slurm.sh")
    assert refused.returncode == 2 and "failed its signature check" in refused.stderr, refused.stderr
