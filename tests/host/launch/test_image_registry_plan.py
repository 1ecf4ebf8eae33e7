"""The registry route without Apptainer (app/host/launch/oci_registry.py, image_registry.py): references parsed, the
cache and keyring refused where others can write, and the token login a registry with accounts asks for, against a small
registry served here (the real registry's tests, which CI's registry without accounts cannot cover:
tests/containers/test_image_registry.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.image_registry import cache_dir, main, pull, resolve
from app.host.launch.image_signature import check_keyring_owned
from app.host.launch.oci_registry import MANIFEST_TYPE, SIF_LAYER_TYPE, Reference, parse_reference
from tests.fixtures.other_user import needs_shared_group, writable_by_a_group

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize("text, expected", [
    ("oras://registry.example.org/group/app:0.1.0-aarch64", ("registry.example.org", "group/app", "0.1.0-aarch64", "")),
    ("oras://127.0.0.1:5000/a/b/app@" + DIGEST, ("127.0.0.1:5000", "a/b/app", "", DIGEST)),
    ("oras://r.example.org/g/app:v1@" + DIGEST, ("r.example.org", "g/app", "v1", DIGEST)),
    ("oras://r.example.org/g/my_app-x", ("r.example.org", "g/my_app-x", "latest", "")),  # as Apptainer's default
])
def test_a_reference_names_host_repository_tag_and_digest(text, expected):
    assert tuple(parse_reference(text)) == expected


@pytest.mark.parametrize("text", [
    "oras://registry.example.org/Group/app:1",  # repositories are lowercase
    "oras://registry.example.org/app:1 ; rm -rf ~",
    "oras://registry.example.org/g/app@sha256:abc",  # not 64 hex digits
    "docker://registry.example.org/g/app:1",
    "oras:///g/app:1",
])
def test_a_reference_that_is_not_one_is_refused_with_an_example(text):
    with pytest.raises(UsageError, match=r"is not an OCI reference: .*e\.g\. IMAGE=oras://"):
        parse_reference(text)


def test_the_pinned_reference_keeps_the_tag_beside_the_digest():
    assert Reference("h:1", "g/app", "v1", "").pinned(DIGEST) == f"oras://h:1/g/app:v1@{DIGEST}"
    assert Reference("h:1", "g/app", "", DIGEST).pinned(DIGEST) == f"oras://h:1/g/app@{DIGEST}"


def test_a_local_image_and_none_pass_unchanged_and_a_dry_run_pulls_nothing(tmp_path):
    assert resolve("none", "apptainer", "auto", "0", "", {}, dry_run=False)[:3] == ("none", "", "")
    assert resolve(str(tmp_path / "app.sif"), "apptainer", "auto", "0", "", {}, dry_run=False)[:3] == (
        str(tmp_path / "app.sif"), "", "")
    planned = resolve("oras://r.example.org/g/app:1", "apptainer", "auto", "0", str(tmp_path / "c"), {}, dry_run=True)
    assert planned.said == [f"DRY_RUN=1: would pull oras://r.example.org/g/app:1 into {tmp_path / 'c'} and verify "
                            "its signature"]
    assert not (tmp_path / "c").exists()


def test_a_cache_or_keyring_other_users_can_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UsageError, match=r"is not yours alone .*mode 777"):
        cache_dir(shared)
    (shared / "pgp-public").write_text("")
    shared.chmod(0o700)
    (shared / "pgp-public").chmod(0o666)
    with pytest.raises(UsageError, match="pgp-public is writable by other users"):
        check_keyring_owned({"APPTAINER_KEYSDIR": str(shared)})


@needs_shared_group
def test_a_keyring_of_yours_a_group_of_others_can_write_is_refused(tmp_path):
    """A member of the group could add the key their image is signed with (before, a group-writable keyring was
    accepted whenever it was yours, so that a user-private group's umask 002 passed)."""
    keys = tmp_path / "keys"
    (keys / "pgp-public").mkdir(parents=True, mode=0o700)
    check_keyring_owned({"APPTAINER_KEYSDIR": str(keys)})
    writable_by_a_group(keys / "pgp-public", 0o770)
    with pytest.raises(UsageError, match=r"the keyring \S+pgp-public is writable by other users \(mode 770\)"):
        check_keyring_owned({"APPTAINER_KEYSDIR": str(keys)})


@needs_shared_group
def test_a_cache_in_a_directory_others_can_write_is_refused_before_anything_is_pulled(tmp_path):
    # Yours and 0755, but a group member who can write the directory above renames it and puts their own in its place
    project = tmp_path / "project"
    project.mkdir()
    writable_by_a_group(project, 0o2775)
    with pytest.raises(UsageError) as refused:
        cache_dir(project / "images")
    assert str(refused.value) == (
        f"IMAGE_CACHE='{project / 'images'}' lies in {project}, which other users can write (mode 2775): they can "
        "rename images/ and make their own in its place: an image they put there would run as you; set IMAGE_CACHE "
        "to a directory only you can write, e.g. IMAGE_CACHE=$HOME/.cache/app-images")


class TokenRegistry(BaseHTTPRequestHandler):
    """A registry that wants a Bearer token, which its /token endpoint gives for Basic user:secret only (as
    Harbor and GitLab do), serving one SIF under group/app:1."""

    sif = b"SIF of a test" * 100
    manifest = json.dumps({"schemaVersion": 2, "mediaType": MANIFEST_TYPE, "layers": [{
        "mediaType": SIF_LAYER_TYPE, "size": len(sif), "digest": "sha256:" + hashlib.sha256(sif).hexdigest(),
    }]}).encode()

    def log_message(self, *args) -> None:
        pass

    def _send(self, code: int, body: bytes, **headers: str) -> None:
        self.send_response(code)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.startswith("/token?"):
            if self.headers.get("Authorization") != "Basic " + base64.b64encode(b"user:secret").decode():
                return self._send(401, b"{}")
            return self._send(200, json.dumps({"token": "t0k3n"}).encode())
        if self.headers.get("Authorization") != "Bearer t0k3n":
            realm = f"http://{self.headers['Host']}/token"
            return self._send(401, b"{}", WWW_Authenticate=f'Bearer realm="{realm}",service="reg",'
                                                             'scope="repository:group/app:pull"')
        if self.path == "/v2/group/app/manifests/1":
            return self._send(200, self.manifest, Content_Type=MANIFEST_TYPE)
        if self.path.startswith("/v2/group/app/blobs/sha256:"):
            return self._send(200, self.sif)
        return self._send(404, b"{}")


@pytest.fixture
def token_registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), TokenRegistry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def docker_config(tmp_path: Path, host: str, secret: str) -> dict[str, str]:
    """What `apptainer registry login` leaves: ~/.docker/config.json (here under DOCKER_CONFIG)."""
    auth = base64.b64encode(f"user:{secret}".encode()).decode()
    (tmp_path / "config.json").write_text(json.dumps({"auths": {host: {"auth": auth}}}))
    return {"DOCKER_CONFIG": str(tmp_path)}


def test_a_registry_that_wants_a_login_gets_the_token_your_registry_login_earns(token_registry, tmp_path):
    environ = docker_config(tmp_path, token_registry, "secret")
    cache = cache_dir(tmp_path / "cache")
    pulled = pull(f"oras://{token_registry}/group/app:1", cache, True, environ)
    assert Path(pulled.sif).read_bytes() == TokenRegistry.sif
    assert pulled.digest == "sha256:" + hashlib.sha256(TokenRegistry.manifest).hexdigest()


def test_a_login_the_registry_refuses_is_one_line_that_says_how_to_log_in(token_registry, tmp_path):
    environ = docker_config(tmp_path, token_registry, "wrong")
    with pytest.raises(UsageError, match=f"log in with 'apptainer registry login oras://{token_registry}'"):
        pull(f"oras://{token_registry}/group/app:1", cache_dir(tmp_path / "cache"), True, environ)
    assert not list((tmp_path / "cache").iterdir())


def test_a_registry_that_is_not_one_is_refused_before_anything_is_signed(tmp_path, capsys):
    sif = tmp_path / "app.sif"
    sif.write_bytes(b"not signed, and not to be")
    assert main(["push", str(sif), "--registry", "https://registry.example.org/group", "--tag", "0.1.0-x86_64"]) == 2
    assert capsys.readouterr().err == ("error: REGISTRY=https://registry.example.org/group is not "
                                       "oras://HOST[:PORT]/NAMESPACE (lowercase); e.g. make push "
                                       "REGISTRY=oras://registry.example.org/mygroup\n")
    assert sif.read_bytes() == b"not signed, and not to be"
