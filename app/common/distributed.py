"""Start and stop the process group: backend, device and timeouts chosen explicitly, in one place.

Every launch goes through `init_distributed`, world size 1 included (a gloo group over an in-memory
store), so the trainer has one code path. Rendezvous failures become `RendezvousError` with the
address, the timeout and what to check, instead of a 10-minute wait and a C++ traceback.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import NoReturn

import torch
import torch.distributed as dist

from app.common.attempts import NoAgreement, agree_on_attempt
from app.common.cluster import ClusterEnvironment, Torchrun
from app.common.gpu_presence import unusable_gpus
from app.common.signed_store import (
    StoreTampered,
    for_process_groups,
    marked_tampered,
    prefixed,
    sign,
    tampered,
    tampering_seen,
)
from app.host.common.errors import RendezvousError, UsageError
from app.host.common.scheduler_env import gpus_per_task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DistContext:
    """Where this process sits in the job, and the device it owns."""

    rank: int
    local_rank: int
    world_size: int
    device: torch.device
    backend: str
    launcher: str

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def choose_device(local_rank: int, env: Mapping[str, str] | None = None, *, cpu_ok: bool = False) -> torch.device:
    """One GPU per local rank; CPU when there is no GPU, or when the GPUs are hidden on purpose or `cpu_ok`
    (dist.backend=gloo asked for). A node with GPUs CUDA cannot use is a mistake, not a CPU run: stop. Too few
    GPUs is a launch mistake."""
    env = env if env is not None else os.environ
    if not torch.cuda.is_available():
        problem = None if cpu_ok else unusable_gpus(env)
        if problem:
            raise UsageError(problem)
        return torch.device("cpu")
    return torch.device("cuda", device_index(local_rank, torch.cuda.device_count(), env))


def device_index(local_rank: int, visible: int, env: Mapping[str, str]) -> int:
    """Which of the `visible` GPUs this process owns.

    `srun --gpus-per-task=N` gives every task its own N GPUs (CUDA_VISIBLE_DEVICES differs per task), so
    each task's first visible GPU is its own, whatever its local rank (the users' two-node Slurm example
    does the same with `local_rank % device_count`). Otherwise all local ranks see the same GPUs and take one each.
    """
    shown = env.get("CUDA_VISIBLE_DEVICES", "<unset>")
    per_task = gpus_per_task(env)
    if per_task:
        wanted = int(per_task)
        if wanted > visible:
            raise UsageError(
                f"srun --gpus-per-task={per_task} but this task sees {visible} GPU(s) "
                f"(CUDA_VISIBLE_DEVICES={shown}); ask for at most the GPUs of a node per task, "
                "e.g. srun --gpus-per-task=1 --ntasks-per-node=4"
            )
        return 0
    if local_rank >= visible:
        raise UsageError(
            f"local rank {local_rank} needs GPU {local_rank} but this node shows {visible} "
            f"(CUDA_VISIBLE_DEVICES={shown}); start at most {visible} processes per node, "
            f"e.g. torchrun --nproc-per-node={visible} or srun --ntasks-per-node={visible} "
            "(or srun --gpus-per-task=1, which gives each task its own GPU)"
        )
    return local_rank


def choose_backend(requested: str, device: torch.device) -> str:
    if requested == "auto":
        return "nccl" if device.type == "cuda" else "gloo"
    if requested == "nccl" and device.type != "cuda":
        raise UsageError("dist.backend=nccl needs a GPU but CUDA is not available here; example: dist.backend=gloo")
    return requested


def store_endpoint(environment: ClusterEnvironment) -> tuple[str, int]:
    """Where the rendezvous store is served: MASTER_ADDR:MASTER_PORT in every case. When torchrun's agent does
    not share its store (TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1, or an agent without a store to share), torch
    picked MASTER_PORT on rank 0's host as a port nobody listens on and serves nothing there
    (torch/distributed/elastic/rendezvous/api.py, `RendezvousStoreInfo.build` -> `get_free_port`), so rank 0
    serves the job's store on it. MASTER_PORT+1, used before, was checked by nobody: another socket on the
    node held it in two CI runs (EADDRINUSE) and the job failed."""
    return environment.main_address(), environment.main_port()


def _agent_store(environment: ClusterEnvironment) -> bool:
    """torchrun's agent serves the store at MASTER_PORT, and it outlives restarts: its keys are read under a
    prefix of this attempt's own, agreed by the ranks (app.common.attempts: the previous attempt's keys made
    restarted ranks read dead peers' addresses and hang, pytorch/pytorch#135712). No port to listen on: a
    fixed MASTER_PORT+1 was taken by another socket on the head node once in a CI run (EADDRINUSE), and the
    job failed."""
    return isinstance(environment, Torchrun) and environment.is_elastic() and environment.uses_agent_store()


def _connect(environment: ClusterEnvironment, timeout_s: float, serve: bool) -> dist.Store:
    address, port = store_endpoint(environment)
    rank, world_size = environment.rank(), environment.world_size()
    try:
        store: dist.Store = dist.TCPStore(address, port, world_size, is_master=serve,
                                          timeout=timedelta(seconds=timeout_s), wait_for_workers=False)
    except (RuntimeError, ValueError, OSError, dist.DistError) as err:
        raise RendezvousError(_rendezvous_message(err, f"{address}:{port}", rank, world_size, timeout_s)) from None
    store = prefixed(sign(store, environment.store_secret(), environment.store_scope()), JOB_SCOPE)
    if _agent_store(environment):
        store = prefixed(store, f"attempt-{_agreed_attempt(store, environment, timeout_s)}/")
    return store


#: The prefix of every key the project writes and reads in the rendezvous store. Key names are public (any client
#: lists them: TCPStore.list_keys); what another user lacks is the job's secret, which seals every value
#: (app/common/signed_store.py) and appears in no key name.
JOB_SCOPE = "app/"


#: The attempt this process agreed on with the other ranks, by store endpoint: agreed once, at the first
#: connection; later ones (the hang watch's) join the same attempt.
_AGREED: dict[str, int] = {}


def _agreed_attempt(store: dist.Store, environment: ClusterEnvironment, timeout_s: float) -> int:
    address, port = store_endpoint(environment)
    endpoint = f"{address}:{port}"
    if endpoint not in _AGREED:
        try:
            _AGREED[endpoint] = agree_on_attempt(store, environment.rank(), environment.world_size(), timeout_s)
        except NoAgreement as err:
            _stop_if_tampered(store)
            raise RendezvousError(_rendezvous_message(err, endpoint, environment.rank(), environment.world_size(),
                                                      timeout_s)) from None
    return _AGREED[endpoint]


def open_store(environment: ClusterEnvironment, timeout_s: float = 180.0) -> dist.Store:
    """The rendezvous key-value store alone, without a process group (raises `RendezvousError`).

    Rank 0 serves it without waiting for the others (they are waited for by whoever uses the store,
    under a deadline), unless torchrun's agent serves it. Callers that exchange messages before the
    process group exists (`app.check`) pass it on to `init_distributed(store=...)`.
    """
    if environment.world_size() == 1 and not isinstance(environment, Torchrun):
        return dist.HashStore()
    return _connect(environment, timeout_s, serve=environment.rank() == 0 and not _agent_store(environment))


def store_client(environment: ClusterEnvironment, timeout_s: float) -> dist.Store | None:
    """A second connection to the rendezvous store with its own short timeout, for a watchdog thread:
    when the store's host freezes, a read fails after `timeout_s` instead of the store's 180 s.
    None for a world of one (nothing to watch)."""
    if environment.world_size() == 1:
        return None
    return _connect(environment, timeout_s, serve=False)


def init_distributed(environment: ClusterEnvironment, backend: str = "auto", timeout_s: float = 180.0,
                     store: dist.Store | None = None) -> DistContext:
    """Join the process group described by `environment`; raise `RendezvousError` if the ranks cannot meet.

    `store`: an already-open rendezvous store (see `open_store`); by default one is opened here.
    """
    rank, world_size, local_rank = environment.rank(), environment.world_size(), environment.local_rank()
    device = choose_device(local_rank, cpu_ok=backend == "gloo")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    backend = choose_backend(backend, device)
    # NCCL: bind the communicator to our GPU at init (eager init, no guessing the device later).
    device_kwargs = {"device_id": device} if backend == "nccl" else {}
    address, port = store_endpoint(environment)
    where = f"{address}:{port}"
    if world_size > 1:
        log.info("joining process group: %s, backend %s, device %s, rendezvous %s, timeout %.0fs",
                 environment.describe(), backend, device, where, timeout_s)
    if store is None:
        store = open_store(environment, timeout_s)
    try:
        dist.init_process_group(backend, store=for_process_groups(store), rank=rank, world_size=world_size,
                                timeout=timedelta(seconds=timeout_s), **device_kwargs)
    except (RuntimeError, ValueError, OSError, dist.DistError) as err:
        _stop_if_tampered(store)
        raise RendezvousError(_rendezvous_message(err, where, rank, world_size, timeout_s)) from None
    return DistContext(rank, local_rank, world_size, device, backend, environment.name)


def _stop_if_tampered(store: dist.Store) -> None:
    """The ranks did not meet because of the store: this process refused a forged value in a store call torch made
    from C++ (gloo's addresses, NCCL's unique id: the process group's error is torch's own), or another rank
    refused one and left the sealed mark before it stopped, so that this one, which waited for it in vain, ends
    with the same cause and exit code instead of a rendezvous timeout."""
    if tampering_seen():
        raise StoreTampered(tampering_seen())
    try:
        marked = marked_tampered(store)
    except (RuntimeError, dist.DistError):  # the store went away too: the rendezvous error says so
        return
    if marked:
        raise tampered("another rank stopped on a value the job did not write")


def _rendezvous_message(err: BaseException, where: str, rank: int, world_size: int, timeout_s: float) -> str:
    first_line = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
    if "EADDRINUSE" in first_line or "ddress already in use" in first_line:
        return (
            f"rank {rank} of {world_size} could not serve the rendezvous store at {where}: another process on "
            f"this host already listens on port {where.rsplit(':', 1)[1]} ({first_line}); start the job again "
            f"(torchrun picks a fresh port per attempt), or give a free port: MASTER_PORT=29517 under srun or "
            f"mpiexec, `torchrun --rdzv-endpoint=HOST:29517` under torchrun"
        )
    return (
        f"rank {rank} of {world_size} could not join the process group at {where} within {timeout_s:.0f}s "
        f"({first_line}); check that every node started its processes (one launcher per node), that "
        f"{where.rsplit(':', 1)[0]} is rank 0's host on a network all nodes reach, and run "
        f"`python -m app.check` across the same nodes"
    )


def all_gather_strings(text: str, device: torch.device, width: int = 255) -> list[str]:
    """Every rank's `text` (UTF-8, cut to `width` bytes), via a tensor all_gather (no pickle, no numpy)."""
    data = text.encode()[:width]
    local = torch.zeros(width + 1, dtype=torch.uint8)
    local[0] = len(data)  # width <= 255 keeps the length in one byte
    local[1 : 1 + len(data)] = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else local[1:1]
    gathered = [torch.empty_like(local, device=device) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, local.to(device))
    return [bytes(t[1 : 1 + int(t[0])].cpu().tolist()).decode(errors="replace") for t in gathered]


def group_device() -> torch.device:
    """Where the default group's collectives take their tensors: NCCL only moves GPU memory."""
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def broadcast_bytes(data: bytes | None, limit: int) -> bytes:
    """Rank 0's `data` on every rank (collective; rank 0 passes bytes, the others None): its length, then its
    bytes, each one tensor broadcast over the default group. Nothing is unpickled, unlike torch's
    `broadcast_object_list` (torch/distributed/distributed_c10d.py, `_tensor_to_object`). A length over `limit`
    is refused on every rank, before anything is allocated for it."""
    device, sending = group_device(), dist.get_rank() == 0
    length = torch.tensor([len(data) if sending and data is not None else 0], dtype=torch.int64, device=device)
    dist.broadcast(length, src=0)
    size = int(length.item())
    if size > limit:
        raise ValueError(f"rank 0 sent {size} bytes where {limit} at most were due")
    if size == 0:
        return b""
    if sending and data is not None:
        payload = torch.frombuffer(bytearray(data), dtype=torch.uint8).to(device)
    else:
        payload = torch.empty(size, dtype=torch.uint8, device=device)
    dist.broadcast(payload, src=0)
    return data if sending and data is not None else payload.cpu().numpy().tobytes()


def hostname() -> str:
    return socket.gethostname()


def shutdown() -> None:
    """Destroy the process group. Callers drop their DDP model first, so no reducer still holds the
    group; entry points then leave through `end_process` (teardown at exit can still abort)."""
    gc.collect()
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def end_process(code: int) -> NoReturn:
    """Exit with `code` once the work is saved, skipping interpreter and C++ static teardown.

    After `shutdown()` gloo/NCCL still leave C++ state behind (transport threads, futures holding
    Python callbacks) that teardown at exit destroys in an order it was not written for: on 2 busy
    CPUs about 1 run in 25 ended "terminate called without an active exception" (SIGABRT, no Python
    frame) after a successful run, and torchrun then reports the whole job as failed. Everything
    that matters (snapshots, metrics, summary) is already fsynced or closed when this is called.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)
