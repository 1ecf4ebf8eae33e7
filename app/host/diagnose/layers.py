"""Where each cause sits (the layer of the stack that failed), how sure its reading is, and the layer verdicts:
what app.diagnose says when a log shows a failure but no cause in app/host/diagnose/causes.py fits.

A verdict names the layer a symptom points to and what to run next there, never a specific cause: it is
given only when no cause was recognised (app/host/diagnose/core.py drops verdicts as soon as one is), so a log
that names its cause is never diluted by a guess. Each verdict's pattern is a message its program prints:

- torch (2.4 to 2.9, torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp): `Heartbeat monitor timed out!`,
  `ProcessGroupNCCL's watchdog got stuck for %d seconds`, `NCCL communicator was aborted on rank`;
  torch's TCPStore (torch/csrc/distributed/c10d/TCPStore.cpp, socket.cpp): `Timed out after %d seconds waiting
  for clients. %d/%d clients joined.`, `wait timeout after %dms, keys:`;
- NCCL's error strings (src/init.cc `ncclGetErrorString`, v2.21.5-1 to v2.30.7-1): `unhandled system error (run
  with NCCL_DEBUG=INFO for details)`, `remote process exited or there was a network error`, `unhandled cuda
  error (run with NCCL_DEBUG=INFO for details)`, and torch's reading of them (getNcclErrorDetailStr in
  torch/csrc/distributed/c10d, 2.2 to 2.9): `ncclSystemError: System call (e.g. socket, malloc) or external
  library call failed or device error.`, `ncclRemoteError: A call failed possibly due to a network error or a
  remote process exiting prematurely.`, `ncclUnhandledCudaError: Call to CUDA function failed.`; NCCL's INFO
  line `comm %p rank %d nRanks %d nNodes %d` (src/init.cc);
- Open MPI (v4.1.6 and v5.0.8 ompi/errhandler/errhandler_predefined.c): `*** An error occurred in %s` with
  MPI_Init or MPI_Init_thread, a rank whose MPI could not start; MPICH and Cray MPICH (src/mpi/errhan/errutil.c):
  `Fatal error in %s: ` with PMPI_Init, and its error stack's `PMI_Init returned %d`;
- Lightning (1.x and later): `initializing ddp: GLOBAL_RANK: %d, MEMBER: %d/%d` (later `Initializing
  distributed: ...`), each process as it joins: a rank that appears twice before every rank appeared once;
- pyxis (src/pyxis_slurmstepd.c): `pyxis: container start failed with error code: %d`, `pyxis: container
  exited too soon`, enroot that could not start the container;
- NCCL's `invalid usage` (src/init.cc ncclGetErrorString, "(run with NCCL_DEBUG=WARN for details)" since 2.21):
  NCCL refused how it was called, with no WARN line in the log to say which check;
- Slurm 25.11.7's PMIx plugin (src/plugins/mpi/pmix): `send failed, rc=%d, exceeded the retry limit`, `%p:
  collective timeout seq=%d`, `Unable to connect to %d`, `Cannot establish the connection`;
- Slurm 25.11.7 srun (src/srun/launch.c): `%s: %s %s: Exited with exit code %d`, `%s: %s %s: Killed`; NCCL's
  WARN header `%s:%d:%d [%d] %s:%d NCCL WARN ` (src/debug.cc), which names the host;
- NCCL's bootstrap (src/bootstrap.cc, v2.18.5-1 to v2.30.7-1): `Message truncated : received %d bytes instead of
  %d`, ranks that disagree on a message's size;
- NCCL before 2.21 (v2.7.8-1 to v2.20.5-1 src/init.cc): the same error strings without "(run with NCCL_DEBUG=INFO
  for details)": `unhandled cuda error`, `unhandled system error`, `internal error` (2.21 and later `internal error
  - please report this issue to the NCCL developers`), and torch's `ncclInternalError: Internal check failed.`;
  NCCL's own CUDA checks, `Cuda failure '%s'` (src/include/checks.h, v2.7.8-1 to v2.30.7-1) and `Cuda failure %d
  '%s'` (src/include/cudawrap.h, 2.19 and later); its InfiniBand transport's failed work completions, `NET/IB :
  Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d` (src/transport/net_ib.cc, 2.12 to
  2.18) and `... with status=%d opcode=%d len=%d vendor err %d` (2.19 and later), which fail the communicator;
- torch (2.13 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py): `RendezvousClosedError`, another
  agent closed the rendezvous;
- nccl-tests (v2.17.6 src/util.cu): the ranks' list `#  Rank %2d Group %2d Pid %6d on %10s device %2d ...` with no
  result row after it (`%12li  %12li  %8s  %6s  %6s`, `# Avg bus bandwidth`): its first collective never ended,
  within one node (the host's GPU path) or across several (the fabric);
- nccl-tests (v2.17.6 src/util.cu): a result row whose `#wrong` (`%6g`) is not 0, or `# Out of bounds values : %d
  FAILED`, where no cause says which path corrupted the data;
- UCX (v1.18.0 src/ucs/debug/log.c): its `%17s:%-4u UCX  ERROR ` lines, in a run that failed or where they say
  the peers could not be connected (ucs_status_string's "Destination is unreachable", "Endpoint timeout");
- filelock (3.13.1 src/filelock/_api.py, _error.py): `Attempting to acquire lock %s on %s` three times or more on
  one file with no `Lock %s acquired on %s`, or `The file lock '%s' could not be acquired.`: processes waiting on
  a lock none of them got.
"""

from typing import Dict, Match, NamedTuple, Sequence, Tuple

from app.host.diagnose.causes import (
    _FAILED,
    _NCCL_TESTS_RANK,
    _NCCL_TESTS_WRONG,
    _NODE_COUNT_MULTI,
    Cause,
    _nccl_tests_gave_no_result,
)
from app.host.diagnose.logview import LogView


class Layer(NamedTuple):
    name: str
    what: str
    """What belongs to the layer, in one line."""


LAYERS: Tuple[Layer, ...] = (
    Layer("scheduler", "Slurm or PBS: the request, the allocation, time and memory limits, the nodes it gave"),
    Layer("host", "the node itself: GPUs, the NVIDIA driver, NVSwitch Fabric Manager, PCIe, locked and shared "
                  "memory, the node's configuration"),
    Layer("container", "Apptainer, enroot/pyxis and libnvidia-container, the image, PMIx inside the container"),
    Layer("launch", "starting the ranks: srun/mpiexec/pbsdsh, torchrun, how many ranks per node and which GPU "
                    "each takes, hostfiles, ports"),
    Layer("rendezvous", "the ranks meeting: torchrun's store, NCCL's bootstrap sockets"),
    Layer("fabric", "the inter-node network: NCCL's net transports and plugins, libfabric and its providers, "
                    "libibverbs/rdma-core, RoCE, EFA, Slingshot"),
    Layer("software", "the programs' versions and builds: NCCL, torch, CUDA, DeepSpeed, their versions across "
                      "nodes"),
    Layer("training", "the run itself: GPU memory, collectives that stopped, the watchdogs"),
    Layer("job-scripts", "this project's job scripts and app.check, in their own words"),
)
BY_LAYER = {layer.name: layer for layer in LAYERS}

HIGH = "high"
"""The message names the cause itself: one reading."""
MEDIUM = "medium"
"""The message fits the cause most often, but other causes print it too (the fix says how to tell)."""

#: key -> (layer, confidence) for every cause in app/host/diagnose/causes.py (a test keeps the two in step).
PLACES: Dict[str, Tuple[str, str]] = {
    "slurm-gres": ("scheduler", HIGH),
    "slurm-qos-account": ("scheduler", HIGH),
    "pbs-request-refused": ("scheduler", HIGH),
    "pbs-queued-jobs-limit": ("scheduler", HIGH),
    "slurm-request-refused": ("scheduler", HIGH),
    "slurm-output-file-not-writable": ("scheduler", HIGH),
    "cuda-arch-unsupported": ("software", HIGH),
    "command-not-on-node": ("launch", HIGH),
    "slurm-step-blocked": ("launch", HIGH),
    "cxi-vni-not-granted": ("fabric", HIGH),
    "gke-tcpxo-rxdm-gvnic-displaced-gpu-nic": ("fabric", HIGH),
    "enroot-registry-refused": ("container", HIGH),
    "image-tag-not-found-no-latest": ("container", HIGH),
    "ib-link-layers-mixed": ("host", HIGH),
    "nvlink-p2p-disabled": ("host", MEDIUM),
    "nccl-multi-rank-per-gpu-false-p2p-disabled-check": ("host", HIGH),
    "p2p-peer-access-refused": ("host", MEDIUM),
    "memlock-limit-tiny": ("host", MEDIUM),
    "memlock-limit-lowered-without-reboot": ("host", MEDIUM),
    "cma-ptrace-denied-in-container": ("container", HIGH),
    "enroot-no-gpu-hook": ("container", HIGH),
    "enroot-hook-failed": ("container", MEDIUM),
    "image-musl-ldconfig-breaks-enroot-hooks": ("container", MEDIUM),
    "enroot-nvidia-visible-devices-unset": ("container", MEDIUM),
    "nvccli-contain-without-nvidia-visible-devices": ("container", HIGH),
    "mksquashfs-not-on-batch-path": ("container", HIGH),
    "libnvidia-container-firmware-mount-failed": ("container", HIGH),
    "libnvidia-container-release-regression-1-17-7": ("container", MEDIUM),
    "nvidia-container-toolkit-1-12-0-cdi-missing-dev-nodes": ("container", HIGH),
    "selinux-blocks-nvidia-container-cli": ("host", MEDIUM),
    "nvidia-container-ldconfig-not-run": ("container", HIGH),
    "container-gpu-access-lost-systemd-cgroup-reload": ("container", MEDIUM),
    "sbatch-environment-srun-switch-plugin-unloadable": ("container", MEDIUM),
    "slurm-ntasks-not-matching-trainer-devices": ("launch", HIGH),
    "lightning-num-nodes-not-set": ("launch", HIGH),
    "slurm-fewer-tasks-than-nodes": ("launch", HIGH),
    "slurm-ntasks-per-node-ignored": ("launch", MEDIUM),
    "efa-gdr-unavailable": ("fabric", MEDIUM),
    "mnnvl-imex-not-working": ("host", HIGH),
    "imex-channel-missing-fabric-memory-refused": ("host", MEDIUM),
    "slurm-pmix-library-mismatch": ("launch", HIGH),
    "net-device-count-differs": ("host", MEDIUM),
    "ranks-disagree-on-size": ("rendezvous", MEDIUM),
    "env-rendezvous-unset": ("launch", HIGH),
    "deepspeed-hostfile-bad": ("launch", HIGH),
    "cxi-match-entries-exhausted": ("fabric", HIGH),
    "cxi-event-queue-overflow": ("fabric", HIGH),
    "fi-provider-not-in-libfabric": ("fabric", HIGH),
    "cxi-nic-resources-exhausted": ("fabric", HIGH),
    "ofi-nccl-nic-dup-conns-with-gdr": ("fabric", HIGH),
    "ib-device-not-accessible": ("container", MEDIUM),
    "apptainer-nv-no-host-driver": ("host", HIGH),
    "apptainer-no-loop-device": ("container", HIGH),
    "apptainer-loop-device-unattached": ("container", MEDIUM),
    "apptainer-overlay-in-use": ("container", HIGH),
    "slurm-workdir-missing": ("launch", HIGH),
    "mpirun-not-enough-slots": ("launch", HIGH),
    "enroot-image-file-bad": ("container", HIGH),
    "enroot-path-not-writable": ("container", HIGH),
    "bind-spec-malformed": ("container", HIGH),
    "python-dev-headers-missing": ("software", HIGH),
    "libcuda-stub-loaded": ("software", HIGH),
    "dmabuf-unsupported": ("fabric", HIGH),
    "gloo-loopback-address": ("rendezvous", MEDIUM),
    "gloo-socket-ifname-invalid": ("rendezvous", HIGH),
    "gloo-hostname-unresolved": ("rendezvous", HIGH),
    "gloo-address-family-mismatch": ("rendezvous", HIGH),
    "pmix-socket-path-too-long": ("launch", HIGH),
    "pmix-rendezvous-file-unusable": ("launch", MEDIUM),
    "munge-credential-invalid": ("scheduler", HIGH),
    "munge-clock-skew": ("scheduler", HIGH),
    "slurm-job-credential-refused": ("scheduler", MEDIUM),
    "munged-unreachable": ("scheduler", HIGH),
    "gres-conf-invalid-cores-spec": ("scheduler", HIGH),
    "gres-autodetect-affinity-not-socket-aligned": ("scheduler", HIGH),
    "slurm-auth-key-missing": ("scheduler", HIGH),
    "slurmd-manual-start-cgroup-controllers-disabled": ("scheduler", MEDIUM),
    "slurmd-cgroup-fs-read-only": ("scheduler", HIGH),
    "slurm-topology-missing-node": ("scheduler", MEDIUM),
    "k8s-shared-gpu-request-over-one-refused": ("scheduler", HIGH),
    "deepspeed-train-batch-below-gpu-count": ("training", HIGH),
    "deepspeed-fp16-loss-scale-exhausted": ("training", HIGH),
    "torch-load-weights-only-default": ("training", HIGH),
    "slurm-controller-unreachable": ("scheduler", HIGH),
    "slurm-message-timed-out": ("scheduler", MEDIUM),
    "slurm-protocol-version-unsupported": ("scheduler", HIGH),
    "slurm-plugin-load-failed": ("scheduler", HIGH),
    "slurm-step-unkillable": ("scheduler", MEDIUM),
    "slurm-conf-not-found": ("scheduler", HIGH),
    "slurm-node-address-unknown": ("scheduler", HIGH),
    "slurm-prolog-failure": ("scheduler", HIGH),
    "gres-conf-duplicate-gpus": ("scheduler", HIGH),
    "slurm-node-memory-below-config": ("scheduler", HIGH),
    "gres-count-below-config": ("scheduler", HIGH),
    "scontrol-missing-in-container": ("container", HIGH),
    "orted-not-on-remote-path": ("launch", MEDIUM),
    "mpi-daemon-compiler-runtime-missing-noninteractive": ("launch", HIGH),
    "mpirun-not-on-path": ("launch", HIGH),
    "launch-script-line-continuation": ("launch", MEDIUM),
    "mpirun-run-as-root": ("launch", HIGH),
    "mpirun-conflicting-mapping": ("launch", HIGH),
    "disk-full": ("host", HIGH),
    "hdf5-file-locking-unsupported": ("host", HIGH),
    "open-files-limit": ("host", HIGH),
    "shared-cache-nfs-stale-handle": ("host", MEDIUM),
    "rendezvous-name-not-resolvable": ("rendezvous", HIGH),
    "hostname-resolves-to-loopback": ("rendezvous", HIGH),
    "ssh-host-key-changed": ("launch", HIGH),
    "ssh-host-key-unknown": ("launch", HIGH),
    "cray-gtl-not-linked": ("software", HIGH),
    "torch-mpi-backend-cuda-aware-openmpi-only": ("software", HIGH),
    "cray-mpich-nic-policy-numa-rank-spans-numa": ("launch", HIGH),
    "spectrum-mpi-cuda-hook-before-mpi-init": ("launch", MEDIUM),
    "openmpi-nonblocking-collectives-gpu-buffers-unsupported": ("fabric", MEDIUM),
    "pals-mpiexec-openmpi-options": ("launch", HIGH),
    "enroot-rootfs-lock-timeout": ("container", HIGH),
    "image-no-shell": ("container", HIGH),
    "pyxis-seccomp-flag-unsupported": ("container", HIGH),
    "apptainer-session-dir-missing": ("container", HIGH),
    "hca-resources-exhausted": ("fabric", HIGH),
    "driver-broken-after-suspend": ("host", MEDIUM),
    "nccl-too-old-for-gpu": ("software", HIGH),
    "srun-step-exceeds-allocation": ("launch", HIGH),
    "openmpi-host-slots-unsupported": ("launch", HIGH),
    "gdrdrv-same-process-check-rejects-threads": ("host", MEDIUM),
    "cloud-init-duplicate-mac-ib-interface": ("host", HIGH),
    "nvshmem-ibgda-uninitialized-ah-attr": ("fabric", MEDIUM),
    "nccl-net-plugin-env-names-missing-library": ("fabric", HIGH),
    "nccl-ll128-gpudirect-slingshot-data-corruption": ("fabric", MEDIUM),
    "mount-source-missing": ("container", HIGH),
    "enroot-image-reference-invalid": ("container", HIGH),
    "mpirun-daemon-callback-failed": ("launch", MEDIUM),
    "openmpi-tcp-btl-wrong-interfaces": ("launch", MEDIUM),
    "nccl-usb-nic-topology-bug": ("software", HIGH),
    "conda-env-mpi-shadows-site-mpi": ("launch", MEDIUM),
    "mpirun-executable-not-found": ("launch", HIGH),
    "mpirun-workdir-missing": ("launch", HIGH),
    "image-arch": ("container", HIGH),
    "libfabric-abi": ("fabric", HIGH),
    "mpi-libfabric-older-than-build": ("fabric", HIGH),
    "rdma-core-abi": ("software", HIGH),
    "efa-on-slingshot": ("fabric", HIGH),
    "no-ofi-plugin": ("fabric", MEDIUM),
    "ofi-nccl-plugin-not-on-library-path": ("fabric", HIGH),
    "no-ib-network": ("fabric", MEDIUM),
    "ib-hca-filter-empty": ("host", HIGH),
    "no-verbs-driver": ("fabric", HIGH),
    "no-fabric-provider": ("fabric", MEDIUM),
    "launcher-one-node": ("launch", HIGH),
    "rendezvous-one-node": ("launch", HIGH),
    "rendezvous-unreachable": ("rendezvous", MEDIUM),
    "rendezvous-connect": ("rendezvous", MEDIUM),
    "tcpstore-connection-reset-after-connect": ("rendezvous", MEDIUM),
    "nccl-connect": ("rendezvous", MEDIUM),
    "store-address-docker-bridge-ip": ("container", MEDIUM),
    "duplicate-gpu": ("launch", HIGH),
    "hang-named": ("training", HIGH),
    "check-verdict": ("job-scripts", HIGH),
    "gave-up": ("job-scripts", HIGH),
    "cuda-oom": ("training", HIGH),
    "node-failure": ("scheduler", HIGH),
    "nccl-watchdog": ("training", MEDIUM),
    "pg-timeout-too-short": ("training", MEDIUM),
    "walltime": ("scheduler", HIGH),
    "socket-not-fabric": ("fabric", MEDIUM),
    "no-image": ("job-scripts", HIGH),
    "no-apptainer": ("job-scripts", HIGH),
    "no-gpus": ("job-scripts", HIGH),
    "no-torchrun": ("job-scripts", HIGH),
    "resubmit-defaults": ("job-scripts", HIGH),
    "pbs-nodefile-names": ("job-scripts", HIGH),
    "torque-pbsdsh": ("launch", HIGH),
    "pbsdsh-task-lost": ("launch", MEDIUM),
    "pbs-task-manager-unreachable": ("launch", HIGH),
    "pbs-launch-host-outside-job": ("launch", HIGH),
    "job-script-error": ("job-scripts", HIGH),
    "job-input-refused": ("job-scripts", HIGH),
    "own-init-refused": ("launch", HIGH),
    "script-requires-local-rank-argument": ("launch", HIGH),
    "python-module-missing": ("software", MEDIUM),
    "slurm-request-unsatisfiable": ("scheduler", HIGH),
    "slurm-gres-core-bitmap-stale-at-startup": ("scheduler", MEDIUM),
    "image-corrupt": ("container", HIGH),
    "bind-destination-missing": ("container", HIGH),
    "enroot-caps-missing": ("container", HIGH),
    "enroot-uid-overflow": ("container", MEDIUM),
    "userns-restricted": ("host", HIGH),
    "pyxis-runtime-full": ("container", HIGH),
    "fabric-manager-down": ("host", HIGH),
    "driver-too-old": ("host", HIGH),
    "nccl-version-mismatch": ("software", HIGH),
    "apptainer-no-nv": ("container", MEDIUM),
    "cuda-library-missing": ("software", HIGH),
    "host-oom": ("scheduler", HIGH),
    "pbs-cpu-over-limit": ("scheduler", HIGH),
    "job-pids-limit-exceeded": ("scheduler", HIGH),
    "slurm-user-uid-differs-across-nodes": ("scheduler", HIGH),
    "user-unknown-on-node": ("host", HIGH),
    "fabric-manager-restarted": ("host", MEDIUM),
    "pmix-gds-mismatch": ("container", MEDIUM),
    "gpus-per-task-binding": ("launch", HIGH),
    "too-many-ranks-per-node": ("launch", MEDIUM),
    "device-from-global-rank": ("launch", MEDIUM),
    "cuda-unavailable": ("launch", MEDIUM),
    "deepspeed-op-build": ("software", HIGH),
    "hostfile-unresolvable": ("launch", HIGH),
    "deepspeed-mpi-discovery": ("launch", MEDIUM),
    "shm-not-writable": ("host", HIGH),
    "shm-too-small": ("host", MEDIUM),
    "unsquashfs-xattr-write-failed": ("container", MEDIUM),
    "systemd-removeipc": ("host", HIGH),
    "memlock-too-low": ("host", HIGH),
    "efa-installer-too-old": ("fabric", MEDIUM),
    "ucx-ib-memory-registration-enomem-reg-methods": ("fabric", MEDIUM),
    "ucx-posix-shm-proc-link-permission-denied": ("fabric", HIGH),
    "hpcx-ucx-rc-verbs-remote-access-error-large-sends": ("fabric", MEDIUM),
    "ucx-cuda-ipc-gdrcopy-same-buffer-registration-conflict": ("fabric", MEDIUM),
    "amd-iommu-not-passthrough": ("host", HIGH),
    "rccl-ib-socket-port-exhaustion-large-alltoall": ("fabric", MEDIUM),
    "cray-mpich-gpu-ipc-broken-by-slurm-gpu-binding": ("launch", MEDIUM),
    "fabric-manager-started-before-local-fm-ready": ("host", MEDIUM),
    "fabric-manager-start-timeout-node-bootstrap": ("host", HIGH),
    "cuda-forward-compat-driver-breaks-nic-memory-registration": ("software", MEDIUM),
    "accelerate-config-conflicts-with-deepspeed-config-file": ("launch", HIGH),
    "cumem-host-no-p2p": ("host", HIGH),
    "topo-file-preset": ("host", HIGH),
    "port-in-use": ("launch", HIGH),
    "wrong-bootstrap-iface": ("rendezvous", HIGH),
    "ib-transport-retry-timeout-under-congestion": ("fabric", MEDIUM),
    "roce-gid-index": ("fabric", MEDIUM),
    "rail-only-fabric": ("fabric", MEDIUM),
    "nccl-version-across-ranks": ("software", HIGH),
    "versions-differ-across-nodes": ("software", MEDIUM),
    "nvml-driver-mismatch": ("host", HIGH),
    "cuda-driver-combination": ("host", MEDIUM),
    "container-cuda-requirement": ("container", HIGH),
    "container-no-driver": ("container", MEDIUM),
    "nvidia-control-device-node-missing": ("host", HIGH),
    "binary-built-for-newer-cpu-isa": ("host", MEDIUM),
    "apptainer-tmp-full": ("container", HIGH),
    "slurm-mpi-plugin-missing": ("launch", HIGH),
    "mpi-without-pmi": ("launch", HIGH),
    "nccl-tests-without-mpi": ("launch", MEDIUM),
    "p2p-acs-iommu": ("host", MEDIUM),
    "gpu-hardware-fault": ("host", HIGH),
    "gpu-busy-exclusive": ("host", MEDIUM),
    "slurm-task-launch-failed": ("launch", MEDIUM),
    "efa-unreachable": ("fabric", MEDIUM),
    "efa-libfabric-too-old": ("fabric", HIGH),
    "deepspeed-no-hostfile": ("launch", HIGH),
    "rank-sigkill": ("host", MEDIUM),
    "launcher-local-rank-argument-rejected": ("launch", HIGH),
    "userns-restricted-apparmor": ("host", HIGH),
    "gpudirect-rdma-disabled": ("fabric", MEDIUM),
    "p2p-disabled-by-env": ("launch", MEDIUM),
    "peermem-module-unloadable": ("host", HIGH),
    "pmix-munge-unavailable": ("launch", HIGH),
    "bind-kind-mismatch": ("container", HIGH),
    "deepspeed-pdsh-ssh-args-bug": ("launch", HIGH),
    "ib-port-down": ("fabric", HIGH),
    "hca-fatal-error": ("host", HIGH),
    "slurm-preempted": ("scheduler", HIGH),
    "slurm-spank-plugin-failed": ("scheduler", HIGH),
    "squashfs-compression-unsupported": ("container", HIGH),
    "enroot-fuse-tools-unsupported": ("container", HIGH),
    "file-locks-unsupported": ("host", HIGH),
    "rendezvous-endpoint-malformed": ("launch", HIGH),
}


def place(key: str) -> Tuple[str, str]:
    """(layer, confidence) of a cause or a verdict."""
    if key in PLACES:
        return PLACES[key]
    verdict = VERDICT_LAYER.get(key)
    return (verdict, "layer only") if verdict else ("", "")


#: NCCL's communicators spanned several nodes (src/init.cc "comm %p rank %d nRanks %d nNodes %d"): a job that
#: also has one-node communicators (tensor parallel, hybrid sharding) did run across its nodes.
_NCCL_MULTI_NODE = r"\bnNodes (?:[2-9]|[1-9]\d+)\b"


#: NCCL's InfiniBand transport got a work completion in error: the communicator fails with it (the WARN is the
#: failure, not a warning of one).
_IB_COMPLETION_ERROR = r"NET/IB ?: Got completion from peer \S{1,300} with (?:error \d|status=)"


def _multi_node_failed(log: LogView) -> bool:
    return log.has(_NODE_COUNT_MULTI) and log.has(_FAILED)


def _a_rank_started_twice(matches: Sequence[Match[str]]) -> bool:
    """A global rank announced itself again before every rank of its world had announced itself once: two
    processes took one rank. (A job that restarted whole announces every rank once, then again.)"""
    seen = set()
    for match in matches:
        rank, world = int(match.group("rank")), int(match.group("world"))
        if (rank, world) in seen and len({r for r, w in seen if w == world}) < world:
            return True
        seen.add((rank, world))
    return False


def _rank_zero_waited_alone(matches: Sequence[Match[str]]) -> bool:
    """Rank 0 announced itself, and fewer ranks than its world did. Only the first 50 lines are kept
    (core.MAX_KEPT, which imports this module): where all were kept the count says nothing."""
    if len(matches) >= 50:
        return False
    worlds = {int(match.group("world")) for match in matches if match.group("rank") == "0"}
    return any(len({match.group("rank") for match in matches if int(match.group("world")) == world}) < world
               for world in worlds)


def _one_node(matches: Sequence[Match[str]]) -> bool:
    """The lines that show a task's failure all name one node (srun prints the nodes whose tasks failed)."""
    return len({m.group("node") for m in matches}) == 1


def _waited_on_one_file(matches: Sequence[Match[str]]) -> bool:
    """The lock was given up on (filelock's Timeout), or tried three times or more on one file."""
    files = [match.group("file") for match in matches]
    return any("could not be acquired" in match.group(0) for match in matches) or any(
        files.count(name) >= 3 for name in set(files))


_NEXT_NCCL = ("rerun with `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,BOOTSTRAP` (`EXTRA_ENV=...`) so NCCL logs "
              "what it chose and where it stopped")
_NEXT_CHECK = "run `python -m app.check` on the same allocation (it judges each node and each node pair)"

#: The verdicts, most telling first (weight): a Cause each, its key starting with `layer-`, its `cause` saying
#: what the symptom shows and which layer, its `fix` what to run next there.
VERDICTS: Tuple[Cause, ...] = (
    Cause(
        "layer-one-node-only",
        "no cause recognised; NCCL saw one node (nNodes 1) in a job that has several: the launch layer started "
        "the ranks of one node only, or each node formed its own job",
        f"check that one launcher task (one torchrun) runs on every node and that all use the same rendezvous "
        f"endpoint and --nnodes; {_NEXT_CHECK}",
        (r"NCCL INFO comm 0x[0-9a-f]+ rank \d+ nRanks \d+ nNodes 1\b",),
        30,
        applies=lambda log: log.has(_NODE_COUNT_MULTI) and not log.has(_NCCL_MULTI_NODE),
        context=(_NODE_COUNT_MULTI,),
    ),
    Cause(
        "layer-mpi-init-failed",
        "no cause recognised; MPI could not start on the ranks (MPI_Init failed): the launch layer, the way the "
        "launcher hands MPI its process-management interface (PMI or PMIx)",
        "`srun --mpi=list` shows the PMI types Slurm offers: start with the one the MPI was built for "
        "(`srun --mpi=pmix` or `--mpi=pmi2`; `ompi_info | grep -i pmix` says which), or use the MPI's own "
        "`mpirun` inside the allocation; in a container the image's MPI must be built for that PMI, and a host "
        "`mpirun` starting a container's MPI must be the same MPI at a compatible version; read the lines above "
        "MPI's for the first error; `OMPI_MCA_pmix_base_verbose=10` (Open MPI) logs what PMIx did",
        # Open MPI v4.1.6 ompi/errhandler/errhandler_predefined.c line 330 and v5.0.8 line 449: out("*** An error
        # occurred in %s\n", arg) with the failing call, MPI_Init or MPI_Init_thread; v4.1.6
        # ompi/runtime/ompi_mpi_init.c line 519 error = "ompi_mpi_init: ompi_rte_init failed", shown through
        # help-mpi-runtime.txt [mpi_init:startup:internal-failure] line 25 "It looks like %s failed for some
        # reason; ..." with MPI_INIT.
        (r"\*\*\* An error occurred in MPI_Init(?:_thread)?\b", r"ompi_mpi_init: ompi_rte_init failed",
         r"It looks like MPI_INIT failed for some reason",
         # MPICH (and Cray MPICH, which prints "MPICH ERROR [Rank N] ... - Abort(...)" before it), in stored copies
         # whose tags are not recorded: src/mpi/errhan/errutil.c MPL_snprintf(error_msg, MAX_ERRMSG_STRING, "Fatal
         # error in %s: ", fcname) with PMPI_Init or PMPI_Init_thread (MPI_Init in older ones), and the error stack's
         # PMI step, src/mpi/errhan/errnames.txt "**pmi_init %d:PMI_Init returned %d" (defmsg.h long_spc "PMI_Init
         # returned %d") under MPIR_pmi_init.
         r"Fatal error in P?MPI_Init(?:_thread)?: ", r"MPIR_pmi_init\(\d+\)\.*: PMI_Init returned \d+"),
        28,
    ),
    Cause(
        "layer-nccl-invalid-usage",
        "no cause recognised; NCCL refused how it was called (ncclInvalidUsage, or ncclInvalidArgument): the launch "
        "layer, most often two ranks on one GPU (more ranks on a node than GPUs it lets them see), or ranks that "
        "disagree on the communicator (its size, their rank numbers, the order of their collectives: a framework "
        "told another node or GPU count than the launcher started, such as Lightning's `num_nodes`)",
        "rerun with `NCCL_DEBUG=WARN`: NCCL's WARN line names the check that failed (`Duplicate GPU detected`, a "
        "rank or size out of range); compare the ranks per node with the GPUs each sees (`nvidia-smi -L` and "
        "`CUDA_VISIBLE_DEVICES` in each task) and give each rank its own GPU; check that the program's own node and "
        "GPU counts (Lightning's `Trainer(num_nodes=, devices=)`) equal the launcher's (`--nnodes`, "
        "`--nproc_per_node`, Slurm's `--nodes`, `--ntasks-per-node`); " + _NEXT_CHECK,
        # NCCL src/init.cc ncclGetErrorString: v2.14.3-1 line 1522 "invalid usage", v2.21.5-1 line 2264 "invalid
        # usage (run with NCCL_DEBUG=WARN for details)"; as torch reports it ("NCCL error in: FILE:LINE, invalid
        # usage ...", and getNcclErrorDetailStr's "ncclInvalidUsage: This usually reflects invalid usage of NCCL
        # library."), as nccl-tests does (v2.17.6 src/common.h "Test NCCL failure %s:%d '%s / %s'") and as programs
        # print the string after their own prefix ("[NCCL ERROR]: invalid usage", "NCCL error: invalid usage").
        # ncclInvalidArgument, the same checks' other result (a rank or count out of range, root not a rank):
        # v2.4.8-1 src/init.cc line 1229 "invalid argument", v2.21.5-1 line 2263 "invalid argument (run with
        # NCCL_DEBUG=WARN for details)", read only where NCCL's error is reported as such (torch's "NCCL error in:
        # ...", nccl-tests' "Test NCCL failure"), not CUDA's own "invalid argument".
        (r"NCCL error in: \S{1,300}, invalid (?:usage|argument)\b",
         r"\bncclInvalidUsage: This usually reflects invalid usage",
         r"\bTest NCCL failure \S{1,300}:\d+ 'invalid (?:usage|argument)\b",
         r"NCCL (?:ERROR\]|[Ee]rror):? invalid usage\b"),
        25,
    ),
    Cause(
        "layer-rank-started-twice",
        "no cause recognised; global rank {rank} of {world} started in two processes before every rank had started "
        "once: the launch layer started more processes than the program's world (the scheduler's nodes and tasks per "
        "node against the program's own count of nodes and devices), so ranks collide",
        "make the two agree: under Slurm `--nodes` and `--ntasks-per-node` equal to the program's nodes and GPUs per "
        "node (Lightning's `num_nodes` and `devices`), or one torchrun per node with `--nproc_per_node` = its GPUs; "
        "`srun -l hostname` in the job shows how many tasks each node starts; " + _NEXT_CHECK,
        # Lightning 1.x (pytorch_lightning's DDP plugin, init_ddp_connection) log.info(f"initializing ddp:
        # GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}"), and its later strategies
        # (_logger.info(f"Initializing distributed: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank +
        # 1}/{world_size}")), each process once as it joins the process group; read in stored copies whose tags
        # are not recorded.
        (r"[Ii]nitializing (?:ddp|distributed): GLOBAL_RANK: (?P<rank>\d+), MEMBER: \d+/(?P<world>\d+)",),
        26,
        applies=lambda log: log.has(_FAILED),
        hits_show=_a_rank_started_twice,
    ),
    Cause(
        "layer-lightning-ranks-never-registered",
        "no cause recognised; Lightning's rank 0 began joining a world of {world} processes and never logged that "
        "all of them registered, so the process group never finished starting: fewer processes started than the "
        "Trainer's world (the launch layer), or they started and could not reach rank 0 (the rendezvous or the "
        "network)",
        "check that the scheduler starts devices x num_nodes processes: under Slurm `--ntasks-per-node` equal to "
        "`Trainer(devices=...)` and `--nodes` to `num_nodes` (`srun -l hostname` in the job counts them); then that "
        "every node reaches MASTER_ADDR:MASTER_PORT and that NCCL and Gloo use an interface the nodes share "
        "(`NCCL_SOCKET_IFNAME`, `GLOO_SOCKET_IFNAME`; `NCCL_DEBUG=INFO` names the interface chosen); " + _NEXT_CHECK,
        # Lightning 2.6.5 src/lightning/fabric/utilities/distributed.py _init_dist_connection(): line 282
        # log.info(f"Initializing distributed: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}")
        # before torch.distributed.init_process_group(), then on rank 0 (rank_zero_info, line 293) "All distributed
        # processes registered. Starting with {world_size} processes" once it returned. Rank 0's first line without
        # the second, and not every rank's first line either: the process group never formed (other ranks' own
        # logs never have the second line; a log that shows every rank joining is _a_rank_started_twice's).
        (r"Initializing distributed: GLOBAL_RANK: (?P<rank>\d{1,7}), MEMBER: \d{1,7}/(?P<world>[2-9]|[1-9]\d{1,6})\b",),
        24,
        applies=lambda log: not log.has(_LIGHTNING_REGISTERED),
        hits_show=lambda matches: _rank_zero_waited_alone(matches),
    ),
    Cause(
        "layer-container-start-failed",
        "no cause recognised; pyxis could not start the task's container (enroot failed): the container layer, the "
        "image, enroot's configuration and hooks on the node, or the runtime path it unpacks into",
        "read the enroot log pyxis prints after it (`pyxis: printing enroot log file:`, its `[ERROR]` lines name the "
        "hook or step that failed); on the node, `enroot import docker://IMAGE` then `enroot create` and `enroot "
        "start` by hand show the same failure; `srun --container-image=... true` on one node retries it; "
        + _NEXT_CHECK,
        # pyxis src/pyxis_slurmstepd.c enroot_container_start() (a stored copy whose tag is not recorded):
        # slurm_error("pyxis: container start failed with error code: %d", ret) when enroot exited non-zero, and
        # "pyxis: container exited too soon" (later "..., possibly due to an unusual entrypoint in the image").
        (r"pyxis: container start failed with error code: \d+", r"pyxis: container exited too soon"),
        25,
    ),
    Cause(
        "layer-pmix-exchange-failed",
        "no cause recognised; Slurm's PMIx plugin could not exchange the ranks' data between the nodes' slurmstepds "
        "(a send that ran out of retries, a collective that timed out): the launch layer, the network between the "
        "nodes' slurmstepds or a node whose ranks never joined",
        "read every node's first error (a rank that died early leaves the others waiting); `srun --mpi=pmix -N 2 "
        "hostname` on the allocation shows whether the exchange itself works; Slurm's PMIx plugin opens direct "
        "connections between nodes: `SLURM_PMIX_DIRECT_CONN=false` sends through slurmd instead (and "
        "`SLURM_PMIX_DIRECT_CONN_UCX=false` leaves UCX out), to tell a blocked port from a dead rank; " + _NEXT_CHECK,
        # Slurm 25.11.7 src/plugins/mpi/pmix: PMIXP_ERROR (pmixp_debug.h line 56, error(" %s: %s: %s [%d]: %s:%d: "
        # format, plugin_type, __func__, host, nodeid, file, line)) with pmixp_utils.c line 447 "send failed, rc=%d,
        # exceeded the retry limit", pmixp_coll_tree.c line 1314 and pmixp_coll_ring.c line 736 "%p: collective
        # timeout seq=%d", pmixp_server.c line 734 "Unable to connect to %d", pmixp_dconn_tcp.c line 151 "Cannot
        # establish the connection".
        (r"mpi/pmix\w{0,4}: .{0,400}?(?:send failed, rc=\d+, exceeded the retry limit|collective timeout seq=\d+"
         r"|Unable to connect to \d+|Cannot establish the connection)",),
        27,
    ),
    Cause(
        "layer-one-node-error",
        "no cause recognised; every failure line names one node, {node}: the host layer of that node (its GPUs, "
        "driver, memory or network card) is the first suspect (unless the log holds that node's output only)",
        f"read that node's lines above the failure; resubmit without it (`--exclude={{node}}`) to confirm, and "
        f"{_NEXT_CHECK}; `nvidia-smi -q` and `ibv_devinfo` on the node show its GPUs and network cards",
        # srun's lines name the node whose tasks failed; NCCL's WARN lines start with the host that printed them
        # (src/debug.cc: "%s:%d:%d [%d] %s:%d NCCL WARN ", hostname, pid, tid, cudaDev, filefunc, line).
        (r"srun: error: (?P<node>[\w.-]+): tasks? [\d,-]+: (?:Exited with exit code|Killed|Segmentation fault"
         r"|Aborted|Bus error)",
         # Anchored at the line's start (after a short prefix such as srun -l's "3: "): searched from every
         # position, the host name's repetition would make a long line quadratic.
         r"^(?:\S{1,40} )?(?P<node>[\w.-]{1,253}):\d+:\d+ \[\d+\] \S{1,300}:\d+ NCCL WARN "),
        26,
        applies=_multi_node_failed,
        context=(_NODE_COUNT_MULTI,),
        hits_show=_one_node,
    ),
    Cause(
        "layer-rendezvous-timeout",
        "no cause recognised; the ranks timed out waiting for each other at torch's store (the rendezvous): the "
        "launch layer did not start every rank, or the rendezvous layer cannot connect them",
        f"check that every node started its ranks (the job's output per node) and can reach the store's host and "
        f"port (`MASTER_ADDR`/`--rdzv_endpoint`); where the ranks waited for NCCL's id from rank 0, read rank 0's "
        f"output first (a rank 0 that failed or stalled before init leaves the others waiting); {_NEXT_CHECK}",
        # torch v2.13.0 torch/distributed/distributed_c10d.py line 1082 (_store_based_barrier) "Timed out
        # initializing process group in store based barrier on rank {rank}, ..." ("on rank: N" before 2.1); and
        # ProcessGroupNCCL.cpp broadcastUniqueNCCLID() (2.x, stored copies whose tags are not recorded):
        # c10::str("[", rank_, "] is setting up NCCL communicator and " "retrieving ncclUniqueId from [0] via c10d
        # key-value store by key '", storeKey, "', but store->get('", storeKey, "') got error: ") ("retreiving" in
        # older ones) with the store's timeout, "Socket Timeout" or "wait timeout after %dms": rank 0 never
        # published NCCL's id (it failed or stalled before init, or the others cannot reach its store).
        (r"Timed out after \d+ seconds waiting for clients\. \d+/\d+ clients joined",
         r"DistStoreError: wait timeout after \d+ ?ms",
         r"Timed out initializing process group in store based barrier on rank:? \d+",
         r"is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from \[0\] via c10d key-value store by "
         r"key '[^']{1,100}', but store->get\('[^']{1,100}'\) got error: (?:Socket Timeout|wait timeout after)"),
        24,
    ),
    Cause(
        "layer-rendezvous-closed",
        "no cause recognised; torchrun's rendezvous was closed under this node's agent: another node's agent "
        "closed it when its own ranks failed or it gave up (its restarts spent), so the cause is in the first "
        "node that failed; the launch layer",
        "read every node's output for the first error in time (the node whose ranks failed first, or whose "
        "torchrun exited first: `grep -n -m1 -e Traceback -e Error` per node's lines); `--max-restarts` gives "
        "failed ranks another try; a fixed `--rdzv_id` shared with an earlier job on a store that outlived it "
        f"(etcd) finds that job's closed rendezvous: give each job its own (`$SLURM_JOB_ID`); {_NEXT_CHECK}",
        # torch 2.13 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py line 677 `raise
        # RendezvousClosedError` (api.py line 39, no message) when the rendezvous state says closed.
        (r"\bRendezvousClosedError\b",),
        23,
    ),
    Cause(
        "layer-hang-after-init",
        "no cause recognised; a collective stopped after the communicators were set up (torch's watchdog or "
        "heartbeat monitor gave up): the fabric layer or a rank that stopped making progress",
        f"{_NEXT_NCCL.replace('INIT,NET,BOOTSTRAP', 'INIT,NET,COLL')}; run the nccl-tests `all_reduce_perf` on the "
        f"same nodes; `TORCH_NCCL_DUMP_ON_TIMEOUT=1` says which collective each rank was in; {_NEXT_CHECK}",
        (r"Heartbeat monitor timed out", r"watchdog got stuck for \d+ seconds",
         r"NCCL communicator was aborted on rank"),
        22,
    ),
    Cause(
        "layer-fabric-error",
        "no cause recognised; NCCL reports a network or system call failure (ncclSystemError or ncclRemoteError): "
        "the fabric layer or a remote rank that exited first",
        f"{_NEXT_NCCL}; on the nodes `ibv_devinfo` (InfiniBand, RoCE) or `fi_info -p cxi` / `fi_info -p efa` "
        f"(libfabric) shows whether the network cards are up; read the other ranks' first error; {_NEXT_CHECK}",
        # NCCL's socket layer when the other end went away (src/misc/socket.cc, 2.21 to 2.30: "socketProgress:
        # Connection closed by remote peer %s", and recv's ECONNRESET "Connection reset by peer").
        (r"ncclSystemError: System call \(e\.g\. socket, malloc\) or external library call failed",
         r"NCCL WARN .{0,200}?(?:Connection closed by remote peer|Connection reset by peer)",
         r"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting",
         r"unhandled system error\b", r"remote process exited or there was a network error",
         _IB_COMPLETION_ERROR),
        20,
        applies=lambda log: log.has(_FAILED) or log.has(_IB_COMPLETION_ERROR),
    ),
    Cause(
        "layer-nccl-bootstrap-mismatch",
        "no cause recognised; NCCL's ranks exchanged bootstrap messages of different sizes: the software layer, "
        "most often ranks that load different NCCL builds (a container on one node, a wheel on another), or a "
        "NCCL release's own bug",
        "compare the NCCL each rank loads (`NCCL_DEBUG=VERSION`, or the `NCCL version` line of every rank with "
        "`NCCL_DEBUG=INFO`) and use one build on every node (the same image, the same torch wheel); if they agree, "
        "try another NCCL release (NVIDIA/nccl#1176: 2.19's bootstrap); " + _NEXT_CHECK,
        # NCCL src/bootstrap.cc WARN("Message truncated : received %d bytes instead of %d", ...): v2.18.5-1 line 73,
        # v2.21.5-1 lines 77 and 87, v2.30.7-1 lines 224 and 236 (line 249 "received %d,%d bytes instead of %d,%d").
        (r"NCCL WARN Message truncated : received [\d,]+ bytes instead of [\d,]+",),
        19,
    ),
    Cause(
        "layer-nccl-tests-hang-in-node",
        "no cause recognised; nccl-tests started its ranks, all on {node}, and never printed a result: its first "
        "collective did not complete inside one node (it hung, or failed with the error above), which points to "
        "the host layer, the path between its GPUs (PCIe peer-to-peer through the IOMMU or PCIe ACS, or shared "
        "memory)",
        "rerun with `NCCL_P2P_DISABLE=1`: if it then completes, peer-to-peer is the fault (NCCL's troubleshooting "
        "guide: the IOMMU in passthrough, `iommu=pt`, or off, and PCIe ACS disabled on the switches, which the "
        "admins set in the BIOS or with setpci; `dmesg | grep -i -e DMAR -e AMD-Vi -e IO_PAGE_FAULT` shows faults, "
        "`lspci -vvv | grep ACSCtl` the ACS state); `nvidia-smi topo -m` shows the path between the GPUs; "
        f"{_NEXT_NCCL.replace('INIT,NET,BOOTSTRAP', 'INIT,P2P,SHM')}",
        # nccl-tests v2.17.6 src/util.cu line 566, the ranks' list (the host each runs on); no result row (line 424)
        # nor "# Avg bus bandwidth" (line 644) followed.
        (_NCCL_TESTS_RANK,),
        21,
        applies=_nccl_tests_gave_no_result,
        hits_show=lambda found: _one_node(found),
    ),
    Cause(
        "layer-nccl-tests-hang",
        "no cause recognised; nccl-tests started its ranks on several nodes ({node} and others) and never printed "
        "a result: its first collective did not complete (it hung, or failed with the error above), which points "
        "to the fabric between the nodes (or a node's own GPU path)",
        "run it on each node alone (`-g` GPUs, one node): a node that hangs alone has a host fault (rerun it with "
        "`NCCL_P2P_DISABLE=1`); if each completes alone, the fabric: `ibv_devinfo` (port state, link layer), "
        f"`fi_info -p PROVIDER` on libfabric systems, {_NEXT_NCCL.replace('INIT,NET,BOOTSTRAP', 'INIT,NET')}; "
        f"{_NEXT_CHECK}",
        (_NCCL_TESTS_RANK,),
        20,
        applies=_nccl_tests_gave_no_result,
        hits_show=lambda found: not _one_node(found),
    ),
    Cause(
        "layer-nccl-tests-wrong-results",
        "no cause recognised; nccl-tests found wrong data in a collective's result (#wrong, or out-of-bounds "
        "values): the path the data took corrupted it (within a node PCIe peer-to-peer through PCIe ACS or the "
        "IOMMU, across nodes the network card's writes into GPU memory, GPUDirect RDMA), or the NCCL release has a "
        "bug for this collective, size or protocol",
        "narrow it down one change at a time, each a rerun of the same test: `NCCL_P2P_DISABLE=1` (the GPUs' "
        "PCIe path: then ACS/IOMMU, see NCCL's troubleshooting guide), `NCCL_NET_GDR_LEVEL=LOC` (no GPUDirect "
        "RDMA: then the driver or the PCIe path to the NIC), `NCCL_PROTO=Simple` (a protocol: then report it "
        "with the NCCL version), and another NCCL release (release notes list fixed corruptions); `nvidia-smi -q` "
        "and `dmesg` for ECC and IOMMU faults; " + _NEXT_CHECK,
        # nccl-tests v2.17.6 src/util.cu line 480 (#wrong, "%6g") and line 643 "# Out of bounds values : %d %s"
        # (the same words since 2019, src/common.cu line 875 at a2af1d9), also quoted without its "# ".
        (_NCCL_TESTS_WRONG, r"Out of bounds values : [1-9]\d{0,12} FAILED"),
        21,
    ),
    Cause(
        "layer-gpu-error",
        "no cause recognised; a CUDA call failed inside NCCL (ncclUnhandledCudaError): the host layer's GPUs, "
        "driver or peer-to-peer path",
        "`nvidia-smi -q` (errors, ECC, Xid in `dmesg`) and `nvidia-smi topo -m` (the paths between GPUs) on the "
        f"node; {_NEXT_NCCL}; {_NEXT_CHECK}",
        (r"ncclUnhandledCudaError: Call to CUDA function failed", r"unhandled cuda error\b",
         r"NCCL WARN Cuda failure (?:\d+ )?'"),
        18,
    ),
    Cause(
        "layer-nccl-internal",
        "no cause recognised; NCCL stopped at one of its own checks (ncclInternalError), most often while "
        "searching the node's topology: the software layer, an NCCL too old for these GPUs or this topology",
        "compare the NCCL version the job printed (`NCCL version`) with the GPUs (`nvidia-smi -L`): each GPU "
        "generation needs a NCCL that knows it (NCCL's release notes); try the newest NCCL your torch accepts; "
        f"{_NEXT_NCCL.replace('INIT,NET,BOOTSTRAP', 'INIT,GRAPH')} (it says which check failed); "
        "`nvidia-smi topo -m` shows the topology it read",
        # NCCL's topology and graph checks (src/graph/rings.cc v2.14.3-1 and v2.18.5-1 line 38, v2.30.7-1 line 51
        # WARN("Error : ring %d does not loop back to start (%d != %d)", ...), line 51/64 "Error : ring %d does not
        # contain rank %d"; src/graph/paths.cc v2.18.5-1 line 167, v2.30.7-1 line 192 "Error : could not find CPU
        # close to GPU %d"), each failing the communicator with ncclInternalError; nccl-tests v2.17.6 src/common.h
        # line 46 NCCLCHECK printf("%s: Test NCCL failure %s:%d '%s / %s'\n", ...) with NCCL's error string.
        (r"NCCL error in: \S{1,300}, internal error\b", r"ncclInternalError: Internal check failed",
         r"NCCL WARN Error : (?:ring \d+ does not (?:loop back to start|contain rank \d+)|could not find CPU close to "
         r"GPU \d+)",
         r"\bTest NCCL failure \S{1,300}:\d+ 'internal error\b"),
        17,
    ),
    Cause(
        "layer-ucx-error",
        "no cause recognised; UCX (the transport under Open MPI, HPC-X's NCCL plugin and UCC) reported an error: the "
        "fabric layer, or the devices and transports UCX chose on these nodes ({what})",
        "`ucx_info -d` on each node lists the devices and transports UCX sees; rerun with `UCX_LOG_LEVEL=info` to "
        "see what it chose, and pin them to the fabric's (`UCX_NET_DEVICES=mlx5_0:1`, `UCX_TLS=rc,sm,self`; TCP on "
        "a named interface, `UCX_NET_DEVICES=eth0`, never the loopback); `ibv_devinfo` shows the ports' state; "
        "user-space RDMA libraries (in the image) newer than the host's driver stack fail here too; " + _NEXT_CHECK,
        # UCX v1.18.0 src/ucs/debug/log.c (UCS_LOG_FMT, UCS_LOG_SHORT_FMT): "[%lu.%06lu] [%s:%-5d:%s] %17s:%-4u %-4s
        # %-5s %*s%s", file and line, "UCX", the level; its errors' texts are ucs_status_string()'s
        # (src/ucs/type/status.c: "Destination is unreachable", "Input/output error", "Endpoint timeout").
        (r"\w\.c:\d+ {1,6}UCX {1,4}ERROR (?P<what>[^\n]{1,200})",),
        16,
        applies=lambda log: log.has(_FAILED) or log.has(_UCX_UNCONNECTED),
    ),
    Cause(
        "layer-file-lock-wait",
        "no cause recognised; processes kept waiting for a lock on {file} that none of them got (or gave up on it): "
        "the host layer, the file system that holds it (a shared one whose locks are slow or never granted, "
        "NFS or Lustre), or a lock file left by a process that was killed",
        "`df -T DIR` names the lock file's file system; `lsof FILE` (or `fuser FILE`) on each node shows who holds "
        "it; move the cache it guards to node-local disk (`TRITON_CACHE_DIR`, `HF_HOME`, `TORCHINDUCTOR_CACHE_DIR` "
        "under `$TMPDIR`) and delete a stale `.lock` no running process holds",
        # filelock 3.13.1 src/filelock/_api.py line 254 _LOGGER.debug("Attempting to acquire lock %s on %s", lock_id,
        # lock_filename), printed at each try while the lock is not held (never followed by line 257's "Lock %s
        # acquired on %s"), and src/filelock/_error.py line 17 f"The file lock '{self._lock_file}' could not be
        # acquired." (the Timeout raised when a timeout was given).
        (r"Attempting to acquire lock \d+ on (?P<file>\S{1,300})",
         r"The file lock '(?P<file>[^'\n]{1,300})' could not be acquired"),
        15,
        applies=lambda log: not log.has(_LOCK_ACQUIRED),
        hits_show=lambda found: _waited_on_one_file(found),
    ),
)
#: UCX's log line at ERROR level (UCX v1.18.0 src/ucs/debug/log.c line 33 UCS_LOG_SHORT_FMT and line 34 UCS_LOG_FMT,
#: their UCS_LOG_METADATA_FMT "%17s:%-4u %-4s %-5s %*s": the source file and line, then "UCX", then the level).
_UCX_ERROR = r"\w\.c:\d+ {1,6}UCX {1,4}ERROR "
#: UCX's ERROR that says the peers could not be connected (ucs_status_string(), v1.18.0 src/ucs/type/status.c):
#: UCX logs other ERRORs (a device it cannot open, out of locked memory) and goes on with its other transports,
#: so those count only in a run that failed.
_UCX_UNCONNECTED = (_UCX_ERROR + r".{0,300}?(?:Destination is unreachable|Failed to connect some of the requested "
                    r"endpoints|Endpoint timeout|Connection reset by remote peer|Operation rejected by remote peer"
                    r"|Endpoint is not connected)")
#: Lightning 2.6.5 (src/lightning/fabric/utilities/distributed.py line 293): every rank registered.
_LIGHTNING_REGISTERED = r"All distributed processes registered\. Starting with \d+ processes"
#: filelock (3.13.1 src/filelock/_api.py) logs "Lock %s acquired on %s" once it holds the lock.
_LOCK_ACQUIRED = r"\bLock \d+ acquired on "

VERDICT_LAYER = {
    "layer-one-node-only": "launch",
    "layer-mpi-init-failed": "launch",
    "layer-nccl-invalid-usage": "launch",
    "layer-rank-started-twice": "launch",
    "layer-lightning-ranks-never-registered": "rendezvous",
    "layer-container-start-failed": "container",
    "layer-pmix-exchange-failed": "launch",
    "layer-one-node-error": "host",
    "layer-rendezvous-timeout": "rendezvous",
    "layer-rendezvous-closed": "launch",
    "layer-hang-after-init": "fabric",
    "layer-fabric-error": "fabric",
    "layer-nccl-bootstrap-mismatch": "software",
    "layer-nccl-tests-hang-in-node": "host",
    "layer-nccl-tests-hang": "fabric",
    "layer-nccl-tests-wrong-results": "host",
    "layer-gpu-error": "host",
    "layer-nccl-internal": "software",
    "layer-ucx-error": "fabric",
    "layer-file-lock-wait": "host",
}

FACTS = (_NCCL_MULTI_NODE, _IB_COMPLETION_ERROR, _UCX_UNCONNECTED, _LOCK_ACQUIRED, _LIGHTNING_REGISTERED)
