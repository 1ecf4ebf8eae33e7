"""app/host/launch/image_sha256.py: a local image's sha256 for the run's records, hashed once a file and remembered
in the image cache under what changes whenever the file does. The job's use of it (the container part exports what
the trainer records): tests/host/launch/test_job_parts.py; on the Slurm test cluster:
tests/jobscripts/test_jobscripts_slurm.py."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from app.host.launch import image_sha256 as module
from app.host.launch.image_sha256 import MEMORY, image_sha256


def sha256_of(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def image(tmp_path: Path) -> Path:
    path = tmp_path / "images" / "app.sif"
    path.parent.mkdir()
    path.write_bytes(os.urandom(3 << 20))
    return path


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def hashing_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the module reads whole from now on."""
    read, real = [], module.hashed

    def counting(path: str):
        read.append(path)
        return real(path)

    monkeypatch.setattr(module, "hashed", counting)
    return read


def test_a_local_image_is_hashed_by_the_first_job_and_remembered_for_the_next(
        image: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read = hashing_counted(monkeypatch)
    first = image_sha256(str(image), str(cache), dry_run=False)
    assert (first.path, first.digest) == (str(image), sha256_of(image))
    assert first.said.startswith(f"IMAGE {image}: {first.digest} (hashed 0.0 GiB in ")
    assert first.said.endswith(f", once: remembered in {cache / MEMORY})")
    again = image_sha256(str(image), str(cache), dry_run=False)
    assert again == first._replace(said=f"IMAGE {image}: {first.digest} (remembered from an earlier job)")
    assert read == [str(image)], "the second job read the whole file again"


def changed_in_place_with_its_times_put_back(image: Path) -> None:
    """New bytes of the same size, the modification time set back: what `cp --preserve` or `touch -d` leaves."""
    before = image.stat()
    time.sleep(0.05)  # past the file system's clock tick: the kernel sets the change time
    image.write_bytes(os.urandom(before.st_size))
    os.utime(image, ns=(before.st_atime_ns, before.st_mtime_ns))


def renamed_over(image: Path) -> None:
    """Another file of the same size moved onto the path (a new copy of the image, say)."""
    other = image.with_name("new.sif")
    other.write_bytes(os.urandom(image.stat().st_size))
    os.utime(other, ns=(image.stat().st_atime_ns, image.stat().st_mtime_ns))
    other.replace(image)


@pytest.mark.parametrize("change", [changed_in_place_with_its_times_put_back, renamed_over])
def test_a_file_that_changed_is_hashed_again_whatever_its_name_and_times_say(image: Path, cache: Path,
                                                                           change) -> None:
    first = image_sha256(str(image), str(cache), dry_run=False)
    change(image)
    again = image_sha256(str(image), str(cache), dry_run=False)
    assert again.digest == sha256_of(image) != first.digest, again.said
    assert "(hashed " in again.said


@pytest.mark.parametrize("memory", ["{not json", '{"path": "x"}', "[1, 2]", None])
def test_a_damaged_memory_or_an_entry_of_another_kind_is_not_taken(image: Path, cache: Path, memory: str | None
                                                                    ) -> None:
    """The memory is read back checked: an entry with the file's identity but no sha256 of the right form, or a
    file that is no list, counts for nothing, and the file is hashed."""
    image_sha256(str(image), str(cache), dry_run=False)
    if memory is None:  # the right identity, a sha256 that is none
        [entry] = json.loads((cache / MEMORY).read_text())
        memory = json.dumps([dict(entry, sha256="sha256:" + "zz" * 32)])
    (cache / MEMORY).write_text(memory)
    again = image_sha256(str(image), str(cache), dry_run=False)
    assert again.digest == sha256_of(image) and "(hashed " in again.said, again.said


def test_in_a_cache_other_users_can_write_nothing_is_remembered_and_the_sha256_is_still_recorded(
        image: Path, cache: Path) -> None:
    """A memory others could write would let them give a run another image's sha256: it is neither read nor
    written there, and the job goes on, hashing the file each time."""
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    (cache / MEMORY).write_text(json.dumps([{"path": str(image), "inode": 1, "size": 1, "mtime_ns": 1,
                                             "ctime_ns": 1, "sha256": "sha256:" + "ab" * 32}]))
    found = image_sha256(str(image), str(cache), dry_run=False)
    assert found.digest == sha256_of(image)
    assert found.said.endswith(f"not remembered, so every job hashes it again: {cache} cannot be made or is not "
                               "yours alone (IMAGE_CACHE: a directory only you can write))"), found.said


def test_a_dry_run_hashes_nothing_and_makes_no_cache(image: Path, cache: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    read = hashing_counted(monkeypatch)
    found = image_sha256(str(image), str(cache), dry_run=True)
    assert found.digest == "" and read == [] and not cache.exists()
    assert found.said == f"DRY_RUN=1: the job hashes IMAGE {image} (0.0 GiB) for the run's records, once"


def test_the_memory_keeps_the_newest_images_of_each_path_only(tmp_path: Path, cache: Path) -> None:
    images = []
    for number in range(module.KEPT + 2):
        path = tmp_path / f"app-{number}.sif"
        path.write_bytes(str(number).encode())
        images.append(path)
        image_sha256(str(path), str(cache), dry_run=False)
    image_sha256(str(images[-1]), str(cache), dry_run=False)
    paths = [entry["path"] for entry in json.loads((cache / MEMORY).read_text())]
    assert paths == [str(path) for path in reversed(images)][:module.KEPT]
