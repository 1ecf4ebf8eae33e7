"""A store whose every value carries an HMAC keyed by the job's secret: what another user writes is refused.

torch's TCPStore has no authentication, and any client lists every key (`list_keys`, torch >= 2.10): key names are
public, so the secret cannot hide in them. Instead every value the job writes is sealed: HMAC-SHA256 over the key's
full name and the value, keyed by DDP_STORE_SECRET (delivered by the environment only) and the step's scope, and
every value read is
opened, i.e. checked, before anyone acts on it: the project's keys and the process groups' own (gloo's addresses,
NCCL's unique id: torch's C++ process groups call a Python `Store` subclass through its trampoline, set/get/wait as
measured with torch 2.13's gloo). The name is in the MAC, so a value cannot be moved to another key; the seal is
deterministic (compare_set needs the stored bytes of `expected`), so a key can be set back to a value the job
wrote there earlier. The scope is the step's rendezvous id (torchrun's run id: the preflight's and the workload's
differ, and both meet on one port with one secret, one after the other), so a value recorded in one step's store
does not open in the next's. Counters (`add`) cannot be sealed, and no one can stop another user from deleting keys,
filling memory or closing connections: such tampering ends the job with `StoreTampered` (exit code STORE), never
with a forged value acted on. Nothing read from a store is unpickled here, and no value is passed on unopened.

The project's own code puts a sealed store's keys under prefixes with `prefixed`, which joins them in Python (as
torch's PrefixStore does: prefix, "/", key; the seal covers the same full name, byte for byte), not with a C++
PrefixStore: torch's bindings let go of the interpreter lock around every store call (`py::gil_scoped_release`),
and its trampoline takes it again to call a Python store from C++ (`PythonStore`'s `gil_scoped_acquire`; both in
torch/csrc/distributed/c10d/init.cpp, torch 2.13), so a sealed request through C++ prefixes took the lock three
times instead of once (bench.store_gil: 512 threads of one process got 0.66 of the unsealed rate that way, 0.77 this
way; sealing in Python is the larger cost). The process groups, which call the store from C++, get the same
prefixes as C++ PrefixStores (`for_process_groups`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import sys
from collections.abc import Callable, Sequence
from datetime import timedelta

import torch.distributed as dist

from app.host.common import exitcodes
from app.host.common.errors import UserFacingError

#: Sealed values start with this: a version, so that a later format is told from this one.
MAGIC = b"ddp-hmac1:"
TAG_BYTES = hashlib.sha256().digest_size
#: The biggest value the job itself writes is a node report of the check (a few kB) or gloo's address blob (170 B);
#: anything above this is refused before its MAC is computed. TCPStore keeps a value whole in the server's memory
#: and lets no one bound it (torch 2.13: no option), so the value has been received by then.
MAX_VALUE_BYTES = 4 * 2**20


#: The key a rank seals "1" under, at the store's root, when it stops on a tampered value: the other ranks' hang
#: watch then knows the rank stopped for the store, not for its node, and blames no node (a rank that stops is
#: silent, and a silent rank's node would otherwise be left out). Another user can delete the mark, not forge it.
TAMPERED_MARK = "store-tampered"


class StoreTampered(UserFacingError):
    """A value in the job's store was not written by the job, or the store went away under it."""

    exit_code = exitcodes.STORE


#: The first tampering this process saw, for callers whose store calls go through C++ (init_process_group
#: turns the Python exception into its own RuntimeError).
_SEEN: list[str] = []


def tampering_seen() -> str:
    """The first tampering message of this process, '' when none."""
    return _SEEN[0] if _SEEN else ""


def tampered(what: str) -> StoreTampered:
    message = (f"the job's rendezvous store was tampered with or is unreachable ({what}): another process that "
               "reaches its port changed, deleted or overfilled a key, or closed the connection; the job stopped "
               "without acting on it and its last snapshot is intact; resubmit it (RUN_DIR=<this run> resumes), "
               "and if it happens again, ask your site who connects to the job's port")
    if not _SEEN:
        _SEEN.append(message)
    return StoreTampered(message)


def end_for_tampering(err: StoreTampered, end_process: Callable[[int], None] = os._exit) -> None:
    """End this process at once with the tampering's line and exit code STORE: for a helper thread (the hang
    watch), where raising would end the thread and leave the job waiting. Snapshots are written atomically, so
    the last one is intact. `end_process`: the hang watch's own (a test's stands in for os._exit)."""
    print(f"error: {err}", file=sys.stderr, flush=True)
    end_process(exitcodes.STORE)


def forget_tampering() -> None:
    """Forget the tampering this process saw (tests that tamper in-process, so the next test starts clean)."""
    _SEEN.clear()


def _as_bytes(value: str | bytes | bytearray | Sequence[int]) -> bytes:
    if isinstance(value, str):
        return value.encode()
    return bytes(value)


#: Every SignedStore made in this process, kept alive: a PrefixStore (or a process group) over one holds only its C++
#: part, and once the Python object is collected torch's trampoline finds no `set` to call ("Not implemented",
#: init.cpp's PythonStore, torch 2.13). A process makes a few (its store, the hang watch's second connection).
_LIVE: list[SignedStore] = []


class SignedStore(dist.Store):
    """`inner` with every value sealed on set and opened on get (see the module's docstring)."""

    def __init__(self, inner: dist.Store, secret: str, prefixes: tuple[str, ...] = (), scope: str = "") -> None:
        super().__init__()
        if not secret:
            raise ValueError("a SignedStore needs the job's secret")
        self.inner = inner
        self._secret, self.scope = secret, scope
        self._key = hashlib.sha256(b"ddp-store-key\0" + secret.encode()
                                   + (b"\0" + scope.encode() if scope else b"")).digest()
        #: The prefixes every key is under, in the order they were added (see `prefixed`), and their join
        self.prefixes = prefixes
        self._prefix = "".join(f"{prefix}/" for prefix in prefixes)
        self.set_timeout(inner.timeout)
        _LIVE.append(self)

    def prefixed(self, prefix: str) -> SignedStore:
        """This store with every key under `prefix` too, joined as `dist.PrefixStore(prefix, self)` joins it (the
        full name, and so every seal, is the same), but in Python: see the module's docstring."""
        return SignedStore(self.inner, self._secret, (*self.prefixes, prefix), self.scope)

    def root(self) -> SignedStore:
        """This store without its prefixes: the store's root (where NCCL raises its flight-recorder flag)."""
        return SignedStore(self.inner, self._secret, scope=self.scope) if self.prefixes else self

    def _name(self, key: str) -> str:
        """`key`'s full name, under this store's prefixes: the name the seal covers and the TCPStore keeps."""
        return self._prefix + key

    # Sealing -------------------------------------------------------------------------------------------------

    def seal(self, key: str, value: str | bytes) -> bytes:
        data = _as_bytes(value)
        return MAGIC + self._tag(key, data) + data

    def open(self, key: str, raw: str | bytes) -> bytes:
        """The value the job wrote at `key`, or `StoreTampered` (nothing of it is returned or parsed)."""
        raw = _as_bytes(raw)
        if len(raw) > len(MAGIC) + TAG_BYTES + MAX_VALUE_BYTES:
            raise tampered(f"key {key!r} holds {len(raw)} bytes, more than the job ever writes")
        if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + TAG_BYTES:
            raise tampered(f"key {key!r} holds a value the job did not write")
        tag, data = raw[len(MAGIC):len(MAGIC) + TAG_BYTES], raw[len(MAGIC) + TAG_BYTES:]
        if not hmac.compare_digest(tag, self._tag(key, data)):
            raise tampered(f"key {key!r} holds a value whose authentication fails")
        return data

    def _refuse(self, key: str, raw: bytes) -> bytes:
        """`open`, and on tampering the sealed mark first (see `TAMPERED_MARK`)."""
        try:
            return self.open(key, raw)
        except StoreTampered:
            if key != TAMPERED_MARK:
                with contextlib.suppress(RuntimeError, dist.DistError):
                    self.inner.set(TAMPERED_MARK, self.seal(TAMPERED_MARK, "1"))
            raise

    def tampering_marked(self) -> bool:
        """Whether a rank of this job marked the store as tampered with (a mark no one else can forge)."""
        if not self.inner.check([TAMPERED_MARK]):
            return False
        try:
            return self.open(TAMPERED_MARK, self.inner.get(TAMPERED_MARK)) == b"1"
        except StoreTampered:
            return False  # someone else's "mark": not one of the job's ranks

    def _tag(self, key: str, data: bytes) -> bytes:
        name = key.encode()
        return hmac.digest(self._key, len(name).to_bytes(4, "big") + name + data, "sha256")  # one call into C

    # Store methods: torch's C++ calls these too --------------------------------------------------------------

    def set(self, key: str, value: str | bytes) -> None:
        name = self._name(key)
        self._call(self.inner.set, name, self.seal(name, value))

    def get(self, key: str) -> bytes:
        name = self._name(key)
        return self._refuse(name, self._call(self.inner.get, name))

    def multi_set(self, keys: list[str], values: list[str | bytes]) -> None:
        names = [self._name(key) for key in keys]
        self._call(self.inner.multi_set, names,
                   [self.seal(name, value) for name, value in zip(names, values, strict=True)])

    def multi_get(self, keys: list[str]) -> list[bytes]:
        names = [self._name(key) for key in keys]
        return [self._refuse(name, raw) for name, raw in zip(names, self._call(self.inner.multi_get, names),
                                                              strict=True)]

    def compare_set(self, key: str, expected: str | bytes, desired: str | bytes) -> bytes:
        # "" means "only if absent" to TCPStore; otherwise the stored bytes of `expected` are its seal
        name = self._name(key)
        stored = self.seal(name, expected) if _as_bytes(expected) else b""
        return self._refuse(name, self._call(self.inner.compare_set, name, stored, self.seal(name, desired)))

    def add(self, key: str, amount: int) -> int:
        """A counter: not sealed (the server adds to it), so another user can change it; callers use counters
        only where a wrong count stops or slows the job and cannot make it act on a forged value."""
        return int(self._call(self.inner.add, self._name(key), amount))

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        names = [self._name(key) for key in keys]
        if timeout is None:
            self._call(self.inner.wait, names)
        else:
            self._call(self.inner.wait, names, timeout)

    def check(self, keys: list[str]) -> bool:
        return bool(self._call(self.inner.check, [self._name(key) for key in keys]))

    def delete_key(self, key: str) -> bool:
        return bool(self._call(self.inner.delete_key, self._name(key)))

    def num_keys(self) -> int:
        """Every key of the store, as a PrefixStore counts them (its prefixes do not narrow the count)."""
        return int(self._call(self.inner.num_keys))

    def append(self, key: str, value: str | bytes) -> None:
        raise NotImplementedError("appending to a sealed value would break its seal; use set")

    def list_keys(self) -> list[str]:
        """The keys under this store's prefixes, named within them."""
        return [key[len(self._prefix):] for key in self._call(self.inner.list_keys) if key.startswith(self._prefix)]

    def clone(self) -> SignedStore:
        """A store on a connection of its own (gloo takes one for a process group it makes), sealed and prefixed
        alike."""
        return SignedStore(self._call(self.inner.clone), self._secret, self.prefixes, self.scope)

    def leave_mark(self) -> None:
        """Seal "1" under `TAMPERED_MARK` at the store's root, whatever this store's prefixes."""
        self._call(self.inner.set, TAMPERED_MARK, self.seal(TAMPERED_MARK, "1"))

    # The names torch's C++ (PrefixStore, the process groups) looks up on a Python store (PYBIND11_OVERLOAD_PURE
    # takes the C++ method's name)
    getNumKeys = num_keys
    deleteKey = delete_key

    def has_extended_api(self) -> bool:
        """multi_get and multi_set are this class's own (gloo asks before it uses them)."""
        return True

    @staticmethod
    def _call(method, *args):
        try:
            return method(*args)
        except dist.DistNetworkError as err:  # a reset or closed connection: not a slow peer (that is a timeout)
            raise tampered(f"the connection failed: {str(err).strip().splitlines()[0][:120]}") from None


def prefixed(store: dist.Store, prefix: str) -> dist.Store:
    """`store` with every key under `prefix`, as `dist.PrefixStore(prefix, store)` puts it (prefix, "/", key); for
    a sealed store the prefix is joined in Python (one call into C++ per request: see the module's docstring)."""
    return store.prefixed(prefix) if isinstance(store, SignedStore) else dist.PrefixStore(prefix, store)


def for_process_groups(store: dist.Store) -> dist.Store:
    """`store` as the process groups get it: a sealed store's prefixes as C++ PrefixStores over its root, the same
    keys and seals, so that torch's C++ finds the store under its prefixes where it looks for it (NCCL raises its
    flight-recorder flag in the first store under every PrefixStore: app/common/attempts.py)."""
    if not isinstance(store, SignedStore) or not store.prefixes:
        return store
    chained: dist.Store = store.root()
    for prefix in store.prefixes:
        chained = dist.PrefixStore(prefix, chained)
    return chained


def sign(store: dist.Store, secret: str, scope: str = "") -> dist.Store:
    """`store` sealed with `secret` for the step `scope` names, or `store` itself when there is no secret (a launch
    without the job scripts: nothing to key a MAC with, as before)."""
    return SignedStore(store, secret, scope=scope) if secret else store


def init_process_group(backend: str | None = None, init_method: str | None = None, timeout: timedelta | None = None,
                       world_size: int = -1, rank: int = -1, store: dist.Store | None = None, **kwargs) -> None:
    """`torch.distributed.init_process_group()` (env://) for your own script under the job scripts, with every
    value of the store sealed by the job's secret: the one call docs/your-script.md names. Its arguments are torch's,
    in torch's order. It meets where env:// would (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE; torchrun's agent
    serves the store, or rank 0 does under LAUNCH=srun). Without DDP_STORE_SECRET (a launch without the job scripts)
    it is torch's own call. With it, an `init_method` other than env://, a `store`, or a `rank`/`world_size` other
    than the environment's are refused (ValueError, one line): each would meet elsewhere than the sealed store."""
    secret = os.environ.get("DDP_STORE_SECRET", "")
    if not secret:
        dist.init_process_group(backend, init_method, timeout, world_size, rank, store, **kwargs)
        return
    rank, world_size = _as_in_the_environment(init_method, store, rank, world_size)
    timeout = timedelta(minutes=10) if timeout is None else timeout
    serve = rank == 0 and os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True"
    root = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world_size, serve,
                         timeout=timeout, wait_for_workers=False)
    sealed = SignedStore(root, secret, scope=os.environ.get("TORCHELASTIC_RUN_ID", ""))  # as store_scope()
    try:
        dist.init_process_group(backend, store=dist.PrefixStore("user/", sealed), rank=rank, world_size=world_size,
                                timeout=timeout, **kwargs)
    except (RuntimeError, ValueError, dist.DistError):
        if tampering_seen():  # torch wrapped it: the cause is the tampering
            raise StoreTampered(tampering_seen()) from None
        raise


def _as_in_the_environment(init_method: str | None, store: dist.Store | None, rank: int,
                           world_size: int) -> tuple[int, int]:
    """The rank and world size env:// gives (RANK, WORLD_SIZE), after checking that the arguments torch's call
    accepts ask for nothing else; ValueError in one line otherwise."""
    where = "app.common.signed_store.init_process_group"
    if init_method not in (None, "env://"):
        raise ValueError(f"{where}: init_method={init_method!r}: the sealed store meets through env:// (MASTER_ADDR, "
                         "MASTER_PORT), which the job scripts set; drop init_method, e.g. init_process_group(\"nccl\")")
    if store is not None:
        raise ValueError(f"{where}: store= given: the call makes the job's sealed store itself; drop store, e.g. "
                         "init_process_group(\"nccl\")")
    given = {"rank": (rank, int(os.environ["RANK"])), "world_size": (world_size, int(os.environ["WORLD_SIZE"]))}
    for name, (value, from_environment) in given.items():
        if value not in (-1, None, from_environment):
            variable = name.upper()
            raise ValueError(f"{where}: {name}={value}, but the launcher made this process {variable}="
                             f"{from_environment}; drop {name} (env:// reads {variable}), e.g. "
                             "init_process_group(\"nccl\")")
    return given["rank"][1], given["world_size"][1]


def mark_tampered(store: dist.Store) -> None:
    """Leave the sealed mark (see `TAMPERED_MARK`) in `store` (under any prefixes); nothing for a store that is not
    sealed. For a rank that found tampering without reading a forged value (a deleted or replayed key)."""
    while isinstance(store, dist.PrefixStore):
        store = store.underlying_store
    if isinstance(store, SignedStore):
        store.leave_mark()


def marked_tampered(store: dist.Store) -> bool:
    """Whether a rank of the job marked `store` (under any prefixes) as tampered with; False for a store that is not
    sealed."""
    while isinstance(store, dist.PrefixStore):
        store = store.underlying_store
    return isinstance(store, SignedStore) and store.tampering_marked()
