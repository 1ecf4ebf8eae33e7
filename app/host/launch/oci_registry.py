"""The OCI distribution protocol, as much of it as pulling one SIF needs: a reference parsed, a manifest read, a
blob streamed and checked against its digest (standard library only: it runs on the batch host's python3).

`apptainer push IMAGE.sif oras://HOST/NAMESPACE/app:TAG` stores an OCI image manifest whose one layer is the SIF
file itself (media type application/vnd.sylabs.sif.layer.v1.sif, digest: the file's sha256). The manifest's own
digest is what `@sha256:...` pins, as `apptainer pull oras://...@sha256:...` reads it.
"""

import hashlib
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import BinaryIO, Dict, NamedTuple, Optional

from app.host.common.errors import UsageError

MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
SIF_LAYER_TYPE = "application/vnd.sylabs.sif.layer.v1.sif"
EXAMPLE = "IMAGE=oras://registry.example.org/mygroup/app:0.1.0-x86_64"
#: A manifest is a few hundred bytes; more is not a SIF's manifest
MAX_MANIFEST_BYTES = 4 << 20
CHUNK = 1 << 20

# The distribution spec's grammar: host[:port] / path components of lowercase letters and digits joined by
# . _ __ or dashes / :tag and/or @sha256:hex (github.com/distribution/reference, reference.go)
_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
_REFERENCE = re.compile(r"oras://(?P<host>[A-Za-z0-9.-]+(?::[0-9]{1,5})?)"
                        r"/(?P<repository>" + _COMPONENT + r"(?:/" + _COMPONENT + r")*)"
                        r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9._-]{0,127}))?"
                        r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?$")


class Unreachable(UsageError):
    """No answer from the registry at all (no route, refused, timed out, TLS to a plain http one)."""


class Reference(NamedTuple):
    """oras://HOST/REPOSITORY[:TAG][@DIGEST], split."""

    host: str
    repository: str
    #: "" when only a digest is given
    tag: str
    #: "sha256:<64 hex>", or "" when only a tag is given
    digest: str

    def pinned(self, digest: str) -> str:
        """The reference that names exactly this image: what a run records to pull again."""
        return "oras://{}/{}{}@{}".format(self.host, self.repository, ":" + self.tag if self.tag else "", digest)


class Manifest(NamedTuple):
    #: sha256 of the manifest as the registry sent it: the image's digest
    digest: str
    #: The SIF layer's digest (the file's sha256) and size in bytes
    sif_digest: str
    sif_size: int


def is_registry_image(image: str) -> bool:
    return image.startswith("oras://")


def parse_reference(text: str) -> Reference:
    """`oras://HOST/NAMESPACE/NAME:TAG`, `...@sha256:HEX` or both; a tag defaults to `latest` as Apptainer's does."""
    found = _REFERENCE.match(text)
    if not found:
        raise UsageError(f"IMAGE={text} is not an OCI reference: write oras://HOST[:PORT]/NAMESPACE/NAME:TAG or "
                         f"...@sha256:<64 hex digits> (lowercase names), e.g. {EXAMPLE}")
    tag = found.group("tag") or ("" if found.group("digest") else "latest")
    return Reference(found.group("host"), found.group("repository"), tag, found.group("digest") or "")


def docker_credentials(host: str, environ: Dict[str, str]) -> Optional[str]:
    """The base64 user:password `apptainer registry login` stored for HOST (Apptainer >= 1.3 writes Docker's
    ~/.docker/config.json, $DOCKER_CONFIG/config.json where set), or None."""
    config_dir = environ.get("DOCKER_CONFIG") or os.path.join(os.path.expanduser("~"), ".docker")
    try:
        with open(os.path.join(config_dir, "config.json"), encoding="utf-8") as config:
            auths = json.load(config).get("auths", {})
    except (OSError, ValueError, AttributeError):
        return None
    for key in (host, "https://" + host, "http://" + host):
        entry = auths.get(key) if isinstance(auths, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("auth"), str) and entry["auth"]:
            return entry["auth"]
    return None


def _challenge(header: str) -> Dict[str, str]:
    """`Bearer realm="...",service="...",scope="..."` as {"scheme": "bearer", "realm": ..., ...}."""
    scheme, _, rest = header.strip().partition(" ")
    fields = dict(re.findall(r'([A-Za-z]+)="([^"]*)"', rest))
    fields["scheme"] = scheme.lower()
    return fields


class Registry:
    """One registry host: its manifests and blobs, with the anonymous, Basic or Bearer-token login it asks for."""

    def __init__(self, host: str, no_https: bool, credentials: Optional[str] = None, timeout_s: float = 60) -> None:
        self.host, self.credentials, self.timeout_s = host, credentials, timeout_s
        self.base = "{}://{}/v2/".format("http" if no_https else "https", host)
        self.authorization = None  # type: Optional[str]
        self.remedy_https = "" if no_https else " (a registry on plain http: IMAGE_NO_HTTPS=1)"

    def _open(self, path: str, accept: str = ""):
        for attempt in range(2):
            request = urllib.request.Request(self.base + path)
            if accept:
                request.add_header("Accept", accept)
            if self.authorization:
                # Not sent on to where a blob redirects (object storage refuses a second credential)
                request.add_unredirected_header("Authorization", self.authorization)
            try:
                return urllib.request.urlopen(request, timeout=self.timeout_s)
            except urllib.error.HTTPError as error:
                if error.code == 401 and attempt == 0 and self._log_in(error.headers.get("WWW-Authenticate", "")):
                    continue
                raise self._refusal(path, error) from None
            except (urllib.error.URLError, OSError) as error:
                reason = getattr(error, "reason", error)
                raise Unreachable(f"cannot reach the registry {self.host}: {reason}{self.remedy_https}; pull where it "
                                 "is reachable (a login node: "
                                 "make pull IMAGE=...) and give the job the digest it prints (IMAGE=oras://...@sha256:"
                                 "...), which needs no registry once pulled") from None
        raise AssertionError("unreachable")

    def _log_in(self, header: str) -> bool:
        """Answer the registry's challenge; False when there is nothing to answer it with."""
        fields = _challenge(header)
        if fields["scheme"] == "basic":
            if not self.credentials:
                return False
            self.authorization = "Basic " + self.credentials
            return True
        if fields["scheme"] != "bearer" or "realm" not in fields:
            return False
        query = urllib.parse.urlencode({k: fields[k] for k in ("service", "scope") if k in fields})
        request = urllib.request.Request(fields["realm"] + ("?" + query if query else ""))
        if self.credentials:
            request.add_header("Authorization", "Basic " + self.credentials)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                token = json.loads(answer.read(MAX_MANIFEST_BYTES).decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise UsageError("the registry {} asked for a token and {} refused: {}; log in with 'apptainer registry "
                             "login oras://{}'".format(self.host, fields["realm"], error, self.host)) from None
        value = token.get("token") or token.get("access_token") if isinstance(token, dict) else None
        if not isinstance(value, str):
            return False
        self.authorization = "Bearer " + value
        return True

    def _refusal(self, path: str, error: urllib.error.HTTPError) -> UsageError:
        if error.code in (401, 403):
            return UsageError(f"the registry {self.host} refused {path} ({error.code} {error.reason}); log in with "
                              "'apptainer registry login "
                              f"oras://{self.host}' (credentials in ~/.docker/config.json)")
        if error.code == 404:
            return UsageError("the registry {} has no {} (404); check the name, tag or digest (the tags: "
                              "{}{}/tags/list)".format(self.host, path, self.base, path.split("/manifests/")[0]))
        return UsageError(f"the registry {self.host} answered {error.code} {error.reason} for {path}")

    def manifest(self, repository: str, reference: str) -> Manifest:
        """The manifest for a tag or a digest, checked: one SIF layer, and the digest asked for is the one sent."""
        with self._open(f"{repository}/manifests/{reference}", MANIFEST_TYPE) as answer:
            body = answer.read(MAX_MANIFEST_BYTES + 1)
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        name = "oras://{}/{}{}{}".format(self.host, repository, "@" if reference.startswith("sha256:") else ":",
                                         reference)
        if reference.startswith("sha256:") and digest != reference:
            raise UsageError(f"the registry {self.host} sent a manifest whose digest is {digest} for {name}: not the "
                             "image asked for; "
                             "do not use this registry's copy")
        try:
            layers = [layer for layer in json.loads(body.decode("utf-8"))["layers"]
                      if layer.get("mediaType") == SIF_LAYER_TYPE]
            sif_digest, sif_size = layers[0]["digest"], int(layers[0]["size"])
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise UsageError(f"{name} holds no SIF (not an image that 'apptainer push' stored); push one with 'make "
                             "push "
                             f"REGISTRY=oras://{self.host}/NAMESPACE'") from None
        if len(layers) != 1 or not re.fullmatch(r"sha256:[0-9a-f]{64}", str(sif_digest)) or sif_size < 0:
            raise UsageError(f"{name} holds {len(layers)} SIF layers or a malformed digest; push it again with 'make "
                             "push'")
        return Manifest(digest, sif_digest, sif_size)

    def fetch_sif(self, repository: str, manifest: Manifest, out: BinaryIO) -> None:
        """The SIF streamed into `out`; its sha256 and size must be the manifest's."""
        digest, size = hashlib.sha256(), 0
        with self._open(f"{repository}/blobs/{manifest.sif_digest}") as answer:
            while size <= manifest.sif_size:
                chunk = answer.read(CHUNK)
                if not chunk:
                    break
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
        got = "sha256:" + digest.hexdigest()
        if size != manifest.sif_size or got != manifest.sif_digest:
            raise UsageError(f"the SIF the registry {self.host} sent is not the one its manifest names ({size} "
                             f"bytes, {got}; expected "
                             f"{manifest.sif_size} bytes, {manifest.sif_digest}): damaged or tampered, not used; "
                             "pull again, and if it persists ask "
                             "who pushed it")


def registry_for(reference: Reference, no_https: bool, environ: Dict[str, str]) -> Registry:
    return Registry(reference.host, no_https, docker_credentials(reference.host, environ))
