"""The one table of what `python -m app.diagnose` recognises: each known cause, the log lines that show it, and
its fix.

Every pattern is a message its program really prints, taken from that program's source or from logs quoted
in public issue threads (tests/diagnose/logs/ keeps the quotes with their sources):

- torch: `RendezvousTimeoutError` (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py),
  `[Rank N] Watchdog caught collective operation timeout: WorkNCCL(...)` (ProcessGroupNCCL.cpp),
  `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...` (c10/cuda/CUDACachingAllocator.cpp);
- NCCL: `Duplicate GPU detected : rank A and rank B both on CUDA device X` (src/init.cc to 2.29),
  `Multiple ranks detected using the same GPU on this node` (src/graph/topo.cc, 2.30.4), `Multiple Ranks are
  using the same GPU/Partition` (src/init.cc, 2.30.7),
  `NCCL WARN Error: network AWS Libfabric not found.` (src/plugin/net.cc to 2.26) and its successor
  `NCCL WARN Failed to initialize any NET plugin` (2.27 and later), `Using network Socket`,
  `via NET/Socket/0`, `NET/IB : No device found`;
- aws-ofi-nccl 1.18.0: `NET/OFI Selected provider is cxi` (src/nccl_ofi_net.cpp), `OFI fi_getinfo() call
  failed: No data available` (src/nccl_ofi_rdma.cpp);
- libfabric 1.22.0: `fi_getinfo: provider efa output empty list` (src/fabric.c);
- glibc's loader: ``version `FABRIC_1.8' not found (required by .../libnccl-net.so)``;
- libibverbs: `libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0`;
- Slurm 25.11.7: `*** JOB 12 ON node1 CANCELLED AT ... DUE TO TIME LIMIT ***` and `... DUE TO NODE FAILURE, SEE
  SLURMCTLD LOG FOR DETAILS ***` (src/slurmd/slurmstepd/req.c), `srun: error: Node failure on node1`
  (src/srun/allocate.c), `Invalid generic resource (gres) specification`, `Invalid qos specification`,
  `Invalid account or account/partition combination specified` (src/common/slurm_errno.c);
- PBS Pro / OpenPBS: `=>> PBS: job killed: walltime 7230 exceeded limit 7200` and the MoM's other kills (mem,
  vmem, cput, ncpus; src/resmom/mom_main.c), qsub's refusals in the server's words (src/lib/Liblog/pbs_messages.c),
  pbsdsh's and pbs_tmrsh's task-manager errors (src/cmds/pbsdsh.c, pbs_tmrsh.c);
- the node and runtime causes at the end of the table, each message at its source:
  NCCL (v2.21.5-1 and v2.30.4-1): `Error: failed to extend %s to %ld bytes`, `Error while creating shared memory
  segment %s (size %ld), error: %s` and `unlink shared memory %s failed` (src/misc/shmutils.cc, src/os/linux.cc),
  `Bootstrap : no socket interface found`, `NET/Socket : No usable listening interface found` (src/bootstrap.cc),
  `ncclSocketInit: ... is neither AF_INET(2) nor AF_INET6(10)` (src/misc/socket.cc), `Call to ibv_reg_mr failed
  with error %s`, `Call to ibv_modify_qp failed with %d %s` (src/misc/ibvwrap.cc), `NET/IB : Got completion from
  peer %s with status=%d ...` (src/transport/net_ib.cc; net_ib/p2p.cc prints the status by name), `XML Import
  Channel : dev %ld not found.` (src/graph/search.cc), `Cuda failure %d '%s'` (src/include/cudawrap.h, from
  transport/nvls.cc and transport/shm.cc); the shm errors' older form `Call to posix_fallocate failed`, `Call to
  shm_open failed` (include/shm.h, NVIDIA/nccl#342, #328); the causes: NVIDIA/nccl#976 and #1488 (NVLS after a
  Fabric Manager restart), #1838 (cuMem host memory without P2P), #2013 (rail-only fabric, NCCL_CROSS_NIC=0), #426
  (RoCE GID, error 12), #210 and #1837 (bootstrap interface), NVIDIA/nccl-tests#206 (memlock) and #264 (Fabric
  Manager down), NCCL's troubleshooting guide (/dev/shm size, systemd RemoveIPC);
  aws-ofi-nccl: `Unable to register memory (type = %d) for device %d. RC: %d, Error: %s` (src/nccl_ofi_rdma.cpp),
  awslabs/awsome-distributed-ai#203 (EINVAL: EFA installer before 1.29.1);
  CUDA's error strings `system not yet initialized` (802, cudaErrorSystemNotReady), `invalid device ordinal` and
  `CUDA driver version is insufficient for CUDA runtime version` (35); torch's `The NVIDIA driver on your system
  is too old (found version %d)` (c10/cuda/CUDAFunctions.cpp);
  torch: `ProcessGroupNCCL is only supported with GPUs, no GPUs found!` (ProcessGroupNCCL.cpp), `The server socket
  has failed to listen on any local network address` (c10d/socket.cpp), `Torch not compiled with CUDA enabled`;
  Slurm: `Requested node configuration is not available` (src/common/slurm_errno.c), `Detected %u oom-kill
  event(s) in %s` and, since 22.05, `Detected %lu oom_kill event%s in %ps` (task/cgroup), srun's `task %d: Out Of
  Memory`; --gpus-per-task implies --gpu-bind=per_task (srun man page);
  Apptainer 1.4: `destination %s doesn't exist in container` (internal/pkg/runtime/engine/apptainer/
  container_linux.go, which also gives --contain a private /dev/shm tmpfs), `image targets '%s', cannot run on
  '%s'` (.../process_linux.go), `SIF image %s is corrupted: wrong partition size` (pkg/image/sif.go);
  apptainer/singularity#5935 (--nv and libcuda.so.1);
  enroot 4.1: `failed to set capabilities`, `failed to create user namespace` (bin/enroot-*.c), NVIDIA/enroot#141
  (enroot+caps), #195 (a large uid); NVIDIA/pyxis#41 (runtime_path full, mksquashfs' `Write failed because %s`);
  PMIx: `PMIX ERROR: %s in file %s at line %d` (src/util/error.h), openpmix/openpmix#3204 and
  apptainer/singularity#5195 (`PMIX_MCA_gds=hash`);
  DeepSpeed 0.19: `CUDA_HOME does not exist, unable to compile CUDA op(s)` (op_builder/builder.py), the mpi4py
  import of its MPI discovery (comm/comm.py), its launcher's `ssh HOST hostname -I` (launcher/runner.py);
  OpenSSH's `ssh: Could not resolve hostname %s: %s`; glibc's loader (`undefined symbol: nccl...`,
  pytorch/pytorch#119932);
- this project: the job scripts' `<script>: error: ...` lines (app/host/launch/say.py), app.check's
  `VERDICT: FAIL (...): ... Fix: ... exit code N` (app/check/report.py), the trainer's hang verdict
  `hang: rank 1 (node2) stopped answering ...` (app/train/assemble.py, also in summary.json).

The last section of the table, "from the components' sources", reads messages taken from each component's
source at the versions users run (NCCL, aws-ofi-nccl, libfabric, rdma-core, the CUDA runtime and NVML strings,
Slurm, OpenPBS, Open MPI, PMIx, Apptainer, enroot, pyxis, libnvidia-container, DeepSpeed, nccl-tests, torch, Gloo,
OpenSSH, Cray MPICH, Linux, kmod, bash, glibc, CPython, munge, squashfs-tools, squashfuse, libfuse):
tests/diagnose/component_source_lines.py quotes each statement with its version, path and line, and the test
beside it checks the printed line against the statement and the cause named. Where each cause sits in the
stack and how sure its reading is: app/host/diagnose/layers.py, which also holds the layer verdicts given when no
cause fits; docs/diagnose.md lists both, generated (app/host/diagnose/catalogue.py).

Fixes are written here once. Where the project already words one (app/host/common/remedies.py, the fabric policy's
values through app/host/common/fabric_policy.py) it is imported, not retyped. The symptom tables of docs/job-scripts.md
are tested against this table (tests/diagnose/test_readme_tables.py): each row whose symptom is a log line names,
in `readme`, the rule that must recognise it, and every command or setting the row's fix column quotes must
appear in that rule's fix. Tested rather than generated, because the tables' rows are prose written per site
(MareNostrum 5, any Slurm, GH200 on PBS), while a rule's fix must also serve logs of jobs that never used this
project's scripts.
"""

import re
from typing import Callable, Match, NamedTuple, Optional, Sequence, Tuple

from app.host.common import fabric_policy as policy
from app.host.common import remedies
from app.host.diagnose.logview import LineFact, LogView


class Cause(NamedTuple):  # NamedTuple, not a frozen dataclass: dataclasses are 3.7+, the login nodes run 3.6
    key: str
    """A short name, stable for tests and scripts (`--list` shows them)."""
    cause: str
    """The cause in one sentence; `{name}` fields are filled from the first matching line's named groups."""
    fix: str
    """What to change: the setting, the command, or the job-script option."""
    patterns: Tuple[str, ...]
    """Regular expressions (searched, case-sensitive) for the lines that show the cause."""
    weight: int
    """Order among the findings of one log: a root cause outranks its consequences (higher first)."""
    applies: Optional[Callable[[LogView], bool]] = None
    """A condition on the whole log, for lines that mean this cause only in some contexts."""
    readme: Tuple[str, ...] = ()
    """Text of the symptom cells (docs/job-scripts.md's `| symptom | cause | fix |` tables) this rule answers."""
    context: Tuple[str, ...] = ()
    """Patterns (case-insensitive) for lines that support the reading, quoted after the lines that show it."""
    hits_show: Optional[Callable[[Sequence[Match[str]]], bool]] = None
    """A condition on the lines that matched (the first MAX_KEPT), for a reading that needs several of them:
    one node named in every line, two versions among them."""


def _atomic(name: str, pattern: str) -> str:
    """`(?>pattern)` for Python 3.6 (atomic groups are 3.11+): a lookahead keeps what `pattern` matched and never
    backtracks into it, the backreference `name` consumes it; the same match and the same linear time."""
    return f"(?=(?P<{name}>{pattern}))(?P={name})"


# --- the context the conditional rules read ------------------------------------------------------------------

_SLINGSHOT = r"/dev/cxi|\bcxi\d|provider is cxi|\bhsn\d|slingshot|\.cray\.com|/opt/cray/"
_FAST_FABRIC = (r"\bmlx5_\d|\bhsn\d|/dev/cxi|provider is cxi|\bib\d\b|/dev/infiniband"
                r"|NCCL_SOCKET_IFNAME=(?:hsn|ib)|slingshot|infiniband")
_LAUNCHER = re.compile(r"\b(?:mpiexec|mpirun|srun|pbsdsh|pdsh|clush|aprun)\b", re.IGNORECASE)
_TORCHRUN = re.compile(r"\btorchrun\b", re.IGNORECASE)


def _launches_per_node(text: str) -> bool:
    """A launcher that starts one process per node, with torchrun later on the same line (or this project's
    launcher check). Two searches, not one `launcher.*torchrun` pattern: that one rescans the rest of the line
    from every launcher word, quadratic on a long `srun ...` line."""
    launcher = _LAUNCHER.search(text)
    if launcher and _TORCHRUN.search(text, launcher.end()):
        return True
    return "launcher check: one process on each" in text


_per_node_launch = LineFact(_launches_per_node, ("torchrun", "launcher check: one process on each"))


#: srun's one-GPU-per-task binding, which makes every task's GPU device 0 (Slurm docs: --gpus-per-task implies
#: --gpu-bind=per_task).
_GPUS_PER_TASK = r"--gpus-per-task|SLURM_GPUS_PER_TASK"
#: The program selects its GPU by the global rank, as a traceback quotes the line: `torch.cuda.set_device(
#: dist.get_rank())`, `set_device(int(os.environ["RANK"]))`, `set_device(global_rank)`.
_DEVICE_FROM_GLOBAL_RANK = (r"set_device\((?:(?:dist|torch\.distributed)\.get_rank\(\)"
                            r"|int\(os\.environ\[['\"]RANK['\"]\]\)|global_rank|args\.global_rank)\)")

_NODE_COUNT = (r"--nnodes[= ](\d+)|number of nodes\D{0,20}(\d+)|\bselect=(\d+)|SLURM_(?:JOB_)?NNODES=(\d+)"
               r"|SLURM_JOB_NUM_NODES=(\d+)|\bnNodes (\d+)|--num_nodes[= ](\d+)")


#: The same, for counts above one: the job had more than one node (also the lines quoted as context).
_NODE_COUNT_MULTI = _NODE_COUNT.replace(r"(\d+)", r"([2-9]|[1-9]\d+)\b")


def _multi_node(log: LogView) -> bool:
    """The job had more than one node: torchrun's --nnodes, a node count the job printed, PBS select=, Slurm's."""
    return log.has(_NODE_COUNT_MULTI)


def _one_launcher(log: LogView) -> bool:
    return _multi_node(log) and not log.has(_per_node_launch)


def _rendezvous_unreachable(log: LogView) -> bool:
    return not _one_launcher(log)


#: NCCL 2.27 and later: `WARN("Failed to initialize any NET plugin")` (nccl src/plugin/net.cc, v2.27.3-1 to
#: v2.30.7-1), which no longer names the network; up to 2.26 `WARN("Error: network %s not found.")`
#: (src/net.cc to v2.25.1-1, src/plugin/net.cc at v2.26.6-1).
_NO_NET = r"NCCL WARN Failed to initialize any NET plugin"
#: NCCL's "Error: network %s not found." (src/net.cc, src/plugin/net.cc, 2.21 to 2.26): NCCL_NET named a network
#: no plugin or internal transport provides.
_NET_NOT_FOUND = r"NCCL WARN Error: network [^\n]{1,60} not found"
#: NCCL_NET_PLUGIN=NAME whose libnccl-net-NAME.so is not there (see "nccl-net-plugin-env-names-missing-library").
_NET_PLUGIN_NAMED_MISSING = (r"NET/Plugin ?: (?:Could not find:[^\n]{0,300}?|No plugin found \(|dlerror=[^\n]{0,500}? "
                             r"No plugin found \()libnccl-net-(?P<plugin>(?!none\.so)[\w.+-]{1,60}?)\.so\b")
#: The network the job asked NCCL for: this project's policy preview (`setting NCCL_NET=IB`), an `export`, or
#: an environment dump.
_NCCL_NET_IB = r"\bNCCL_NET=[\"']?IB\b"
_NCCL_NET_OFI = r"\bNCCL_NET=[\"']?(?:AWS )?Libfabric"
#: NCCL_DEBUG=INFO lines that say which network failed: with NCCL_NET=IB NCCL probes the IB devices and finds
#: none (src/transport/net_ib); the plugin's `NET/Plugin: Could not find:` is also printed there, so it counts
#: only where no IB probe failed.
_IB_PROBE_FAILED = r"NET/IB : No device found"
#: The job narrowed NCCL's HCAs: NCCL's INFO "NCCL_IB_HCA set to %s" (src/transport/net_ib.cc v2.21.5-1 line 413,
#: net_ib/init.cc v2.30.7-1 line 318), or the variable in an environment dump or export.
_IB_HCA_SET = r"NCCL_IB_HCA set to|\bNCCL_IB_HCA=\S"
#: NCCL's network calls failed (its error strings and torch's reading of them): a listed bridge explains them.
_NCCL_NET_FAILED = (r"ncclSystemError|ncclRemoteError|unhandled system error"
                    r"|remote process exited or there was a network error")
#: The job failed (not only warned): a Python traceback, torch's failure reports, srun's failed tasks, a C++
#: abort, NCCL's error strings. Readings of lines that healthy runs may also print (NCCL's WARN lines, its
#: socket errors at shutdown, the versions each rank logs) need one.
_FAILED = (r"Traceback \(most recent call last\)|ChildFailedError|DistBackendError|Exited with exit code [1-9]"
           r"|terminate called after throwing|" + _NCCL_NET_FAILED + r"|exitcode\s*: -?[1-9]")
#: An MPI's own libraries, as the loader names a requirer: Open MPI's libmpi and libopen-pal or its ofi components,
#: MPICH's and Intel MPI's libmpi, Cray MPICH's libmpi_cray.
_MPI_LIBRARY = r"(?:libmpi\w{0,20}|libopen-pal|mca_(?:mtl|btl)_ofi)\.so[\d.]{0,12}"
#: A libfabric domain that could not be opened with -FI_ENOSYS (-38), as aws-ofi-nccl and other callers print it.
_FI_DOMAIN_ENOSYS = r"Couldn't open a fabric access domain\. RC: -38\b|\bfi_domain(?:\(\))? failed: -38\b"
#: Slurm's SPANK plugin stack failed to load (srun_job.c line 699, slurmstepd's task.c line 438, spank.c line 570).
_SPANK_STACK_FAILED = (r"srun: error: Plug-in initialization failed|Failed to invoke spank plugin stack"
                       r"|spank: Failed to open \S")
#: enroot could not start the container: a hook that failed (enroot v3.1.0 to v4.1.2 src/common.sh common::runparts
#: `"${file}" || common::err "${file} exited with return code $?"`), its mount of the image (src/runtime.sh line 207
#: `common::err "Failed to mount: ${image}"`, common::log's "[ERROR]" prefix), pyxis' report of it
#: (src/pyxis_slurmstepd.c "pyxis: container start failed").
_ENROOT_START_FAILED = (r"/enroot/hooks\.d/\S{1,200} exited with return code [1-9]|^\[ERROR\] Failed to mount: "
                        r"|pyxis: container start failed|pyxis: couldn't start container")
#: Open MPI's TCP transport speaking: its BTL_ERROR lines (file:line:function) or its "client connect fail" help
#: text (v4.1.6, v5.0.6 opal/mca/btl/tcp/help-mpi-btl-tcp.txt), whose "Error:" line alone says no program.
_OMPI_TCP_BTL = r"Open MPI failed to TCP connect to a peer MPI process|\bbtl_tcp_endpoint\.c:\d+:mca_btl_tcp_endpoint_"
#: A segmentation fault on memory mapped without CPU access (SEGV_ACCERR), as a CUDA device buffer is to the CPU:
#: Open MPI's signal handler (v5.0.9 opal/util/stacktrace.c line 420 "Signal code: %s (%d)", si_code_str
#: "Invalid permissions" at line 255), UCX's (src/ucs/debug/debug.c, "invalid permissions for mapped object").
_SEGV_ACCERR = r"Signal code: Invalid permissions \(2\)|Segmentation fault: invalid permissions for mapped object"
#: pyxis or enroot started the job's container: pyxis' own lines ("pyxis: importing docker image", its errors),
#: srun's --container-image option, enroot's commands.
_ENROOT_RUN = r"\bpyxis: |--container-image[= ]|\benroot (?:start|create|import)\b"
#: enroot's mount of a squashfs image failed (enroot v4.1.2 src/runtime.sh line 207).
_ENROOT_MOUNT_FAILED = r"^\[ERROR\] Failed to mount: "
#: pyxis' own report of a full runtime path (its import's mksquashfs or its unpacking).
_PYXIS_FULL = r"pyxis:[^\n]{0,80}(?:No space left on device|Failed to write to output filesystem)"
#: A program took a POSIX lock on a file: the traceback's call (fcntl.lockf, fcntl.flock), the filelock package
#: (its path in a traceback, its DEBUG "Attempting to acquire lock"), MPI-IO's (ROMIO's ADIOI_Set_lock, later
#: ADIOI_GEN_SetLock).
_LOCK_CALL = (r"\bfcntl\.(?:lockf|flock)\b|[/\\]filelock[/\\]|Attempting to acquire lock \d+ on "
              r"|\bADIOI_(?:Set_lock|GEN_SetLock)\b")
#: The process group's setup failed: a traceback through init_process_group's rendezvous (torch 1.x to 2.13
#: torch/distributed/distributed_c10d.py `store, rank, world_size = next(rendezvous_iterator)`), or the errors its
#: store raises when the other ranks never came (torch.distributed's DistStoreError, DistNetworkError, elastic's
#: RendezvousTimeoutError). A launcher that warned it would run on this node only, followed by this, started fewer
#: ranks than the job's world.
_INIT_FAILED = (r"next\(rendezvous_iterator\)|in init_process_group$|\b(?:DistStoreError|DistNetworkError"
                r"|RendezvousTimeoutError)\b")
#: srun got its step after waiting: Slurm 25.11.7 src/srun/launch.c line 1245, info("Step created for %ps", ...).
_STEP_CREATED = r"Step created for \S"
#: NET/Plugin: NCCL 2.21 "No plugin found (%s)" (src/net.cc), 2.22 and later "Could not find:%s"
#: (src/net.cc, src/plugin/plugin_open.cc).
_OFI_HINTS = _SLINGSHOT + r"|NET/Plugin: Could not find|NET/Plugin: No plugin found|NET/OFI|aws-ofi-nccl"


def _net_asked_for(log: LogView) -> str:
    """Which network a `Failed to initialize any NET plugin` was about: "ib" or "ofi" (also when the log
    does not say: the libfabric plugin is the network NCCL is most often told to use and cannot find)."""
    if log.has(_NCCL_NET_IB):
        return "ib"
    if log.has(_NCCL_NET_OFI):
        return "ofi"
    if log.has(_IB_PROBE_FAILED):
        return "ib"
    return "ofi"


_VIA_SOCKET = r"via NET/Socket"
#: The network NCCL chose (v2.21.5-1 src/init.cc line 322 INFO "Using network %s"): its sockets.
_USING_SOCKET = r"Using network Socket"
#: An AWS EFA node or job: the EFA installer's directory, libfabric's efa provider asked for, its devices (rdmapXsY).
_EFA_NODE = r"/opt/amazon/efa\b|FI_PROVIDER=[\"']?efa\b|\brdmap\d{1,4}s\d{1,4}\b|\bEFA\b"
#: NCCL found no network plugin under its default name, libnccl-net.so, and went on with its internal transports:
#: v2.18.5-1 src/net.cc line 180 "NET/Plugin : No plugin found, using internal implementation", v2.19.3-1 line 231
#: "NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation", v2.21.5-1 line 349 "NET/Plugin:
#: No plugin found (%s)", v2.22.3-1 to v2.25 src/net.cc "NET/Plugin: Could not find:%s. Using internal network
#: plugin.", v2.26.6-1 to v2.28.9-1 src/plugin/plugin_open.cc "%s/Plugin: Could not find:%s. %s" / "...:%s%s%s"
#: (each name after a space). A name NCCL_NET_PLUGIN gave is _NET_PLUGIN_NAMED_MISSING's.
_NET_PLUGIN_DEFAULT_MISSING = (r"NET/Plugin ?: (?:dlerror=[^\n]{0,500}? )?(?:No plugin found(?:, using internal "
                               r"implementation| \(libnccl-net\.so\))|Could not find:(?: \S{1,200}){0,4} "
                               r"libnccl-net\.so\b)")


#: The messages of a process that found no NVIDIA driver library (apptainer-no-nv's first patterns).
_NO_DRIVER_LIB = (r"libcuda\.so(?:\.1)?: cannot open shared object file|unable to find libcuda\.so"
                  r"|Found no NVIDIA driver on your system")
#: An Apptainer/Singularity command that starts a container without the host's GPU driver (no --nv, --nvccli, --rocm
#: on its line), as a prompt or `set -x` shows it.
_CONTAINER_WITHOUT_NV = (r"\b(?:apptainer|singularity) (?:exec|run|shell)\b(?![^\n]{0,2000}?--(?:nv|nvccli|rocm)\b)"
                         r"[^\n]{0,2000}$")
#: The job asked the scheduler for GPUs (Slurm's --gpus/--gres, PBS' ngpus, Kubernetes' resource).
_GPU_ASKED = r"--gpus(?:-per-(?:node|task|socket))?[= ]\d|--gres[= ]gpu|\bngpus=\d|\bnvidia\.com/gpu\b"
#: A program that crashed or found no GPU.
_NO_GPU_SYMPTOM = r"\bSegmentation fault\b|no CUDA-capable device is detected"
#: Apptainer found no nvidia-smi in the container (images carry none; --nv binds the host's): Apptainer v1.5.3
#: internal/pkg/runtime/engine/apptainer/process_linux.go line 883 looks the command up with mvdan.cc/sh v3.13.1
#: interp/handler.go line 280, fmt.Errorf("%q: executable file not found in $PATH", file), printed as FATAL. Not Go's
#: os/exec wording (`exec: "nvidia-smi": ...`), which Docker and other runtimes print.
_NO_NVIDIA_SMI_IN_CONTAINER = r'(?<!exec: )"nvidia-smi": executable file not found in \$PATH'
#: The host's GPU driver was asked for: a container command with --nv or --nvccli, or APPTAINER_NV/SINGULARITY_NV.
_NV_GIVEN = r"\b(?:apptainer|singularity) [^\n]{0,300}?--(?:nv|nvccli)\b|\b(?:APPTAINER|SINGULARITY)_NV=[1tT]"
#: An OCI runtime ran the container's hooks (runc's "error running hook", the NVIDIA runtime or its nvidia-ctk hook).
_CONTAINER_HOOK_RAN = (r"error running (?:hook|createContainer hook)|\bnvidia-ctk\b|--runtime[= ]nvidia"
                       r"|nvidia-container-runtime")
#: torch's TCPStore while it starts: the constructor, its first request (waitForWorkers' add of the workers' count,
#: TCPStore::ping in later releases) as a C++ stack names them, or the server's warning that the listen backlog
#: (net.core.somaxconn) is smaller than the ranks that connect at once (torch v2.13.0 TCPStore.cpp, libtorch_cpu.so:
#: C10D_WARNING("Starting store with {} workers but somaxconn is {}." "This might cause instability during
#: bootstrap, consider increasing it.", ...)).
_TCPSTORE_STARTING = (r"c10d::TCPStore::(?:waitForWorkers|ping)\(\)|c10d::TCPStore::TCPStore\("
                      r"|Starting store with \d+ workers but somaxconn is \d+")


def _plugin_needed_but_socket_used(log: LogView) -> bool:
    """A fabric that NCCL reaches only through a plugin (AWS EFA, HPE Slingshot), and NCCL's traffic between nodes
    went over TCP sockets instead, not because the job chose them."""
    fabric = log.has(_EFA_NODE) or log.has(_SLINGSHOT)
    between_nodes = log.has(_VIA_SOCKET) or (_multi_node(log) and log.has(_USING_SOCKET))
    asked = log.has(_NO_NET) or log.has(_NET_NOT_FOUND)  # NCCL_NET named the plugin: "no-ofi-plugin"
    return fabric and between_nodes and not asked and not log.has(_SOCKET_CHOSEN)
_NO_LIBIBVERBS = r"Failed to open libibverbs"
_SOCKET_CHOSEN = r"NCCL_NET=Socket|FABRIC=none"
_EFA_REFUSED = r"FI_PROVIDER=efa is AWS's provider"
#: libfabric offered its caller no provider: aws-ofi-nccl v1.18.0's fi_getinfo() failure (src/nccl_ofi_rdma.cpp line
#: 7282), its "Unable to find a protocol that worked" (src/nccl_ofi_net.cpp line 281) and "aws-ofi-nccl
#: initialization failed" (line 366), fi_getinfo's -FI_ENODATA as other callers print it.
_NO_PROVIDER_FOUND = (r"fi_getinfo\(\) call failed: No data available|fi_getinfo: -61\b"
                      r"|Unable to find a protocol that worked|NET/OFI aws-ofi-nccl initialization failed")
#: aws-ofi-nccl found a provider (v1.18.0 src/nccl_ofi_net.cpp line 577 "Selected provider is %s, fabric is %s (found
#: %d nics)"): its RDMA protocol's fi_getinfo() may have failed before its SENDRECV protocol found one (line 233 on).
_OFI_PROVIDER_CHOSEN = r"NET/OFI Selected provider is \w"
#: FI_PROVIDER set to exclude providers (`^psm3`): libfabric checks those names too (src/fabric.c ofi_create_filter).
_FI_PROVIDER_EXCLUDES = r"FI_PROVIDER=[\"']?\^"
#: The container runtime's GPU hook failed: libnvidia-container's "initialization error: %s" (src/cli/configure.c)
#: or enroot's report of its hook (src/common.sh line 216, "${file} exited with return code $?").
_GPU_HOOK_FAILED = r"nvidia-container-cli: initialization error|98-nvidia\.sh exited with return code"
#: enroot ran the GPU hook (its 98-nvidia.sh, or pyxis' enroot log): the hook passes `--no-cgroups` to the CLI.
_ENROOT_GPU_HOOK = r"98-nvidia\.sh|pyxis: +nvidia-container-cli|pyxis: printing enroot log"
#: NCCL's queue pair to the other node timed out (src/misc/ibvwrap.cc: 2.24+ "failed with 110 Connection timed
#: out", 2.21-2.23 "failed with error Connection timed out errno 110", v2.18.5-1 line 52 without the errno).
_QP_TIMED_OUT = r"Call to ibv_modify_qp failed with (?:error Connection timed out|(?:error .{1,80}? errno )?110\b)"
#: The network cards are RoCE: NCCL's "NET/IB : Using [0]mlx5_0:1/RoCE" (src/transport/net_ib.cc v2.18.5-1 line 259,
#: v2.21.5-1 line 525), ibv_devinfo's "link_layer: Ethernet" and GID type "RoCE v2" (rdma-core v50.0
#: libibverbs/examples/devinfo.c lines 173 and 635).
_ROCE = r"/RoCE\b|, RoCE v2\b|link_layer:\s+Ethernet"
#: PMIx's data store's lock files (gds/ds12, gds/ds21: gds_ds12_lock_pthread.c, gds_ds21_lock_pthread.c) and its
#: store proper (dstore_*.c, out of resources).
_PMIX_LOCK = r"PMIX ERROR: [\w-]+ in file \S*gds_ds\d+_lock"

def _pmix_error_of_its_own(line: str) -> bool:
    """A PMIx error line that programs which ran fine do not print too: not the ds12/ds21 lock files' teardown
    (_PMIX_LOCK), nor the store's not-found lines ("PMIX ERROR: PMIX_ERR_NOT_FOUND in file dstore_base.c", then
    PMIX_ERROR from the same file), which ALCF's Aurora known issues say single-node jobs print and to ignore."""
    return ("PMIX ERROR:" in line.upper() and re.search(_PMIX_LOCK, line, re.IGNORECASE) is None
            and re.search(r"PMIX ERROR: (?:PMIX_ERR_NOT_FOUND|PMIX_ERROR) in file \S*dstore_base\.c", line,
                          re.IGNORECASE) is None)


_PMIX_OWN_ERROR = LineFact(_pmix_error_of_its_own, ("pmix error:",))
#: An MPI program failed to start: Open MPI's "*** An error occurred in %s" (ompi/errhandler), its runtime's
#: ORTE_ERROR_LOG, PMIx's client "PMIx_Init failed", or any failure _FAILED knows.
_MPI_FAILED = _FAILED + r"|An error occurred in MPI_Init|ORTE_ERROR_LOG|PMIx_Init failed|MPI_ABORT was invoked"
#: ENOSPC on a line a more specific cause explains (/dev/shm, pyxis' runtime path, Apptainer's own directories): the
#: disk is then not the reading, and "disk-full" is left out rather than listed after that cause.
_ENOSPC_EXPLAINED = (r"posix_fallocate failed: No space left on device|failed to extend /dev/shm/"
                     r"|unable to write to file </torch_"
                     r"|Error while creating shared memory segment|pyxis:[^\n]{0,80}No space left on device"
                     r"|Failed to create container process: No space left on device"
                     r"|/var/(?:lib/)?(?:singularity|apptainer)/mnt/[^\n]{0,400}?No space left on device"
                     r"|/build-temp-\d[^\n]{0,400}?No space left on device"
                     r"|^(?:\S{1,40} )?(?:FATAL|ERROR): +(?:While|while extracting|Unable to|container creation failed"
                     r"|Build failed)"
                     r"[^\n]{0,4000}?No space left on device")
#: Apptainer's (and Singularity's) wrapping of a failed unsquashfs when it unpacks a SIF into a sandbox
#: (internal/pkg/image/unpacker/squashfs.go, v1.4.5 line 178: "extract command failed: %s: %s").
_UNSQUASHFS_FAILED = r"extract command failed: "
#: unsquashfs (squashfs-tools 4.4 to 4.7) refusing or failing to set an xattr: unsquashfs_xattr.c's write_xattr.
_UNSQUASHFS_XATTR = (r"write_xattr: (?:could not write xattr \S+ for file |to avoid this error message, either specify "
                     r"|failed to write xattr \S+ for file )")
#: unsquashfs' other failures (4.4 unsquashfs.c: "Write on output file failed because %s", "writer: failed to write
#: file %s", "read_block: failed to read block @0x%llx", "%s uncompress failed with error code %d", BAD_ERROR's
#: "FATAL ERROR:"), the node's full disk, a compressor it lacks: a wrapped failure that shows one is not the xattrs.
_UNSQUASHFS_OTHER = (r"FATAL ERROR|failed because|writer: failed to write file|read_block: |uncompress failed"
                     r"|No space left on device|Disk quota exceeded|Out of memory|compression|SQUASHFS superblock")
#: UCX's InfiniBand transports refusing access to a local buffer (IBV_WC_LOC_PROT_ERR, the mlx5 syndrome 0x4): the
#: verbs transport's "send completion with error: %s" with rdma-core's ibv_wc_status_str "local protection error"
#: (src/uct/ib/rc/verbs/rc_verbs_iface.c, v1.5.0 line 62, v1.18.1 line 124), the mlx5 ones' "%s on %s:%d/%s (synd"
#: with "Local protection" (v1.15.0 src/uct/ib/mlx5/ib_mlx5_log.c line 100; "Local protection error" in v1.18.1,
#: line 103). Also a deregistered or freed host buffer: read as PCIe only where the buffers are on GPUs.
_UCX_LOCAL_PROTECTION = (r"send completion with error: local protection error"
                         r"|\bLocal protection(?: error)? on \S{1,100} \(synd 0x")
#: The log shows the traffic was in GPU memory: OSU's benchmark header "# Send Buffer on %s and Receive Buffer on %s"
#: with "DEVICE (D)" or "MANAGED (M)" (util/osu_util.c), UCX's GPU transports by name (a UCX_TLS setting, ucx_info's
#: "#      Transport: %s", src/tools/info/tl_info.c), GPUDirect RDMA and its peer-memory modules.
_GPU_BUFFERS = (r"Buffer on (?:DEVICE|MANAGED) \(|\b(?:cuda_copy|cuda_ipc|gdr_copy|rocm_copy|rocm_ipc)\b|GPUDirect"
                r"|nvidia[-_]peermem|nv_peer_mem")
#: A failed name lookup that ended the connection attempt: torch 1.x's thrown "host not found: %s", torch 2.x's
#: give-up after retrying (socket.cpp throwTimeoutError).
#: ... and NCCL's bootstrap, which refuses NCCL_COMM_ID once its host did not resolve (v2.18.5-1 to v2.28.9-1
#: src/bootstrap.cc bootstrapNetInit, v2.21.5-1 line 36: WARN("Invalid NCCL_COMM_ID, please use format: <ipv4>:<port>
#: or [<ipv6>]:<port> or <hostname>:<port>") and returns ncclInvalidArgument; a vendor build names the value too).
_NAME_LOOKUP_GAVE_UP = r"host not found: |The client socket has timed out after|NCCL WARN Invalid NCCL_COMM_ID\b"
#: The address Debian and Ubuntu's installers map the host's own name to in /etc/hosts (not the loopback fallback
#: 127.0.0.1 a program picks itself): a peer that advertised it resolved its name to loopback.
_DEBIAN_HOSTNAME_ADDRESS = r"\[127\.0\.1\.1\]:\d"
#: OpenSSH's changed or revoked host key (sshconnect.c, V_7_4_P1 to V_9_9_P1): a more specific reading of its
#: "Host key verification failed."
_SSH_HOST_KEY_CHANGED = (r"REMOTE HOST IDENTIFICATION HAS CHANGED"
                         r"|[Hh]ost key for \S{1,200} (?:has changed|was revoked) and you have requested "
                         r"strict checking")
#: OpenSSH recorded the key it asked about (V_9_6_P1 sshconnect.c line 1227, V_7_4_P1 line 1031: logit("Warning:
#: Permanently added '%.200s' (%s) to the list of known hosts.")): someone answered yes, or accept-new said it.
_SSH_HOST_KEY_ADDED = r"Warning: Permanently added '[^'\n]{1,300}' \(\S{1,40}\) to the list of known hosts"
#: ssh gave up on a host key (the strict-checking lines "ssh-host-key-unknown" reads).
_SSH_HOST_KEY_REFUSED = (r"No \w{1,20} host key is known for \S{1,200} and you have requested strict checking"
                         r"|^(?:\S{1,200}: )?Host key verification failed\.\s*$")
#: Slurm's cgroup memory failcnt notice, also printed by runs that finished (host-oom's condition).
_MEMORY_FAILCNT = r"Exceeded (?:step|job) memory limit at some point"
#: A process was killed for memory: the kernel's OOM killer, Slurm's cgroup or its polling, PBS' mom.
_HOST_OOM_KILL = (r"Detected \d+ oom[-_]kill event|: Out Of Memory|PBS: job killed: v?mem|exceeded memory limit \("
                  r"|out of memory: Kill(?:ed)? process \d+")
#: PMIx's component report names the security framework (help-pmix-mca-base.txt "Framework: %s").
_PSEC_FRAMEWORK = r"^\s{0,8}Framework: +psec\b"
#: srun ignored a one-task-per-node layout (Slurm 25.11.7 src/srun/opt.c line 1269's warning with 1).
_ONE_PER_NODE_IGNORED = r"can't honor --ntasks-per-node set to 1 which"
#: NCCL could not use the topology or graph file it was given (src/graph/search.cc, src/graph/xml.h).
_TOPO_FILE_UNREADABLE = r"XML Import Channel : dev \d+ not found|NCCL WARN Attribute \w+ of node \w+ not found"
#: NCCL's topology detection found a network device outside PCI and hung it under the first CPU (src/graph/xml.cc,
#: v2.19.3-1 line 793 to v2.30.7-1 line 1115, "(name = %s) " added before the path in later releases).
_NON_PCI_NIC = r"Topology detection: network path (?:\(name = \S{0,100}\) )?\S{1,400} is not a PCI device \("
#: The job set a topology or graph file (NCCL v2.19.3-1 src/graph/topo.cc line 634, v2.30.7-1 line 1776: INFO(NCCL_ENV,
#: "NCCL_TOPO_FILE set by environment to %s", ...); src/graph/search.cc "NCCL_GRAPH_FILE set by environment to %s").
_TOPO_FILE_SET = r"NCCL_(?:TOPO|GRAPH)_FILE set by environment"
#: NCCL failed the communicator: its error strings (src/init.cc ncclGetErrorString) and torch's reading of them.
_NCCL_FAILED = (r"ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclUnhandledCudaError|ncclRemoteError"
                r"|unhandled system error|internal error|unhandled cuda error")
#: NCCL's error string for ncclInvalidUsage (src/init.cc ncclGetErrorString, "invalid usage" and since 2.21 "invalid
#: usage (run with NCCL_DEBUG=WARN for details)"), and the "NCCL WARN" prefix its checks print with.
_NCCL_INVALID_USAGE = r"\binvalid usage\b|NCCL WARN Duplicate GPU|NCCL WARN Multiple ranks"
#: NCCL 2.26 and later refuse a GPU whose shared memory its kernels exceed (src/enqueue.cc, a WARN and an error).
_NCCL_SMEM_REFUSED = r"cudaArch \d+ (?:ncclMaxSharedMem|dynamic smem) \d+ exceeds device/fn maxSharedMem"
#: torch's watchdog line names the collective it gave up on: torch 2.2 to 2.13 ProcessGroupNCCL.cpp operator<<(WorkNCCL)
#: c10::str("WorkNCCL(", "SeqNum=", seq_, ", OpType=", ..., ", Timeout(ms)=", opTimeout_.count(), ")"), seq_ counting
#: the group's collectives from 1. One of the group's first collectives (up to the fifth) timed out:
_WATCHDOG_EARLY = r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=[0-5],"
#: Lightning's line when its fit loop has ended by its own limit ("`Trainer.fit` stopped: `max_epochs=N` reached.",
#: lightning/pytorch/loops/fit_loop.py): a collective that times out after it is one of the program's own code after
#: training (a checkpoint or a barrier that some ranks never enter), not the infrastructure's.
_FIT_ENDED = r"`Trainer\.fit` stopped: "
#: ... or a later one (or a torch before 2.2, whose WorkNCCL(OpType=..., Timeout(ms)=...) names no SeqNum).
_WATCHDOG_LATER = (r"Watchdog caught collective operation timeout: WorkNCCL\((?:SeqNum=(?:[6-9]|\d\d+)|OpType=)"
                   r"|Watchdog caught hanging process")
#: A progress bar the program itself printed (tqdm's "n/total [elapsed<remaining" meter, tqdm/std.py
#: format_meter) that had counted ten steps or more: its loop ran on while the process group was idle.
#: The job's own lines after the trainer or the check ended with exit code 2, its input refused
#: (app/host/launch/config_check.py, job.py; app/host/common/exitcodes.py USAGE)
_OWN_INPUT_REFUSED = r"the config check failed \(exit 2\b|\bstep finished with exit code 2$"
_OWN_PROGRESS = r"\b[1-9]\d+/\d+ \[(?:\d+:)?\d+:\d\d<"


def _waited_for_own_work(log: LogView) -> bool:
    """The timed-out collective was one of the group's first, while a progress bar of the program's own had
    counted ten steps or more: the loop it shows ran no collectives (ten steps of a DDP training loop are ten
    all-reduces, SeqNum 10 or more), so the other ranks waited for one rank's own work (preparing data,
    evaluating on rank 0) longer than the timeout. The program's timing, not the infrastructure."""
    return log.has(_OWN_PROGRESS) and log.has(_WATCHDOG_EARLY) and not log.has(_WATCHDOG_LATER)


#: torch's Gloo pairs could not connect (ProcessGroupGloo.cpp: "Gloo connectFullMesh failed with ...").
_GLOO_MESH_FAILED = r"Gloo connectFullMesh failed"
#: A shell that found no program of a name, `{command}` filled with the name's pattern: bash 5.2 execute_cmd.c
#: line 5728 internal_error (_("%s: command not found"), pathname) ("run.sh: line 10: NAME: command not found"), in
#: the translations bash ships (po/*.po: zh_CN, de, fr, es, ja, ru, it, pt_BR, ko; LANG decides which it prints);
#: dash 0.5.12 (Debian's and Ubuntu's /bin/sh) src/exec.c line 146 exerror(EXEND, "%s: %s", argv[0],
#: errmsg(e, E_EXEC)) with src/error.c line 227 "not found" ("sh: 1: NAME: not found").
_COMMAND_NOT_FOUND = (r"(?:^|[\s:/])(?P<command>{command})(?: ?: (?:command not found|未找到命令"
                      r"|Kommando nicht gefunden|commande introuvable|orden no encontrada"
                      r"|コマンドが見つかりません|команда не найдена"
                      r"|comando non trovato|comando não encontrado|명령어를 찾을 수 없음)|: not found$)")


def _not_found(command: str) -> str:
    """_COMMAND_NOT_FOUND for the program names `command` matches (a pattern without groups); a full path's last
    part is matched after its `/`."""
    return _COMMAND_NOT_FOUND.replace("{command}", command)


#: UCX (Open MPI's and NVSHMEM's verbs transport) out of locked memory: "ibv_create_cq(cqe=%d) failed: %m"
#: (src/uct/ib/base/ib_iface.c), "ibv_create_cq() failed: %m" (its device probes, rdmacm/rdmacm_cm.c) and
#: "%s(address=%p, length=%zu, access=0x%lx) failed: %s" (ib_md.c); NCCL's own words for it (src/misc/ibvwrap.cc,
#: aws-ofi-nccl's "Unable to register memory").
_UCX_VERBS_ENOMEM = (r"ibv_(?:create_cq|reg_mr|reg_dmabuf_mr)\((?:(?:cqe|address)=[^)]{0,200})?\) failed: "
                     r"Cannot allocate memory")
#: UCX's interface form, "ibv_create_cq(cqe=%d) failed: %m" (src/uct/ib/base/ib_iface.c, v1.12.0 line 1035;
#: v1.16.0 line 1139 and v1.20.0 line 1364 print it at ERROR through uct_ib_check_memlock_limit_msg, prefixed with
#: the device, "mlx5_0: ", and followed by ". Please set max locked memory ..."): the interface of a transport UCX
#: chose, and ucp_worker_add_resource_ifaces (src/ucp/core/ucp_worker.c, v1.12.0 line 974, v1.20.0 line 1118) fails
#: the whole worker when one does not open. Its device probes ("ibv_create_cq()" with no cqe) are logged at DEBUG
#: since v1.15.0 and only the failed run makes them a cause.
_UCX_IFACE_CQ_ENOMEM = r"ibv_create_cq\(cqe=\d+\) failed: Cannot allocate memory"
#: UCX's memory registration failed with ENOMEM, "%s(address=%p, length=%zu, access=0x%lx) failed: %m" (v1.7.0 to
#: v1.12.0 src/uct/ib/base/ib_md.c, line 324 in v1.12.0; "ibv_%sreg_mr(address=%p, length=%zu, %saccess=0x%lx)" in
#: v1.5 and v1.6; v1.19.0 line 270 with strerror): UCX appends ". Please set max locked memory (ulimit -l) to
#: 'unlimited' (current: %llu kbytes)" (v1.12.0 line 332) or, since uct_ib_memlock_limit_msg (v1.19.0
#: src/uct/ib/base/ib_log.c line 247), " : Please set max locked memory ..." whenever the process' RLIMIT_MEMLOCK is
#: finite. With the advice the limit is the cause; without it (the line ends at the errno) the limit was unlimited
#: and the registration path (registration cache, on-demand paging) or the card's own tables ran out.
_UCX_REG_MR_ENOMEM = r"ibv_(?:exp_)?reg_(?:dmabuf_)?mr\(address=[^)]{0,200}\) failed: Cannot allocate memory"
_UCX_REG_MR_ENOMEM_LIMITED = _UCX_REG_MR_ENOMEM + r" ?[.:] Please set max locked memory"
_UCX_REG_MR_ENOMEM_UNLIMITED = _UCX_REG_MR_ENOMEM + r"\s{0,8}$"
#: A run the failed registration ended: an MPI's failure, UCP's "failed to register user buffer datatype 0x%"PRIx64
#: " address %p len %zu: %s" (v1.12.0 src/ucp/core/ucp_request.c line 498, v1.19.0 line 523), MPICH's and Cray
#: MPICH's "Fatal error in %s" (src/mpi/errhan/errutil.c).
_UCX_REG_FAILED_RUN = _MPI_FAILED + r"|failed to register user buffer datatype|Fatal error in P?MPI_\w{1,40}"
#: RCCL's warning at init that the kernel command line lacks iommu=pt (src/init.cc, rocm-5.7.0 to rocm-6.2.0).
_RCCL_NO_IOMMU_PT = r'\bMissing "iommu=pt"'
#: aws-ofi-nccl refused to register GPU memory (NCCL_PTR_CUDA, type 2) with EINVAL: "Unable to register memory (type
#: = %d) for device %d. RC: %d, Error: %s" (v1.18.0 src/nccl_ofi_sendrecv.cpp line 606, src/nccl_ofi_rdma.cpp).
_OFI_GPU_MR_EINVAL = r"Unable to register memory \(type = 2\) for device \d+\. RC: -22\b"
#: An HPE Cray EX compute node by its name (nid and six digits), as NCCL's WARN header and MPICH print it.
_CRAY_NODE = r"\bnid\d{6}\b"
#: Open MPI's openib BTL out of locked memory names the limit getrlimit gave it (v4.1.8
#: opal/mca/btl/openib/btl_openib.c line 155, "unlimited" for RLIM_INFINITY): an ENOMEM under an unlimited ulimit -l
#: is another limit (the HCA driver's registered-memory tables), not this one.
_OMPI_MEMLOCK_UNLIMITED = r"^\s{0,8}Memlock limit: unlimited\s*$"
#: Open MPI's shared-memory single copy (cross-memory attach) refused with EPERM, and vader's help text for ranks
#: in different user namespaces (read in "cma-ptrace-denied-in-container").
_CMA_EPERM = r"\b(?:CMA )?(?:[Rr]ead|[Ww]rote) -1, expected \d+, errno = 1\s*$"
_CMA_USERNS_ERROR = r"^\s{0,8}ERROR: Linux kernel CMA support was requested via the\s*$"
_NCCL_VERBS_ENOMEM = (r"Call to ibv_\w+ failed with error Cannot allocate memory"
                      r"|Unable to register memory \(type = \d+\) for device \d+\. RC: -12\b")
#: NCCL could not connect to another rank (see "nccl-connect"), and its retries of a connection (INFO,
#: src/os/linux.cc v2.30.7-1 line 293), which are a cause only in a run that failed.
#: NCCL 2.3 (v2.3.5-5 and v2.3.7-1 src/include/core.h SYSCHECKNTIMES line 297 WARN("Call to " name " timeout : %s",
#: ...), SYSCHECKVALEXP line 305 WARN("Call to " name " failed : %s", ...), name "connect" from socket.h line 361)
#: words the same failure "Call to connect timeout : Connection refused".
_NCCL_CONNECT_FAILED = (r"NCCL WARN:? Call to connect (?:timeout|failed) : "
                        r"|NCCL WARN:? .{0,200}?[Cc]onnect to \S{1,300} failed"
                        r"|^\s{0,8}socket\w{0,24}: [Cc]onnect to \S{1,300} failed : "
                        r"|\bsocket\w{0,24}: connect to \S{1,300} returned [^,\n]{1,80}, exceeded error retry count")
_NCCL_CONNECT_RETRY = r"\bsocket\w{0,24}: connect to \S{1,300} returned [^,\n]{1,80}, retrying \("
#: NCCL's socket transport lists every interface it will use (v2.12.10-1 src/transport/net_socket.cc line 62,
#: v2.30.7-1 line 77 INFO("NET/Socket : Using%s", line), each " [%d]%s:%s"). Its default choice leaves out only the
#: "docker" and "lo" prefixes (v2.12.10-1 src/misc/socket.cc line 304 "^docker,lo", v2.30.7-1 line 220
#: "^docker,lo,virbr"), so Docker's user-defined bridges (br-<12 hex>), veth pairs and Calico's cali* interfaces are
#: used beside the real one, with addresses the other node cannot reach (the same 172.x on every node); a second
#: entry or later ([1], [2] ...), so NCCL stripes over it; docker0 and virbr0 when NCCL falls back to them.
_NCCL_SOCKET_ON_BRIDGE = (r"\[[1-9]\d?\](?:br-[0-9a-f]{12}|veth[0-9a-f]{7}|docker\d{1,2}|virbr\d{1,2}"
                          r"|cali[0-9a-f]{11}):\S{1,80}<\d+>")
#: slurmd's cgroup plugin that did not start (Slurm 25.11.7 src/plugins/cgroup/v2/cgroup_v2.c line 1838 "%s cgroup
#: controller is not available.", src/common/plugin.c "Couldn't load specified plugin name for %s: %s" with
#: src/common/slurm_errno.c line 1268 "Plugin init() callback failed", src/slurmd/slurmd/slurmd.c line 479
#: fatal("Unable to initialize jobacct_gather")): a "Controller %s is not enabled!" of a slurmd that then ran is no
#: cause.
_SLURMD_CGROUP_INIT_FAILED = (r"cgroup controller is not available|There's an issue initializing memory or cpu "
                              r"controller|Plugin init\(\) callback failed|\bfatal: Unable to initialize")
#: A connection to an address of Docker's default bridge network (docker0, 172.17.0.0/16, the address a container
#: run without --network=host has) that failed: torch's store client (torch/csrc/distributed/c10d/socket.cpp, read at
#: commit 056b6f38c0c2, SocketConnectOp::throwTimeoutError() "The client socket has timed out after {} while trying
#: to connect to ({}, {}).", run() "The client socket has failed to connect to any network address of ({}, {}).")
#: and NCCL's (v2.18.5-1 src/misc/socket.cc line 483 "socketStartConnect: Connect to %s failed : %s", v2.30.7-1
#: src/os/linux.cc lines 302 and 288 "%s: connect to %s failed : %s", "... returned %s, exceeded error retry count").
_DOCKER_BRIDGE_IP = r"(?:::ffff:)?172\.17\.\d{1,3}\.\d{1,3}"
_STORE_ON_DOCKER_BRIDGE = (r"The client socket has (?:timed out after \S{1,30} while trying to connect to|failed to "
                           r"connect to any network address of) \((?P<addr>" + _DOCKER_BRIDGE_IP + r")\b")
_NCCL_PEER_ON_DOCKER_BRIDGE = (r"\b[Cc]onnect to \[?(?P<addr>" + _DOCKER_BRIDGE_IP + r")\]?<\d+> (?:failed : |returned "
                               r"[^,\n]{1,80}, exceeded error retry count)")
#: The second line of Open MPI's [orterun:wdir-not-found] help text (v4.1.6 orte/tools/orterun/help-orterun.txt
#: line 260), which tells its first line from [orterun:exe-not-accessible]'s.
_OMPI_WDIR_LINE = r"^change to the specified working directory:"
#: MPICH's Hydra proxy could not change to the working directory on its host (MPICH v3.2 src/pm/hydra/pm/pmiserv/
#: pmip_cb.c line 638, v4.3.2 src/pm/hydra/proxy/pmip_cb.c line 872 HYDU_ERR_SETANDJUMP(status, HYD_INTERNAL_ERROR,
#: "unable to change wdir to %s (%s)\n", exec->wdir, MPL_strerror(errno)), printed by HYDU_error_printf (v4.3.2
#: src/pm/hydra/lib/hydra.h) after the prefix "[%s] " (HYD_dbg_prefix, "proxy:%d:%d@HOST" on the proxies) and
#: "%s (%s:%d): " (function, file, line).
_HYDRA_WDIR_MISSING = (r"^\[proxy:\S{1,300}\] (?:\w{1,100} \(\S{1,300}\): )?unable to change wdir to .{1,4096} "
                       r"\(No such file or directory\)$")
#: The program was started by mpirun/mpiexec: the launcher named (Open MPI's help texts name it, "%s was unable
#: to ..."), a Hydra proxy's prefix, or Open MPI's summary of ranks that exited non-zero (v4.1.6
#: orte/mca/errmgr/base/help-errmgr-base.txt line 112 "%s job %s terminated normally, but %d %s. ...",
#: orte/mca/state/base/help-state-base.txt line 13 "While %s job %s terminated normally, %d %s. ...").
#: The executable mpirun could not find is a conda environment's Python (its help text's "Executable: %s" row).
_CONDA_ENV_EXECUTABLE = (r"^\s{0,8}Executable: +\S{0,300}(?:/envs/[^/\s]{1,100}|/(?:mini|ana)conda\d?|/miniforge\d?"
                         r"|/mambaforge)/bin/python")
_MPI_LAUNCHED = (r"\b(?:mpirun|mpiexec|orterun|prterun)\b|^\[proxy:\d"
                 r"|\bjob .{0,40}terminated normally, (?:but )?\d+ process")
#: nccl-tests listed its ranks (nccl-tests v2.17.6 src/util.cu line 566 "#  Rank %2d Group %2d Pid %6d on %10s
#: device %2d [%04x:%02x:%02x] %s", releases before groups without "Group %2d") and, once a collective completed,
#: printed its row of results (line 424 "%12li  %12li  %8s  %6s  %6s": bytes, count, type, redop, root) and at the
#: end "# Avg bus bandwidth    : %g %s" (line 644). Ranks listed and no result: the first collective never ended.
_NCCL_TESTS_RANK = r"^#\s{1,4}Rank +\d+ +(?:Group +\d+ +)?Pid +\d+ on +(?P<node>\S{1,100}) device"
_NCCL_TESTS_RESULT = "|".join(
    [r"# Avg bus bandwidth"] + [r"^\s{0,12}\d{1,14}\s{1,14}\d{1,14}\s{1,10}" + name + r"\s" for name in (
        "float", "double", "half", "bfloat16", "int8", "uint8", "int32", "uint32", "int64", "uint64", "f8e4m3",
        "f8e5m2")])


def _nccl_tests_gave_no_result(log: LogView) -> bool:
    return log.has(_NCCL_TESTS_RANK) and not log.has(_NCCL_TESTS_RESULT)


#: libibverbs reporting a verbs provider it could not load, and going on without it (rdma-core v59.0
#: libibverbs/dynamic_driver.c line 207 "Warning: couldn't load driver '%s': %s").
_IBV_PROVIDER_SKIPPED = r"libibverbs: Warning: couldn't load driver"
#: A compiler error means DeepSpeed's op build only where the log shows that build.
_OP_BUILD = r"torch_extensions|deepspeed|op_builder|unable to compile CUDA op|Error building extension"


def _socket_instead_of_fabric(log: LogView) -> bool:
    # Without libibverbs NCCL cannot use IB on any node count: the image lacks it (sgl-project/sglang#1427).
    inter_node = log.has(_VIA_SOCKET) or _multi_node(log) or log.has(_NO_LIBIBVERBS)
    return inter_node and log.has(_FAST_FABRIC) and not log.has(_SOCKET_CHOSEN)


def _nccl_tests_ran_apart(found: Sequence[Match[str]]) -> bool:
    """nccl-tests' processes each ran as rank 0: two processes listed themselves as rank 0, or, after mpirun or
    srun started a test, two result summaries came with no run's header between them (an MPI build prints the
    header and the summary once per run, from rank 0; processes started side by side print one each)."""
    if _distinct(found, "pid", "host") > 1:
        return True
    last, launched = "", False
    for match in found:
        launched = launched or match.groupdict().get("launcher") is not None
        kind = "summary" if match.groupdict().get("bw") is not None else (
            "header" if match.groupdict().get("threads") is not None else "")
        if kind == "summary" and last == "summary" and launched:
            return True
        last = kind or last
    return False


#: A result row with wrong elements: nccl-tests v2.17.6 src/util.cu line 424 PRINT("%12li  %12li  %8s  %6s  %6s",
#: ...) then, out of place and in place, line 480 PRINT("  %7s  %6s  %6s  %6g", time, algbw, busbw, (double)
#: wrongElts): a #wrong that is not 0 in either (also the older releases' max error, "%5s" of "%.0e", of 1 or
#: more; a rounding error such as 3e-08 is not read).
_NCCL_TESTS_ROW_START = (r"^\s{0,12}\d{1,14}\s{1,14}\d{1,14}\s{1,10}(?:float|double|half|bfloat16|u?int8|u?int32"
                         r"|u?int64|f8e4m3|f8e5m2)\s{1,10}\S{1,10}\s{1,10}-?\d{1,6}")
_NCCL_TESTS_ROW_BODY = r"\s{1,10}\S{1,8}\s{1,10}\S{1,7}\s{1,10}\S{1,7}\s{1,10}"
_NCCL_TESTS_WRONG = (_NCCL_TESTS_ROW_START + _NCCL_TESTS_ROW_BODY + r"(?:[1-9][\d.e+]{0,12}|0" + _NCCL_TESTS_ROW_BODY
                     + r"[1-9][\d.e+]{0,12})(?:\s|$)")
#: nccl-tests' line for a rank on a GH200 (v2.17.6 src/util.cu line 566, the device's name last).
_NCCL_TESTS_GH200_RANK = (r"^#\s{1,4}Rank +\d+ +(?:Group +\d+ +)?Pid +\d+ on +(?P<host>\S{1,100}) device "
                          r"[^\n]{0,80}?\bGH200\b")


def _wrong_across_gh200_nodes(found: Sequence[Match[str]]) -> bool:
    """A result row with wrong elements, and GH200 ranks on two nodes or more."""
    return any(match.groupdict().get("host") is None for match in found) and _distinct(found, "host") > 1


#: A library directory of an MPI or Python environment install, not where Slurm's PMIx lives.
_MPI_INSTALL_DIR = re.compile(r"open-?mpi|ompi|hpcx|conda|/envs/|mvapich|mpich|intel", re.IGNORECASE)


def _foreign_libpmix_loaded(found: Sequence[Match[str]]) -> bool:
    """Slurm's PMIx plugin reported the version it loaded, or glibc's loader (LD_DEBUG) shows the plugin's dlopen of
    libpmix end in a library of an MPI or conda install (the last path tried before the link map, or before the
    log ends; a search that went on to the loader's cache found the library elsewhere)."""
    plugin, foreign = False, False
    for match in found:
        fields = match.groupdict()
        if "incorrect PMIx library version" in match.group(0):
            return True
        if "dynamically loaded by" in match.group(0):
            plugin, foreign = True, False
        elif fields.get("tried") is not None:
            foreign = plugin and _MPI_INSTALL_DIR.search(fields["tried"]) is not None
        elif fields.get("cache") is not None:
            foreign = False
        elif fields.get("mapped") is not None and foreign:
            return True
    # The log ends at that path: the loader stops at the first file it opens (or goes on to say so: the cache).
    return foreign


def _after_one_another(found: Sequence[Match[str]], first: str, then: str) -> bool:
    """A line with the group `first` came before one with the group `then`."""
    seen = False
    for match in found:
        fields = match.groupdict()
        seen = seen or fields.get(first) is not None
        if seen and fields.get(then) is not None:
            return True
    return False


def _distinct(found: Sequence[Match[str]], *names: str) -> int:
    """How many different values the named groups took in the lines that matched (a line without them: none)."""
    values = {tuple(m.groupdict().get(name) for name in names) for m in found}
    return len({value for value in values if None not in value})


#: Every fact the conditions above ask the whole log about (LogView looks for them while reading).
FACTS = (_SLINGSHOT, _FAST_FABRIC, _per_node_launch, _NODE_COUNT_MULTI, _NO_NET, _NCCL_NET_IB, _NCCL_NET_OFI,
         _IB_PROBE_FAILED, _IB_HCA_SET, _VIA_SOCKET, _SOCKET_CHOSEN, _EFA_REFUSED, _NO_LIBIBVERBS, _GPUS_PER_TASK,
         _OP_BUILD, _STEP_CREATED, _FAILED, _GPU_HOOK_FAILED, _QP_TIMED_OUT, _ROCE,
         _MPI_FAILED, _UCX_VERBS_ENOMEM, _NCCL_VERBS_ENOMEM, _UCX_IFACE_CQ_ENOMEM, _OMPI_MEMLOCK_UNLIMITED,
         _CMA_EPERM, _CMA_USERNS_ERROR,
         _UNSQUASHFS_FAILED, _UNSQUASHFS_XATTR, _UNSQUASHFS_OTHER,
         _UCX_LOCAL_PROTECTION, _GPU_BUFFERS,
         _GLOO_MESH_FAILED, _ENOSPC_EXPLAINED, _NAME_LOOKUP_GAVE_UP, _DEBIAN_HOSTNAME_ADDRESS, _SSH_HOST_KEY_CHANGED,
         _SSH_HOST_KEY_ADDED, _SSH_HOST_KEY_REFUSED,
         _NCCL_SMEM_REFUSED, _TOPO_FILE_UNREADABLE, _NCCL_FAILED, _ONE_PER_NODE_IGNORED,
         _MEMORY_FAILCNT, _HOST_OOM_KILL, _PSEC_FRAMEWORK, _IBV_PROVIDER_SKIPPED, _NCCL_TESTS_RANK,
         _NCCL_TESTS_RESULT, _OMPI_WDIR_LINE, _NCCL_CONNECT_RETRY, _NET_NOT_FOUND,
         _NCCL_CONNECT_FAILED, _WATCHDOG_EARLY, _WATCHDOG_LATER, _OWN_PROGRESS, _OWN_INPUT_REFUSED, _INIT_FAILED,
         _ENROOT_START_FAILED,
         _LOCK_CALL, _PYXIS_FULL, _ENROOT_MOUNT_FAILED, _FI_DOMAIN_ENOSYS, _SPANK_STACK_FAILED,
         _NCCL_INVALID_USAGE, _HYDRA_WDIR_MISSING, _MPI_LAUNCHED, _PMIX_OWN_ERROR, _FIT_ENDED, _ENROOT_GPU_HOOK,
         _DEVICE_FROM_GLOBAL_RANK, _NON_PCI_NIC, _TOPO_FILE_SET, _NCCL_SOCKET_ON_BRIDGE, _NCCL_NET_FAILED,
         _SLURMD_CGROUP_INIT_FAILED, _OMPI_TCP_BTL, _SEGV_ACCERR, _ENROOT_RUN, _EFA_NODE, _USING_SOCKET,
         _TCPSTORE_STARTING, _CONTAINER_HOOK_RAN, _NO_DRIVER_LIB, _GPU_ASKED, _NO_GPU_SYMPTOM, _NV_GIVEN,
         _NO_NVIDIA_SMI_IN_CONTAINER, _CONDA_ENV_EXECUTABLE,
         _UCX_REG_FAILED_RUN, _RCCL_NO_IOMMU_PT, _CRAY_NODE, _NO_PROVIDER_FOUND, _FI_PROVIDER_EXCLUDES,
         _OFI_PROVIDER_CHOSEN)


# --- fixes -------------------------------------------------------------------------------------------------

_ONE_TORCHRUN_PER_NODE = (
    "start one torchrun per node, not one in the batch script (which runs on the first node only): PBS "
    "`mpiexec -n NNODES --ppn 1 torchrun ...` (Cray PALS) or `pbsdsh`, Slurm `srun --ntasks-per-node=1 torchrun ...`; "
    "this project's jobscripts/gh200-pbs.sh and slurm.sh do it, and stop in seconds with `the launcher started 1 "
    "process(es) on 1 node(s) ... needs exactly one torchrun per node` if a launcher does not. Also: "
    f"{remedies.STORE}"
)
_SOCKET_FIX = (
    "make NCCL use the fabric: InfiniBand "
    f"`{policy.export_line('infiniband', 'NCCL_IB_DISABLE', 'NCCL_IB_HCA', 'NCCL_NET', 'NCCL_SOCKET_IFNAME')}` "
    "(libibverbs and libmlx5 in the image); Slingshot "
    f"`{policy.export_line('slingshot', 'NCCL_NET', 'FI_PROVIDER', 'NCCL_SOCKET_IFNAME')}` (aws-ofi-nccl on "
    "LD_LIBRARY_PATH); NCCL_NET makes a missing transport fail at start instead of falling back to TCP. "
    "`python -m app.check` names the transport per node pair"
)

_MEMLOCK_FIX = (
    "the limit must be unlimited where the tasks run: admins set `memlock unlimited` in "
    "/etc/security/limits.conf and slurmd's LimitMEMLOCK=infinity (Slurm copies the submitting shell's "
    "limit unless slurm.conf has `PropagateResourceLimitsExcept=MEMLOCK`; PBS and Torque jobs inherit pbs_mom's, "
    "set by `ulimit -l unlimited` in its start-up script); Docker `--ulimit memlock=-1`; "
    "check with `srun bash -c 'ulimit -l'`; `python -m app.check` judges each node's in its "
    "`node: locked memory` line"
)

CAUSES: Tuple[Cause, ...] = (
    # --- the scheduler refused the job: nothing ran -----------------------------------------------------
    Cause(
        "slurm-gres",
        "Slurm refused the GPU request: the GRES name or count is not what the partition's nodes have",
        "ask for GPUs as the site names them (`sinfo -o '%P %G'` lists each partition's GRES), e.g. "
        "`--gres=gpu:4` on MareNostrum 5 ACC (or `--gpus-per-node=4`; a GPU type such as `gpu:h100:4` only where "
        "`sinfo` lists it), no more per node than a node has; a CPU partition takes no GRES",
        # Slurm 25.11.7 src/common/slurm_errno.c: ESLURM_INVALID_GRES and, for --gpus/--gpus-per-* requests (TRES),
        # ESLURM_INVALID_TRES (line 636); the same request's other refusals: ESLURM_DUPLICATE_GRES (line 593),
        # ESLURM_INVALID_GRES_TYPE (line 653, one GRES asked for with a type and without). (ESLURM_UNSUPPORTED_GRES,
        # a --gpus option the cluster's SelectType does not take, is the request's form: "slurm-request-refused".)
        (r"Invalid generic resource \(gres\) specification", r"Invalid Trackable RESource \(TRES\) specification",
         r"Duplicate generic resource \(gres\) specification",
         r"Invalid GRES specification \(with and without type identification\)"),
        100,
    ),
    Cause(
        "slurm-qos-account",
        "Slurm refused the job's QOS or account: it is not one this user may submit to",
        "submit with your project and a QOS it may use: `-A` with your project and `-q` with its QOS (MareNostrum 5: "
        "`-q acc_debug`); `sacctmgr show assoc user=$USER format=account,partition,qos` lists them",
        (r"Invalid qos specification", r"Invalid account or account/partition combination specified",
         r"Invalid account"),
        100,
        readme=("Invalid qos specification",),
    ),
    Cause(
        "slurm-request-refused",
        "Slurm refused the job's request: {what}",
        "ask within the partition's and QOS' limits: `sinfo -p PART -o '%P %l %D %c %G'` shows the time limit, "
        "nodes, CPUs and GRES per node, `sacctmgr show qos format=name,maxwall,maxtres,maxtrespu` the QOS limits; "
        "MareNostrum 5 ACC: `-q acc_debug` allows 2 h, `-q acc_bsccs` more; a cluster whose SelectType is not "
        "select/cons_tres takes GPUs only as `--gres=gpu:N` (not `--gpus`, `--gpus-per-task`, `--cpus-per-gpu`, "
        "`--mem-per-gpu`; `scontrol show config | grep SelectType` says which). Where sbatch, srun or salloc refused "
        "an option itself (`... mutually exclusive ...`, `is not a valid node count`, `Invalid --time "
        "specification`), keep one of the options it names and write values in Slurm's form (`-N 2 "
        "--ntasks-per-node=4`, not PBS's `nodes=2:ppn=4`; `--time=HH:MM:SS`); a SLURM_* name is a variable: srun "
        "inside a job reads the job's own (`#SBATCH --gpus-per-task` sets SLURM_GPUS_PER_TASK), so `unset` it "
        "before `srun --ntasks-per-gpu`, or ask both with one form",
        # Slurm 25.11.7 src/common/slurm_errno.c, the errors of a request no partition or QOS admits (lines 184
        # to 408); sbatch and srun print them after "Batch job submission failed: " / "Unable to allocate
        # resources: ". And a request in a form the cluster's configuration does not take: line 665
        # ESLURM_UNSUPPORTED_GRES, which src/interfaces/gres.c (lines 6706, 6712, 7018) returns for --gpus,
        # --gpus-per-task/socket, --cpus-per-gpu or --mem-per-gpu where the controller does not run select/cons_tres.
        (r"(?P<what>Requested GRES option unsupported by configured SelectType plugin"
         r"|Requested time limit is invalid \(missing or exceeds some limit\)"
         r"|Job violates accounting/QOS policy \(job submit limit, user's size and/or time limits\)"
         # only after "Batch job submission failed: " / "Unable to allocate resources: ": a step's refusal ("Unable
         # to create step for job %u: ", "unable to create step: ") is the step's size, "srun-step-exceeds-allocation"
         r"|Invalid partition name specified|(?:(?<=failed: )|(?<=resources: ))More processors requested than permitted"
         r"|Node count specification invalid|Requested partition configuration not available now"
         r"|Invalid feature specification)",
         # A site's job_submit filter (its Lua script's slurm.log_user()) rejecting the request in its own words:
         # Slurm 25.11.7 src/common/slurm_protocol_pack.c line 8367 prints the reply's err_msg with
         # print_multi_line_string(err_msg, -1, LOG_LEVEL_ERROR), each line "sbatch: error: %s" ("salloc: error:").
         # Read by the words a refusal uses (also where a tool quotes sbatch's lines): "partition 'x' is not valid
         # for this job", "Parameter --gres=gpu:1 no longer acceptable, please switch to --gpus=1" (a site's filter,
         # facebookincubator/submitit#1710).
         r"(?:^|[\s:])(?:sbatch|salloc): error: (?P<what>.{0,200}?(?:is not valid for|no longer acceptable"
         r"|please switch to|job setup is not valid).{0,200})",
         # sbatch, srun and salloc refusing an option while parsing it, before anything reaches the controller
         # (slurm_process_option_or_exit() and each command's _opt_verify() exit): Slurm 25.11.7
         # src/common/slurm_opt.c lines 5012 to 5039 fatal("%s is mutually exclusive with --ntasks-per-gpu and
         # SLURM_NTASKS_PER_GPU") for --tres-per-task, --gpus-per-task, --gpus-per-socket, --ntasks-per-node and
         # their SLURM_* variables (also in 20.11 and 21.08), line 4867 fatal("--mem, --mem-per-cpu, and
         # --mem-per-gpu are mutually exclusive."), 4880, 5050, 5070, 5492 and line 1794 (--gres-flags), src/srun/
         # opt.c lines 999 and 1064 ("--exact and --whole are mutually exclusive."); line 4993 fatal("Inconsistent
         # values set to --ntasks-per-gpu=%d and --ntasks-per-tres=%d "), 5271 fatal("You can not have
         # --tres-per-task=%s= and --%s please use one or the other"), 5438 "Invalid TRES for --tres-per-task: mem";
         # a value it cannot read: error("Invalid --time specification") (line 3743; --mem 2299, --distribution
         # 1243, the same words for the other options), error("Invalid --gpu-bind argument: %s") (1569), src/common/
         # proc_args.c line 526 error("\"%s\" is not a valid node count", tok), 582 "Maximum node count %d is less
         # than minimum node count %d", 1397 error("Invalid numeric value \"%s\" for %s.", val, name), src/sbatch/
         # opt.c line 779 "invalid number of nodes (-N %d-%d)" (767 tasks, 772 cpus per task; srun's 1106 to 1118),
         # 894 "--ntasks-per-core (%d) can not be bigger than --threads-per-core (%d)", slurm_opt.c line 5607
         # "--nodes is incompatible with --distribution=arbitrary"; Slurm 18.08.9 src/sbatch/opt.c line 1525
         # error("invalid node count `%s'", optarg) after proc_args.c line 598 (a PBS `1:ppn=1` given to -N).
         # Only with the command's "error: "/"fatal: ": srun's info() "Following options are mutually exclusive
         # with --hint: ... Ignoring --hint." refuses nothing, nor Slurm 19.05.0 to 19.05.3's error("--mem and
         # --mem-per-cpu are mutually exclusive.") (src/srun/libsrun/opt.c line 695, src/sbatch/opt.c 768,
         # src/salloc/opt.c 481), after which the command raises --mem to --mem-per-cpu and goes on (18.08 said it
         # as info("WARNING: ..."); 19.05.4 made both on the command line fatal, in the words read above).
         r"(?:^|[\s:\"'])(?:sbatch|srun|salloc)(?:\.exe)?: (?:error|fatal): (?P<what>"
         r"(?!--mem and --mem-per-cpu are mutually exclusive)[^\n]{0,200}?\bmutually exclusive\b[^\n]{0,200}"
         r"|\"[^\"\n]{0,200}\" is not a valid node count|invalid node count `[^'\n]{0,200}'"
         r"|Invalid numeric value \"[^\"\n]{0,200}\" for [^\n]{0,100}"
         r"|Invalid --[\w-]{1,40} (?:specification|argument|value|combo)[^\n]{0,200}"
         r"|invalid number of (?:tasks|nodes|cpus per task) \(-[nNc] [^)\n]{0,40}\)"
         r"|Maximum node count \d+ is less than minimum node count \d+"
         r"|Inconsistent values set (?:to|by environment variables) [^\n]{0,200}"
         r"|You can not have --tres-per-task=[^\n]{0,200}|Invalid TRES for --tres-per-task: \w+"
         r"|--ntasks-per-core \(\d+\) can not be bigger than --threads-per-core \(\d+\)"
         r"|--nodes is incompatible with --distribution=arbitrary)"),
        100,
    ),
    Cause(
        "slurm-output-file-not-writable",
        "slurmstepd could not open the job's output or error file on the node (its --output/--error path; without "
        "one, slurm-JOBID.out in the directory sbatch ran from): the directory does not exist there or the job's "
        "user may not write in it, so the job failed before its script ran and left no output (a batch job ends "
        "with job_rc 4021, Slurm's ESLURMD_IO_ERROR, which `scontrol show job` reads as RaisedSignal:53)",
        "give the job an output path its user can write on the compute nodes: absolute, in an existing directory on "
        "a filesystem every node mounts, e.g. `#SBATCH --output=/scratch/%u/logs/%x-%j.out` (and `--error=` where "
        "set; `mkdir -p` the directory first), or submit from (or `--chdir` to) a directory you own on shared "
        "storage; a tool that submits for other users (`sbatch --uid=USER`) must give each job such a path, or "
        "`--output=/dev/null`; `srun -N1 touch PATH`, as that user, checks it",
        # Slurm 25.11.7 src/slurmd/slurmstepd/io.c (_init_task_stdio_fds, opened as the job's user) lines 1117 and
        # 1249: error("Could not open stdout file %s: %m", task->ofname), "Could not open stderr file %s: %m" (the
        # same words since 20.11 at least); lines 1103 and 1235: error("%s: Could not open stdout file '%s': '%s'.
        # Recursive path creation failed: '%s'.", ...); src/slurmd/slurmstepd/mgr.c lines 497 and 531 (srun's
        # per-node files with --label): "Could not open output file %s: %m", "Could not open error file %s: %m".
        # Then mgr.c line 2134 error("%s: IO setup failed: %s", __func__, slurm_strerror(rc)) with
        # ESLURMD_IO_ERROR, src/common/slurm_errno.c line 1010 "Slurmd could not connect IO": read for a batch
        # step only ("[JOBID.batch] ", its log prefix, src/slurmd/slurmstepd/slurmstepd.c line 981), where the
        # files are all its I/O; an srun step also fails so when slurmstepd cannot connect back to srun.
        # The batch step's end, mgr.c line 358 verbose("%pI completed with slurm_rc = %d, job_rc = %d") (24.05
        # line 380: "job %u completed ..."), job_rc 4021 = ESLURMD_IO_ERROR (slurm/slurm_errno.h); slurmctld reads
        # 4021 as a wait status, src/slurmctld/job_mgr.c line 6254 "RaisedSignal:%d(%s)" with 4021 & 0x7f = 53,
        # strsignal(53) "Real-time signal 19" (scontrol prints the spaces as "_").
        # Not its debug() lines at io.c 1083 and 1097 ("Could not open stdout file '%s': '%s'. Attempt [%d/%d],
        # retrying.", "... Retrying after successful path creation."): the name in quotes, then a retry.
        (r"Could not open (?:stdout|stderr) file [^'\s]",
         r"Could not open (?:stdout|stderr) file '[^'\n]{1,400}': '[^'\n]{1,200}'\. Recursive path creation failed",
         # mgr.c's words are common ones: only with slurmstepd's prefix ("[JOBID.STEP] " or "slurmstepd: ").
         r"(?:\[\d{1,12}\.\w{1,12}\]|slurmstepd(?:-[\w.-]{1,100})?:) error: Could not open (?:output|error) file ",
         r"\[\d{1,12}\.batch\] (?:error: )?_fork_all_tasks: IO setup failed: Slurmd could not connect IO",
         r"(?:\bjob \d{1,12}|\bJobId=\d{1,12}(?: SLUID=\S{1,40})?) completed with slurm_rc = -?\d{1,12}, "
         r"job_rc = 4021\b",
         r"\bRaisedSignal:53\(Real-time[ _]signal[ _]19\)"),
        82,
    ),
    Cause(
        "pbs-request-refused",
        "PBS refused the job: it asks for more (or less) than the queue allows, names a queue or a resource that "
        "does not exist, or gives a resource a value PBS cannot read; or the site's submit filter refused it (the "
        "filter's own message, printed just before, says what it wants); or a #PBS line is one qsub cannot read, "
        "the queue is closed to you (not enabled, or its access list leaves you out), or the account is one the "
        "site does not know",
        "`qstat -Qf QUEUE` lists the queue's limits (resources_max, resources_min: walltime, ncpus, ngpus, mem, "
        "nodes) and whether it is enabled and whom it admits (enabled, acl_users, acl_groups): ask within them, "
        "e.g. `-l select=2:ncpus=72:ngpus=4 -l walltime=02:00:00`, or submit to a queue that allows it (`-q QUEUE`; "
        "`qstat -Q` lists the queues); resources by the names the site defines (`pbsnodes -a` shows them on each "
        "node: ngpus, not gpus), walltime as HH:MM:SS; the project the site gave you as `-A PROJECT`; #PBS lines "
        "with the options `man qsub` lists (arrays are `-J 0-9`, not TORQUE's `-t`)",
        # OpenPBS v23.06.06 src/lib/Liblog/pbs_messages.c: msg_excqresc "Job violates queue and/or server resource
        # limits", msg_unkque "Unknown queue", msg_unkresc "Unknown resource", msg_badatval "Illegal attribute or
        # resource value"; src/cmds/qsub.c prints them as "qsub: %s".
        # msg_BadNodespec "node(s) specification error" (PBSE_BADNODESPEC, src/include/pbs_error.h line 154): a
        # -l nodes= or select= PBS cannot read.
        (r"qsub: Job violates queue and/or server resource limits", r"qsub: Unknown queue",
         r"qsub: Unknown resource\b", r"qsub: Illegal attribute or resource value",
         r"qsub: node\(s\) specification error",
         # The same table: msg_qunoenb "Queue is not enabled", msg_qacess "Access to queue is denied", msg_perm
         # "Unauthorized Request " (a queue or server access list that leaves the user out), msg_badacct "Invalid
         # Account", msg_invalselectresc "Resource invalid in \"select\" specification" (a job-wide resource such
         # as walltime put in a select chunk); qsub.c line 1195 "qsub: illegal -l value\n", an -l it cannot parse.
         r"qsub: Queue is not enabled", r"qsub: Access to queue is denied", r"qsub: Unauthorized Request\b",
         r"qsub: Invalid Account", r"qsub: Resource invalid in \"select\" specification", r"qsub: illegal -l value",
         # qsub.c line 1763 "qsub: directive error: " and the directive's words: a #PBS line qsub cannot read (an
         # option it lacks, such as TORQUE's -t, or an -l it cannot parse); msg_routebad "Job rejected by all
         # possible destinations": a routing queue none of whose destination queues admits the job.
         r"qsub: directive error: ", r"qsub: Job rejected by all possible destinations",
         # Torque v5.1.1 src/cmds/qsub_functions.c: the site's submit filter (torque.cfg SUBMITFILTER) exited
         # non-zero, line 1122 "qsub: submit filter returned an error code, aborting job submission.", or with
         # its reject code, line 1112 "qsub: Your job has been administratively rejected by the queueing system."
         r"qsub: submit filter returned an error code, aborting job submission",
         r"qsub: Your job has been administratively rejected by the queueing system",
         # Torque src/include/pbs_error_db.h PbsErrClient(PBSE_EXCQRESC, "Job exceeds queue resource limits"), which
         # qsub prints with the server's reason after "MSG=".
         r"qsub: Job exceeds queue resource limits"),
        100,
    ),
    # --- the software cannot run on this node ---------------------------------------------------------
    Cause(
        "image-arch",
        "the container image (or a binary in it) is for another CPU architecture: an x86_64 image on an aarch64 "
        "(GH200) node",
        "build or pull the image for the node: `make image ARCH=aarch64` on GH200 (`uname -m` on a compute node "
        "says which); the job scripts refuse a mismatched image before starting it",
        (r"(?i)exec format error", r"is built for (?P<image>\S{1,200}) but this node is (?P<node>\w+)",
         r"image targets '?(?P<target>\w+)'?, cannot run on '?(?P<host>\w+)"),
        96,
        readme=("exec format error",),
    ),
    Cause(
        "libfabric-abi",
        "the NCCL network plugin (aws-ofi-nccl) was linked against a newer libfabric than the one it loads: the "
        "host's libfabric lacks symbol version {abi}",
        "use a plugin built against the host's libfabric or an older one (this project's image links libfabric "
        "1.22.0, which needs nothing newer than FABRIC_1.7), or bind a host libfabric that new enough: "
        "`HOST_LIBFABRIC_DIR=/opt/cray/libfabric/<ver>`",
        (r"version [`'](?P<abi>FABRIC_\d+\.\d+)' not found(?! \(required by \S{0,300}/" + _MPI_LIBRARY + ")",),
        95,
    ),
    Cause(
        "mpi-libfabric-older-than-build",
        "the MPI library ({lib}) was built against a newer libfabric than the one the job loads: the loaded "
        "libfabric.so.1 lacks symbol version {abi} (libfabric keeps old binaries running on newer releases, not new "
        "binaries on older ones), most often an LD_LIBRARY_PATH or module that puts an older libfabric first",
        "load the libfabric the MPI was built with, or a newer one: put its lib directory first in LD_LIBRARY_PATH "
        "(or load the matching module; drop an older libfabric's directory from the path), `ldd $(which "
        "IMB-MPI1)` or `ldd <libmpi.so>` shows which copy is loaded and `fi_info --version` its release; or rebuild "
        "the MPI against the libfabric the nodes have",
        # glibc's loader, elf/dl-version.c match_symbol: _dl_exception_create_format (&exception, DSO_FILENAME
        # (map->l_name), "version `%s' not found (required by %s)", string, name), for a versioned symbol the
        # loaded library does not define. libfabric v1.20.0 libfabric.map.in line 57 "FABRIC_1.7 {" (fi_getinfo,
        # fi_freeinfo, fi_dupinfo moved there; 1.19.0's map ends at FABRIC_1.6); the maintainers' answer in
        # ofiwg/libfabric#9722: "ABI compatibility only ensures binaries built with old library still works with
        # new library, not the other way around". The requirer is the MPI's own library: Open MPI's libmpi and
        # libopen-pal (5.x) or its ofi components (mca_mtl_ofi, mca_btl_ofi), MPICH's and Intel MPI's libmpi.
        (r"version [`'](?P<abi>FABRIC_\d+\.\d+)' not found \(required by (?P<lib>\S{0,300}/" + _MPI_LIBRARY + r")",),
        96,
    ),
    Cause(
        "rdma-core-abi",
        "a program or library that uses rdma-core (libfabric's EFA or verbs provider, an NCCL net plugin, UCX, MPI) "
        "was built against a newer rdma-core than the one it loads: the loaded libefa/libibverbs/libmlx5 lacks "
        "symbol version {abi} (an image whose rdma-core is older than the libfabric or plugin put in it, or a host "
        "library bound into the image); IBVERBS_PRIVATE_N: a verbs provider and libibverbs from two rdma-core "
        "releases",
        "use one rdma-core, at least as new as what the libraries were built against: upgrade it in the image "
        "(`rdma-core`, `libibverbs`, `ibverbs-providers`/`libibverbs1`) or build the libraries against the one there; "
        "do not bind the host's libibverbs or providers into an image without the rest of its rdma-core; `ldd` of "
        "the library named in `(required by ...)` shows which copy it loads",
        # rdma-core v59.0 providers/efa/libefa.map line 27 `EFA_1.4 {` (EFA_1.0 to 1.4), libibverbs/libibverbs.map.in
        # line 177 `IBVERBS_PRIVATE_@IBVERBS_PABI_VERSION@ {` (59 at v59.0: a provider must come from the same
        # release), providers/mlx5/libmlx5.map MLX5_1.0 to 1.25; the glibc loader's "version `%s' not found
        # (required by %s)" (elf/dl-version.c match_symbol).
        (r"version [`'](?P<abi>(?:EFA|IBVERBS|MLX5|MLX4|RDMACM|HNS|BNXT_RE|MANA)_\d{1,3}\.\d{1,3}"
         r"|IBVERBS_PRIVATE_\d{1,3})' not found",),
        95,
        # A provider libibverbs skipped is a cause where the run then failed.
        applies=lambda log: not log.has(_IBV_PROVIDER_SKIPPED) or log.has(_FAILED),
    ),
    Cause(
        "efa-on-slingshot",
        "FI_PROVIDER=efa selects AWS's EFA provider, which does not exist on this HPE Slingshot (cxi) system: "
        "libfabric then offers no provider and the NCCL plugin cannot use the network",
        f"unset `FI_PROVIDER`, or set it for Slingshot: `{policy.export_line('slingshot', 'FI_PROVIDER')}` "
        "(this project's policy sets `cxi`)",
        (r"FI_PROVIDER=[\"']?efa\b", r"FI_PROVIDER=efa is AWS's provider",
         r"fi_getinfo: provider efa output empty list"),
        90,
        applies=lambda log: log.has(_SLINGSHOT) or log.has(_EFA_REFUSED),
        context=(_SLINGSHOT,),
        readme=("FI_PROVIDER=efa is AWS's provider",),
    ),
    Cause(
        "nccl-net-plugin-env-names-missing-library",
        "NCCL_NET_PLUGIN={plugin} made NCCL look for a network plugin named libnccl-net-{plugin}.so, which is not "
        "on the library path (the site installs its plugin under another name, e.g. libnccl-net.so or "
        "libnccl-net-ofi-<variant>.so), so NCCL fell back to its internal transports and the network the job "
        "asked for was not there; NCCL_NET_PLUGIN takes precedence, so a correct NCCL_NET does not help",
        "unset `NCCL_NET_PLUGIN` (NCCL then loads libnccl-net.so from `LD_LIBRARY_PATH`, and `NCCL_NET` picks the "
        "network, e.g. `NCCL_NET=\"AWS Libfabric\"`), or set it to the plugin's real file name (NCCL 2.23 and "
        "later take a name that starts with lib and ends in .so as it is); `ls` the directories of "
        "`LD_LIBRARY_PATH` for `libnccl-net*` to see what is installed; CSCS uenvs: do not set "
        "`NCCL_NET_PLUGIN=ofi`",
        # NCCL with NCCL_NET_PLUGIN=NAME tries NAME, then libnccl-net-NAME.so (plugin-not-found in
        # tests/diagnose/nccl_source_lines.py): v2.21.5-1 src/net.cc line 349 INFO "NET/Plugin: No plugin found
        # (%s)" per name; v2.22.3-1 to v2.26.6-1 src/net.cc "NET/Plugin: Could not find:%s. Using internal network
        # plugin." with the names tried (" ofi libnccl-net-ofi.so"); v2.27.3-1 src/plugin/plugin_open.cc line 104
        # "%s/Plugin: Could not find:%s. %s", v2.28 to v2.30.7-1 "%s/Plugin: Could not find:%s%s%s"; before 2.21
        # (v2.19.3-1 src/net.cc) "NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation".
        # Unset, the name is libnccl-net.so, not read here; "none" turns plugins off on purpose. Only where the
        # network then failed (_NET_NOT_FOUND, _NO_NET): otherwise NCCL went on with its own IB or sockets.
        (_NET_PLUGIN_NAMED_MISSING,),
        89,
        applies=lambda log: log.has(_NET_NOT_FOUND) or log.has(_NO_NET),
        context=(_NET_NOT_FOUND, _NO_NET),
    ),
    Cause(
        "no-ofi-plugin",
        "NCCL was told to use the libfabric plugin (NCCL_NET=\"AWS Libfabric\") but could not load aws-ofi-nccl "
        "(not on the library path, or it cannot load its libfabric)",
        "use the project's aarch64 image (it carries aws-ofi-nccl); otherwise put libnccl-net.so on "
        "LD_LIBRARY_PATH (CSCS uenvs: `module load aws-ofi-nccl`); with a host libfabric check "
        "`HOST_LIBFABRIC_DIR`; `NCCL_DEBUG=INFO` shows `NET/OFI Initializing aws-ofi-nccl` when it loads (NCCL "
        "2.27 and later do not name the network that failed: if the job set NCCL_NET=IB, see `no-ib-network`)",
        (r"network (?:AWS )?Libfabric not found", _NO_NET),
        86,
        applies=lambda log: not log.has(_NO_NET) or _net_asked_for(log) == "ofi",
        context=(_NCCL_NET_OFI, _OFI_HINTS),
        readme=("network AWS Libfabric not found",),
    ),
    Cause(
        "ofi-nccl-plugin-not-on-library-path",
        "NCCL found no network plugin (libnccl-net.so, aws-ofi-nccl) on the library path and went on with its "
        "internal transports, so on this EFA/Slingshot fabric the ranks talked over TCP sockets: the plugin's "
        "directory is missing from LD_LIBRARY_PATH (a module not loaded, an EFA installer upgrade that moved it, a "
        "container without the host's plugin)",
        "put the plugin's directory on `LD_LIBRARY_PATH` where the ranks start (AWS: "
        "`/opt/amazon/ofi-nccl/lib` or `/opt/aws-ofi-nccl/lib`, beside `/opt/amazon/efa/lib`; CSCS uenvs: `module "
        "load aws-ofi-nccl`; in a container bind it in); then `NCCL_DEBUG=INFO` shows `NET/OFI Initializing "
        "aws-ofi-nccl` and `via NET/Libfabric`; set `NCCL_NET=\"AWS Libfabric\"` (NCCL 2.27 and later: `NCCL_NET=ofi` "
        "style names are the plugin's) so a missing plugin fails at start instead of running over TCP",
        # NCCL's INFO lines (_NET_PLUGIN_DEFAULT_MISSING), which every run without a plugin prints: a cause only on a
        # fabric NCCL cannot use without one (EFA, Slingshot; InfiniBand is NCCL's own) where its traffic between
        # nodes then went over sockets (v2.21.5-1 src/init.cc line 322 "Using network %s", the channels' "via
        # NET/Socket/%d"). aws-ofi-nccl itself prints nothing when it is not loaded; aws/aws-parallelcluster#6942.
        (_NET_PLUGIN_DEFAULT_MISSING,),
        80,
        applies=_plugin_needed_but_socket_used,
        context=(_EFA_NODE, _SLINGSHOT, _VIA_SOCKET),
    ),
    Cause(
        "no-ib-network",
        "NCCL was told to use InfiniBand (NCCL_NET=IB) but found no usable IB device: no HCA in these nodes, or no "
        "libibverbs/libmlx5 in the image",
        "check the partition (ACC); rebuild the image with rdma-core (libibverbs + libmlx5); in a container the "
        "/dev/infiniband devices must be visible",
        (r"NCCL WARN.{0,80}network IB not found", _NO_NET),
        86,
        applies=lambda log: not log.has(_NO_NET) or _net_asked_for(log) == "ib",
        context=(_NCCL_NET_IB, _IB_PROBE_FAILED),
        readme=("network IB not found",),
    ),
    Cause(
        "ib-hca-filter-empty",
        "NCCL found no InfiniBand device because NCCL_IB_HCA names none this node has (a name from another "
        "system, a typo, or a port that is down)",
        "set `NCCL_IB_HCA` to HCAs this node has (`ibv_devinfo -l` lists them, e.g. `mlx5_0,mlx5_1` or the "
        "prefix `mlx5`; `=mlx5_0` matches exactly, `^mlx5_4` excludes), or unset it and let NCCL use every active "
        "HCA; `ibv_devinfo` shows each port's state (PORT_ACTIVE)",
        (_IB_PROBE_FAILED,),
        87,
        applies=lambda log: log.has(_IB_HCA_SET),
        context=(_IB_HCA_SET,),
    ),
    Cause(
        "no-verbs-driver",
        "libibverbs found the HCA but no userspace driver for it (libmlx5 from rdma-core missing): NCCL cannot use "
        "InfiniBand and falls back to TCP or fails",
        "rebuild the image (`make image`: it installs rdma-core's ibverbs-providers); elsewhere install "
        "ibverbs-providers/libmlx5 in the image or environment",
        # rdma-core libibverbs/dynamic_driver.c (v50): `PFX "Warning: couldn't load driver '%s': %s\n"`; only the
        # HCA's own providers count (other providers that fail to load are harmless on a Mellanox or EFA node).
        # v59.0 libibverbs/init.c line 614: PFX "Warning: no userspace device-specific driver found for %s\n"; its
        # words are the program's own, so a line quoted without the "libibverbs: " prefix still counts.
        (r"(?:libibverbs: )?Warning: no userspace device-specific driver found",
         r"libibverbs: Warning: couldn't load driver '(?:lib)?(?:mlx5|efa)[^']*'"),
        84,
        readme=("no userspace device-specific driver found",),
    ),
    Cause(
        "no-fabric-provider",
        "libfabric found no usable provider: no cxi provider in the libfabric that was loaded, or no /dev/cxi* "
        "(Slingshot) or EFA device visible",
        "bind the site's libfabric: `HOST_LIBFABRIC_DIR=/opt/cray/libfabric/<ver>`; run on Slingshot nodes; in a "
        "container bind each /dev/cxi*; `fi_info -p cxi` on the node lists the provider",
        # aws-ofi-nccl 1.18.0 src/nccl_ofi_net.cpp: no protocol (RDMA, SENDRECV) found a provider it can use.
        # libfabric 1.22.0 prov/cxi/src/cxip_if.c line 154: CXIP_WARN("Failed to open CXI Device, ret: %d\n", ret).
        (r"fi_getinfo: -61", r"fi_getinfo\(\) call failed: No data available",
         r"Unable to find a protocol that worked", r"Failed to open CXI Device, ret: -?\d+"),
        82,
        readme=("fi_getinfo: -61",),
    ),
    # --- the ranks never met ----------------------------------------------------------------------------
    Cause(
        "launcher-one-node",
        "the launcher started too few processes: {started} process(es) on {nodes} node(s) where the job needs "
        "one torchrun per node",
        "use the job script's own launcher line (PBS: `mpiexec -n NNODES --ppn 1`; Slurm: "
        "`srun --ntasks-per-node=1`); a wrapper that changed it runs torchrun on one node only; use the script's "
        "own srun line",
        (r"launcher\b.{0,200}?started (?P<started>\d+) process\(es\) on (?P<nodes>\d+) node\(s\)",),
        93,
        readme=("started 1 process(es) on 1 node(s)",),
    ),
    Cause(
        "rendezvous-one-node",
        "torchrun was started on one node only: the job has several nodes, but the batch script (which runs on "
        "the first node) starts torchrun itself, so the rendezvous waits for the other nodes until it times out",
        _ONE_TORCHRUN_PER_NODE,
        (r"RendezvousTimeoutError",),
        92,
        applies=_one_launcher,
        readme=("after 10 min (a job script that runs `torchrun` once",),
        context=(_NODE_COUNT_MULTI,),
    ),
    Cause(
        "rendezvous-unreachable",
        "the rendezvous timed out: a node's torchrun could not reach the head node's rendezvous port, or was "
        "never started there",
        "open `RDZV_PORT` between nodes, or set `RDZV_HOST`/`RDZV_IFACES` to a reachable network (plain torchrun: "
        "`--rdzv_endpoint` on an address every node reaches, e.g. the head's hsn0/ib0 address); make sure a "
        "torchrun runs on every node",
        (r"RendezvousTimeoutError",),
        70,
        applies=_rendezvous_unreachable,
        readme=("RDZV_JOIN_TIMEOUT_S",),
    ),
    Cause(
        "rendezvous-connect",
        "torchrun could not connect to the rendezvous store at --rdzv_endpoint (nothing listens there yet, a "
        "firewall, or an address other nodes cannot reach)",
        f"{remedies.STORE}; give `--rdzv_endpoint` the head node's address on the fast network and check the port "
        "is open",
        # torch 2.13.0 torch/csrc/distributed/c10d/socket.cpp throws "The client socket has failed to connect to any
        # network address of ({}, {})." once every address failed. The per-address "The client socket has failed
        # to connect to {} {}." and "The client socket cannot be initialized to connect to {} {}." are warnings it
        # records (`[W socket.cpp]`) before trying the next address: healthy runs print them for an address family
        # the host cannot use (errno 97 EAFNOSUPPORT: no IPv6; 99 EADDRNOTAVAIL: localhost's other address), so
        # only an address that did not answer (timed out, unreachable, refused, invalid) counts.
        # torch 1.x before that socket.cpp, torch/lib/c10d/Utils.cpp (commit 0106cc7) tcputil::connect():
        # kConnectTimeoutMsg "connect() timed out." (later followed by " Original timeout was %d ms."); a name that
        # does not resolve is "rendezvous-name-not-resolvable".
        (r"RendezvousConnectionError", r"The client socket has timed out after \d+m?s while trying to connect to",
         r"The client socket has failed to connect to (?:any network address|\S{1,300} \(errno: (?!9[79]\b)\d+)",
         r"RuntimeError: connect\(\) timed out\."),
        68,
    ),
    Cause(
        "tcpstore-connection-reset-after-connect",
        "the rendezvous store (torch's TCPStore) reset a client's connection just after it was opened, while the "
        "store was starting: many ranks connecting at once overflow the server's listen backlog (net.core.somaxconn), "
        "and a torch without a check of each new connection sends its first request on the dead socket and fails "
        "instead of reconnecting",
        "rerun first (it is a start-up race); then raise the backlog on the node that runs the store above the rank "
        "count (`sysctl -w net.core.somaxconn=65535`, admins; torch warns `Starting store with N workers but "
        "somaxconn is M`), keep the libuv store backend (the default since torch 2.4: do not set "
        "`USE_LIBUV=0`), and upgrade torch (2.13's TCPStore checks a new connection with a round trip, "
        "validate and ping, and retries); at thousands of ranks start them in waves or use a rendezvous per node "
        "group. If the store's rank had died instead, its own log says why",
        # torch/csrc/distributed/c10d/TCPStore.cpp TCPClient::receiveValue()/receiveBits(): C10D_WARNING("recvValue
        # failed on {}: {}", socket_.repr(), e.what()) and "recvVector failed on {}: {}" (both format strings are in
        # torch v2.13.0's libtorch_cpu.so), with strerror's ECONNRESET; a cause only while the store starts
        # (_TCPSTORE_STARTING): a reset later is the store's rank exiting. The fix, pytorch/pytorch#129985 (d4l3k):
        # "This does a round trip request on socket connect -- this allows for detecting connection resets etc and
        # retrying before the non-retryable application requests are sent."; the constructor then retries
        # validate() and ping() ("if the server listen backlog is full it may fail on the first send in validate").
        (r"\brecv(?:Value|Vector) failed on SocketImpl\([^\n]{0,300}?\): Connection reset by peer",),
        71,
        applies=lambda log: log.has(_TCPSTORE_STARTING),
        context=(_TCPSTORE_STARTING,),
    ),
    Cause(
        "store-address-docker-bridge-ip",
        "a rank was given an address on Docker's default bridge network ({addr}, 172.17.0.0/16) to connect to: "
        "the container runs on Docker's bridge, whose address only its own host reaches, so ranks on other nodes "
        "cannot connect (torch's store, NCCL's sockets)",
        "run the containers with the host's network (`docker run --network=host`; Kubernetes `hostNetwork: true`; "
        "Docker Swarm: the host network), or give every rank an address all nodes reach: `MASTER_ADDR` (or the "
        "framework's own, e.g. Ray's node IP) set to the host's address on the shared network and "
        "`NCCL_SOCKET_IFNAME`/`GLOO_SOCKET_IFNAME` to that interface (`ip -br addr` lists them). Where 172.17.x "
        "is your site's own network and not docker0's (`ip -br addr show docker0` on that node), this is not the "
        "cause: check the route between the nodes",
        # openrlhf/OpenRLHF#265: the actor advertised 172.17.0.2 for the weights' process group, the vLLM workers on
        # the other node timed out connecting to it. The statements: see _STORE_ON_DOCKER_BRIDGE.
        (_STORE_ON_DOCKER_BRIDGE, _NCCL_PEER_ON_DOCKER_BRIDGE),
        72,
    ),
    Cause(
        "nccl-connect",
        "NCCL could not open a connection to another rank: the nodes cannot reach each other on the interface "
        "NCCL chose",
        remedies.PROCESS_GROUP,
        # NCCL to 2.26: "%s: Connect to %s failed : %s" (src/misc/socket.cc); 2.27 and later "%s: connect to %s
        # failed : %s" and "...PollConnect to %s failed with error %s" (src/misc/socket.cc, src/os/linux.cc).
        # The same texts as NCCL's last error, which torch prints bare after "Last error:" (v2.18.5-1
        # src/misc/socket.cc line 483 "socketStartConnect: Connect to %s failed : %s"; v2.30.7-1 src/os/linux.cc
        # line 302 "%s: connect to %s failed : %s", line 288 "%s: connect to %s returned %s, exceeded error retry
        # count after %d attempts"); its retries (line 293 INFO "%s: connect to %s returned %s, retrying (%d/%ld)
        # ...", v2.21.5-1 socket.cc the same words) only in a run that then failed.
        # The socket transport striping over a container bridge or veth pair (_NCCL_SOCKET_ON_BRIDGE: NVIDIA/nccl#697,
        # fixed with NCCL_SOCKET_IFNAME=bond0) only where NCCL's network calls then failed.
        (_NCCL_CONNECT_FAILED, _NCCL_CONNECT_RETRY, _NCCL_SOCKET_ON_BRIDGE),
        66,
        applies=lambda log: ((log.has(_FAILED) or log.has(_NCCL_CONNECT_FAILED) or not log.has(_NCCL_CONNECT_RETRY))
                             and (log.has(_NCCL_CONNECT_FAILED) or log.has(_NCCL_CONNECT_RETRY)
                                  or log.has(_NCCL_NET_FAILED) or not log.has(_NCCL_SOCKET_ON_BRIDGE))),
    ),
    Cause(
        "duplicate-gpu",
        "two ranks on one node use the same GPU (NCCL: {which}): each process must select its own GPU",
        "under torchrun: `torch.cuda.set_device(int(os.environ['LOCAL_RANK']))` before `init_process_group`; "
        "under srun (one task per GPU, no torchrun) srun sets no LOCAL_RANK: with every GPU visible to every task "
        "use `SLURM_LOCALID`; with `--gpus-per-task=1` (which implies `--gpu-bind=per_task`, Slurm's srun docs) each "
        "task sees only its own GPU, as `cuda:0`. Do not hard-code a device or set CUDA_VISIBLE_DEVICES to one GPU "
        "for every task; this project's app.train picks the GPU for both (app/common/distributed.py)",
        # NCCL 2.21-2.29: src/init.cc; 2.30.4: src/graph/topo.cc (and init.cc when NVLS is forced);
        # 2.30.7: src/init.cc.
        (r"Duplicate GPU detected : (?P<which>rank \d+ and rank \d+ both on CUDA device \w+)",
         r"(?P<which>Multiple [Rr]anks (?:detected using|are using) the same GPU)"),
        90,
        # NCCL prints it as it fails the communicator's init (ncclInvalidUsage): a line quoted without any sign
        # that the job failed (NCCL's error, a traceback, a failed task) is not read as the job's cause.
        applies=lambda log: log.has(_FAILED) or log.has(_NCCL_FAILED) or log.has(_NCCL_INVALID_USAGE),
    ),
    # --- the run died while training ------------------------------------------------------------------------
    Cause(
        "hang-named",
        "the hang watchdog named who held the job up: {who}",
        remedies.TIMEOUT + "; the job scripts leave the node out and requeue (nodes-to-exclude.txt)",
        (r"hang: (?P<who>" + _atomic("who_all", r"(?:(?!; no progress for).){1,2000}") + r"); no progress for",),
        88,
    ),
    Cause(
        "check-verdict",
        "app.check failed: {what}",
        "{fix}",
        (r"VERDICT: FAIL \([^)]{0,200}\): (?P<what>" + _atomic("what_all", r"(?:(?!\. Fix: ).){1,1000}")
         + r")\. Fix: (?P<fix>" + _atomic("fix_all", r"(?:(?!\. exit code).){1,2000}") + r")\. exit code \d+",),
        87,
    ),
    Cause(
        "gave-up",
        "the job scripts stopped requeueing: a bad node was found on every attempt (MAX_REQUEUES reached)",
        "read the reasons in the run directory's history.jsonl, report the nodes to the admins, and resubmit with "
        "them excluded (`--exclude=`); raise `MAX_REQUEUES` to allow more attempts",
        (r"\"event\": \"gave-up\"", r"giving up after \d+ requeue\(s\) in a row for bad nodes"),
        86,
    ),
    Cause(
        "cuda-oom",
        "a rank ran out of GPU memory (CUDA out of memory); the other ranks then wait for it",
        "lower the per-GPU batch size, train in bf16, or shard parameters and optimizer state (FSDP); check with "
        "`nvidia-smi` that no other process holds the GPU; for fragmentation "
        "`PYTORCH_ALLOC_CONF=expandable_segments:True` (torch before 2.9: PYTORCH_CUDA_ALLOC_CONF, which torch 2.9 "
        "and later read with a deprecation warning)",
        # NCCL's own allocations: CUDACHECK's "Cuda failure 2 'out of memory'" (src/include/checks.h) and
        # "Failed to CUDA calloc %ld bytes" (src/include/alloc.h), 2.21 to 2.30.
        # cuBLAS' CUBLAS_STATUS_ALLOC_FAILED ("usually caused by a cudaMalloc() failure", cuBLAS documentation), as
        # torch's TORCH_CUDABLAS_CHECK prints it (aten/src/ATen/cuda/Exceptions.h).
        (r"CUDA out of memory", r"CUDA error: out of memory", r"torch\.(?:cuda\.)?OutOfMemoryError",
         r"CUBLAS_STATUS_ALLOC_FAILED",
         r"NCCL WARN Cuda failure (?:2 )?'out of memory'", r"NCCL WARN Failed to CUDA calloc \d+ bytes"),
        80,
    ),
    Cause(
        "node-failure",
        "a node of the job failed (Slurm NODE_FAIL): the scheduler cancelled the job",
        "resubmit without the node (`sbatch --exclude=NODE`) and report it to the admins; the project's job "
        "scripts resume from the last snapshot (`RUN_DIR=runs/<jobid>`)",
        (r"DUE TO NODE FAILURE", r"srun: error: Node failure on \S", r"\bNODE_FAIL\b"),
        78,
    ),
    Cause(
        "pg-timeout-too-short",
        "a collective timed out after {ms} ms, a timeout the program gave its process group far below torch's "
        "defaults (10 minutes for NCCL, 30 for the other backends): a rank that spent longer in work of its own "
        "(evaluation on rank 0, a checkpoint, data preparation) left the others' collective to time out",
        "leave `init_process_group` its default timeout or give it one longer than the slowest single-rank step "
        "(`timeout=datetime.timedelta(minutes=30)`); if every rank was in the collective, the collective itself "
        "hung: `NCCL_DEBUG=INFO` and `TORCH_NCCL_DUMP_ON_TIMEOUT=1` say which",
        # torch 2.2 to 2.13 ProcessGroupNCCL.cpp: the watchdog's "Watchdog caught collective operation timeout: "
        # with operator<<(WorkNCCL) "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" and
        # " ran for %d milliseconds before timing out."; torch 1.8 to 2.1 "WorkNCCL(OpType=%s, Timeout(ms)=%d)"
        # (with TensorShape= in some). The default: ProcessGroupNCCL.hpp kProcessGroupNCCLDefaultTimeout
        # milliseconds(10 * 60 * 1000), torch/distributed/constants.py default_pg_timeout (30 minutes, and NCCL's
        # before torch 2.2). Under five minutes the program set it.
        (r"Watchdog caught collective operation timeout: WorkNCCL\([^)]{0,300}?Timeout\(ms\)=(?P<ms>\d{1,12})\) "
         r"ran for \d+ milliseconds before timing out",),
        61,
        hits_show=lambda found: all(int(m.group("ms")) < 300000 for m in found),
    ),
    Cause(
        "nccl-watchdog",
        "a collective did not finish within the process group's timeout (ranks that reported it: {ranks}); a rank "
        "stopped or fell behind, often starved by the filesystem (data read from GPFS/Lustre) or hung",
        f"{remedies.TIMEOUT}; move the data to fast scratch and give the DataLoader more workers with "
        "`pin_memory=True`; `TORCH_NCCL_DUMP_ON_TIMEOUT=1` (dumps torch's flight recorder, whose buffer is on by "
        "default; this project's job scripts set it) and `NCCL_DEBUG=INFO` say which collective; on HPE Slingshot, "
        "when no rank was slower than the others, CSCS' workaround for NCCL hangs: "
        f"`{policy.opt_in_line('slingshot', 'cxi-no-eager')}`",
        (r"Watchdog caught collective operation timeout", r"Watchdog caught hanging process"),
        60,
        applies=lambda log: not _waited_for_own_work(log) and not log.has(_FIT_ENDED),
    ),
    Cause(
        "walltime",
        "the scheduler killed the job at its time limit",
        "ask for more time (Slurm `--time`, PBS `-l walltime=`), or let the job snapshot before the limit and "
        "resume: the project's job scripts do it (PBS: `-v WALLTIME_S=7200` when `qstat -f` does not say the "
        "walltime) and resume from `RUN_DIR=runs/<jobid>`",
        (r"DUE TO TIME LIMIT", r"PBS: job killed: walltime \d+ exceeded limit \d+"),
        58,
    ),
    Cause(
        "socket-not-fabric",
        "NCCL sends inter-node traffic over TCP sockets (NET/Socket, often the management Ethernet) although the "
        "nodes have InfiniBand or Slingshot: the fast transport was not found or not selected",
        _SOCKET_FIX,
        (r"Using network Socket", r"via NET/Socket", r"NET/Socket : Using"),
        64,
        applies=_socket_instead_of_fabric,
        context=(_FAST_FABRIC,),
    ),
    # --- this project's job scripts, said in their own words ----------------------------------------------
    Cause(
        "no-image",
        "the job found no container image at the path it was given",
        "copy the image to the submit directory as app.sif or point at it: "
        "`--export=ALL,IMAGE=/gpfs/.../app.sif` (PBS: `-v IMAGE=...`); build it with `make image`",
        (r"image \S{1,4096} not found",),
        75,
        readme=("image .../app.sif not found",),
    ),
    Cause(
        "no-apptainer",
        "neither apptainer nor singularity is on the job's PATH",
        "`module load singularity` before `sbatch` or `qsub -V` (the job inherits it; plain qsub passes no "
        "environment), or set `APPTAINER=/path/to/apptainer`",
        (r"(?:apptainer|singularity) not found in PATH",),
        75,
        readme=("apptainer not found in PATH",),
    ),
    Cause(
        "no-gpus",
        "the job has no GPUs, so the script cannot tell how many processes to start per node",
        "keep `--gres=gpu:4` (PBS `ngpus=4`), or set `GPUS_PER_NODE=N`",
        (r"cannot tell how many processes to start per node",),
        75,
        readme=("cannot tell how many processes to start per node",),
    ),
    Cause(
        "no-torchrun",
        "the job's environment has no torchrun (IMAGE=none uses the host's Python environment)",
        "`source .venv/bin/activate` before `sbatch` or `qsub -V` (the job inherits it; plain qsub passes no "
        "environment), or use the image (`IMAGE=/path/app.sif`)",
        (r"torchrun (?:is )?not in PATH",),
        75,
        readme=("torchrun is not in PATH",),
    ),
    Cause(
        "resubmit-defaults",
        "the walltime chain resubmitted the job with the script's #PBS defaults only: `qstat -f` said nothing "
        "about this job's options",
        "resubmit by hand with your `-A -q -l` options; `RUN_DIR=runs/<jobid>` resumes the run",
        (r"resubmitting with the script's #PBS defaults only",),
        55,
        readme=("resubmitting with the script's #PBS defaults only",),
    ),
    Cause(
        "pbs-nodefile-names",
        "PBS_NODEFILE lists node names that no host answers to (a node file copied from another job or system, "
        "or set by hand), so the launchers could not reach those nodes",
        "submit with `qsub` and leave `PBS_NODEFILE` as PBS sets it, or give names that resolve on the nodes "
        "(check one: `getent hosts NAME`)",
        (r"PBS_NODEFILE=\S{0,4096} lists names no host answers to",),
        75,
        readme=("lists names no host answers to",),
    ),
    Cause(
        "torque-pbsdsh",
        "`pbsdsh -u` is TORQUE's \"once per node\"; OpenPBS and PBS Pro have no -u (their pbsdsh runs one task "
        "per PBS_NODEFILE line, one per MPI slot)",
        "use the job script's `LAUNCHER=pbsdsh` (one `pbsdsh -n` per node), or PALS `mpiexec -n NNODES --ppn 1`",
        (r"pbsdsh: invalid option -- '?u'?",),
        70,
        readme=("pbsdsh: invalid option -- 'u'",),
    ),
    Cause(
        "pbsdsh-task-lost",
        "a task the job script started with pbsdsh left no exit code: it did not start on its node, or was killed",
        "see the job's output file (PBS writes the tasks' stderr there)",
        (r"pbsdsh: no exit code from the task on node-file line",),
        60,
        readme=("pbsdsh: no exit code from the task",),
    ),
    Cause(
        "job-script-error",
        "the job script stopped: {message}",
        "the message gives the fix; see also the table for {script} in docs/job-scripts.md",
        (r"^(?:\S{1,4096} )?(?P<script>mn5\.sh|slurm\.sh|gh200-pbs\.sh): error: (?P<message>.{1,4096})",),
        50,
    ),
    Cause(
        "job-input-refused",
        "this project's trainer refused the job's input before it trained: {message}",
        "the message names the key or value and an example that works: fix it in CONFIG, the key=value words after "
        "the script, or your YAML, then try it on the login node first: `DRY_RUN=1 IMAGE=app.sif CONFIG=... bash "
        "jobscripts/<script> ...` runs the same config check (every key: `python -m app.train --help`)",
        # app/host/common/errors.py exits_cleanly: `error: <cause>; <remedy>` and exit code 2; the job's own lines
        # after it say which (config_check.py, job.py): without them an `error:` line is anyone's
        (r"^error: (?P<message>.{1,4096})",),
        52,
        applies=lambda log: log.has(_OWN_INPUT_REFUSED),
    ),
    Cause(
        "own-init-refused",
        "the script's process group was asked to meet elsewhere than the job's sealed store: {why}",
        "start the process group with `init_process_group(\"nccl\")` from app.common.signed_store: "
        "it meets through env:// as the job scripts set it (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE); drop the "
        "argument the line names",
        # app/common/signed_store.py _as_in_the_environment: ValueError("app.common.signed_store.init_process_group:
        # ...") for an init_method other than env://, a store, or a rank or world size other than the launcher's
        (r"app\.common\.signed_store\.init_process_group: (?P<why>.{1,1000})",),
        88,
    ),
    Cause(
        "script-requires-local-rank-argument",
        "the training script's argument parser requires a rank argument ({args}) that its launcher does not pass: "
        "torchrun (and the job scripts, which start it) gives each worker its rank in the environment (LOCAL_RANK, "
        "RANK) and appends no argument, so each rank exits (status 2) before training starts",
        "read the rank from the environment: `local_rank = int(os.environ[\"LOCAL_RANK\"])`, and make the argument "
        "optional if other launchers still pass it: `parser.add_argument(\"--local-rank\", \"--local_rank\", "
        "type=int, default=int(os.environ.get(\"LOCAL_RANK\", -1)))`",
        # CPython v3.11.7 Lib/argparse.py line 2142 self.error(_('the following arguments are required: %s') %
        # ', '.join(required_actions)), printed by error() as '%(prog)s: error: %(message)s'; torch v2.13.0
        # torch/distributed/run.py appends --local-rank only when not use_env, which torchrun never is.
        (r": error: the following arguments are required: (?P<args>(?:[^\n]{0,300}?)--local[-_]rank\b[^\n]{0,300})",),
        90,
    ),
    Cause(
        "python-module-missing",
        "the program imports {module}, which the Python it ran under does not have: the image's (a package the "
        "image lacks), or with IMAGE=none the environment the job found on the node",
        "add the package that provides {module} to the image: `make image-extend IMAGE=app.sif WHEELS=DIR OUT=my.sif "
        "PACKAGES=<package>`, then `IMAGE=my.sif`; with IMAGE=none, `pip install` it into the "
        "environment the job activates; a module of your own: keep it beside your script (its directory is on the "
        "path; the workers of train and check import only this checkout)",
        # CPython v3.11.7 Lib/importlib/_bootstrap.py line 1140 raise ModuleNotFoundError(_ERR_MSG.format(name),
        # name=name), _ERR_MSG = 'No module named ' + '{!r}' (line 1118). mpi4py has its own cause.
        (r"ModuleNotFoundError: No module named '(?P<module>(?!mpi4py')[\w.]{1,200})'",),
        40,
    ),

    # --- the node and the runtime: shared and locked memory, GPUs, container runtimes, NCCL's bootstrap ------
    # Each pattern is a message its program prints (sources in the module docstring); where the node itself can
    # settle a reading, the fix names the `python -m app.check` line that shows it.
    Cause(
        "slurm-request-unsatisfiable",
        "Slurm refused the job: no node of the partition has what it asks for (GPUs, memory, CPUs, features), "
        "often a GPU request in a partition without GPUs",
        "ask for a partition whose nodes have it: `-p` with the GPU partition (and the QOS it needs), no more "
        "GPUs, memory or CPUs per node than one node has (`sinfo -p PART -o '%P %G %m %c'` lists them)",
        (r"Requested node configuration is not available",),
        100,
    ),
    Cause(
        "image-corrupt",
        "the container image file is damaged (a download or copy that stopped part-way)",
        "copy or build the image again (`make image`) and compare its size or `sha256sum` with the source; "
        "point `IMAGE=` at the new file",
        (r"SIF image\s?\S+ is corrupted",),
        97,
    ),
    Cause(
        "bind-destination-missing",
        "the container runtime could not bind {path}: the directory does not exist in the image and Apptainer "
        "cannot create it (a --writable image, or overlay and underlay disabled)",
        "bind to a directory the image has (`BINDS=SRC:/existing/dir`), or create it in the image's %post "
        "(`mkdir -p DIR`) and rebuild; without --writable Apptainer creates bind points itself; during `apptainer "
        "build` the bind came from the environment (APPTAINER_BIND or SINGULARITY_BIND, set by a site module such as "
        "OLCF's apptainer-enable-mpi for /opt/cray): unload that module or unset the variable for the build and "
        "load it only to run",
        (r"destination (?P<path>\S+) doesn't exist in container",),
        95,
    ),
    Cause(
        "enroot-caps-missing",
        "enroot's helpers lack the file capabilities they need (the enroot+caps package is not installed on the "
        "node), so unpacking the image fails",
        "ask the admins to install enroot+caps next to enroot (NVIDIA/enroot's install docs); or run the "
        "project's Apptainer image instead (`IMAGE=app.sif`)",
        (r"enroot-[\w-]+: failed to set capabilities: Operation not permitted",),
        95,
    ),
    Cause(
        "enroot-uid-overflow",
        "the kernel refused enroot's user namespace (EINVAL): the uid map it wrote is invalid, as with a uid "
        "above 2^31 that enroot writes as a negative number",
        "report it to the admins with `id -u` (enroot writes a uid above 2^31 as negative, NVIDIA/enroot#195); "
        "the project's Apptainer image (`IMAGE=app.sif`) does not go through enroot",
        (r"enroot-[\w-]+: failed to create user namespace: Invalid argument",),
        95,
    ),
    Cause(
        "userns-restricted-apparmor",
        "a Linux security module refused to let an unprivileged user create a user namespace (EACCES), which "
        "Apptainer (without setuid) and enroot need to start the container: Ubuntu's AppArmor restriction of "
        "unprivileged user namespaces (23.10 and later) for a program without an AppArmor profile that allows "
        "them, or an SELinux policy",
        "the admins install the runtime's AppArmor profile that grants `userns` (Apptainer's packages ship "
        "/etc/apparmor.d/apptainer; for enroot a profile with `userns,` for its binaries), or set "
        "`kernel.apparmor_restrict_unprivileged_userns=0`; or a setuid Apptainer (apptainer-suid); "
        "`unshare --user --map-root-user true` on the node shows whether it is allowed",
        # The kernel's sysctls refuse with EPERM or ENOSPC (kernel/user_namespace.c, "userns-restricted"); EACCES
        # comes from the LSM hook security_create_user_ns (AppArmor's userns mediation, Linux 6.7 and Ubuntu's
        # kernels before it). Apptainer 1.4.5 cmd/starter/c/starter.c line 1442 fatalf("Failed to create user
        # namespace: %s\n", nserror(errno, CLONE_NEWUSER)), whose nserror() prints EACCES as strerror's
        # "Permission denied"; enroot 4.1.2 bin/enroot-nsenter.c line 167 err(EXIT_FAILURE, "failed to create user
        # namespace") with strerror.
        (r"Failed to create user namespace: Permission denied",
         r"enroot-[\w-]+: failed to create user namespace: Permission denied"),
        94,
    ),
    Cause(
        "userns-restricted",
        "the node does not let unprivileged users create user namespaces, which Apptainer (without setuid) and "
        "enroot need to start the container: Ubuntu's AppArmor restriction (23.10 and later), "
        "kernel.unprivileged_userns_clone=0, or user.max_user_namespaces=0",
        "the admins allow them on the compute nodes: on Ubuntu an AppArmor profile for apptainer/enroot that "
        "grants `userns` (or `kernel.apparmor_restrict_unprivileged_userns=0`), elsewhere "
        "`kernel.unprivileged_userns_clone=1` and a non-zero `user.max_user_namespaces`; or a setuid Apptainer "
        "(apptainer-suid); `unshare --user --map-root-user true` on the node shows whether it is allowed",
        # Apptainer 1.4.5 cmd/starter/c/starter.c line 1442 fatalf("Failed to create user namespace: %s\n",
        # nserror(errno, CLONE_NEWUSER)), nserror() (lines 455 to 530) wording EPERM and ENOSPC itself and EACCES
        # (AppArmor) as strerror's "Permission denied"; enroot 4.1.2 bin/enroot-nsenter.c line 167 err(EXIT_FAILURE,
        # "failed to create user namespace") with strerror (EINVAL there is enroot-uid-overflow).
        # EACCES ("Permission denied") is a security module's refusal: "userns-restricted-apparmor".
        (r"Failed to create user namespace: (?:Operation not permitted|user namespace requires "
         r"to set \S+ to 1|not allowed to create user namespace|maximum number of user namespaces exceeded"
         r"|user namespace disabled|user namespace not supported by your system)",
         r"enroot-[\w-]+: failed to create user namespace: (?:Operation not permitted|No space left on device)",
         # Ubuntu 24.04's AppArmor restriction lets the namespace be created without capabilities: the starter's
         # write to /proc/PID/setgroups is then refused (Apptainer v1.3.3 cmd/starter/c/starter.c line 684, v1.4.5
         # line 692: fatalf("Could not write info to setgroups: %s\n", strerror(errno))).
         r"Could not write info to setgroups: Permission denied",
         # The starter's clone() of the container process with CLONE_NEWUSER (--fakeroot, --userns, an unprivileged
         # install), Apptainer v1.4.5 cmd/starter/c/starter.c line 1711 (v1.1.9 line 1704, v1.3.6 line 1703)
         # fatalf("Failed to create container process: %s\n", strerror(errno)), after line 1709 infof("Unprivileged
         # user namespaces may not be enabled\n") for EINVAL: clone(2) gives EINVAL where the kernel has no user
         # namespaces for this user (RHEL 7's user_namespace.enable=0), ENOSPC (EUSERS before Linux 4.9) where
         # user.max_user_namespaces is 0 or spent, EPERM where kernel.unprivileged_userns_clone=0. (The two
         # "Failed to create container namespace" lines above it test `flags & CLONE_NEWPID != 0`, which C reads as
         # `flags & 1`: they never print.)
         r"Failed to create container process: (?:Invalid argument|No space left on device|Too many users"
         r"|Operation not permitted)\b",
         r"Unprivileged user namespaces may not be enabled"),
        94,
    ),
    Cause(
        "pyxis-runtime-full",
        "pyxis ran out of space where it unpacks the image (its runtime_path, /run/pyxis by default, a small "
        "tmpfs; or enroot's data and cache paths)",
        "ask the admins to set pyxis' `runtime_path` (its plugstack.conf line) and enroot's ENROOT_DATA_PATH to a "
        "filesystem with room, or import once (`enroot import`) and pass the .sqsh file to --container-image",
        (_PYXIS_FULL,
         # A write that failed while enroot started the container (its hooks write the container's /etc and
         # unpack into ENROOT_DATA_PATH, by default under $HOME, whose quota is small): read only where the start
         # failed.
         r"No space left on device|Disk quota exceeded"),
        95,
        applies=lambda log: log.has(_ENROOT_START_FAILED) or log.has(_PYXIS_FULL),
    ),
    Cause(
        "fabric-manager-down",
        "the node's NVSwitch fabric is not ready: CUDA says the system is not yet initialized (error 802), or NCCL "
        "could not bind NVLink SHARP (NVLS) multicast memory; on an NVSwitch node (HGX/DGX) NVIDIA Fabric Manager "
        "is not running (or was not set up with the driver), so the GPUs cannot be used together",
        "the admins start it and enable it at boot: `systemctl enable --now nvidia-fabricmanager` (its version "
        "must equal the driver's; for NVLS multicast also the IMEX channel devices, `nvidia-caps-imex-channels`); "
        "resubmit without the node (`--exclude=NODE`) meanwhile, or run without NVLS (`EXTRA_ENV=NCCL_NVLS_ENABLE=0`) "
        "where the error is NCCL's NVLS bind; `python -m app.check` says it per node in its `gpu: Fabric Manager` "
        "line",
        # The node's journal: systemd's "%s: Main process exited, code=%s, status=%i/%s" (src/core/service.c, the
        # unit's name first) for Fabric Manager's unit, which exits at start when it cannot run (a version that does
        # not match the driver's, a missing NVSwitch).
        (r"system not yet initialized", r"cuda runtime error \(802\)", r"cudaErrorSystemNotReady",
         r"CUDA_ERROR_SYSTEM_NOT_READY",
         r"nvidia-fabricmanager\.service: Main process exited, code=\w+, status=[1-9]",
         # Fabric Manager's own refusal to start (closed source; its log and journal line, 550 drivers).
         r"NVIDIA GPU driver interface version \S+ don't match with driver version",
         # NCCL's NVLS setup, which fails the communicator when CUDA cannot bind the multicast memory the
         # NVSwitches serve (cuMulticastBindMem blocks until every local rank joined): NCCL v2.27.3-1 to v2.28.9-1
         # src/transport/nvls.cc line 284 WARN("Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld :
         # CUDA error %d '%s'.\nThis is usually caused by a system or configuration error in the Fabric Manager or
         # NVSwitches.\n..."), v2.30.7-1 line 376 the same; the WARN's second line is printed on a line of its own.
         # (Its INFO twin, "... Proceeding without NVLS support.", is no failure.)
         r"NCCL WARN Failed to bind NVLink SHARP \(NVLS\) Multicast memory",
         r"^This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches"),
        94,
    ),
    Cause(
        "driver-too-old",
        "the node's NVIDIA driver is older than the CUDA the program (torch in the image) was built for needs",
        "on data-center GPUs the image runs on an older driver through CUDA forward compatibility: leave "
        "`APP_CUDA_COMPAT` unset (auto) or set it to `on`, and start commands through the image's runscript, the job "
        "scripts or `sh /opt/app/cuda_compat.sh COMMAND` (a bare `apptainer exec` skips it); where compat cannot help "
        "(a consumer GPU, a driver below the compat floor), "
        "run on nodes with a newer driver (the admins update it; CUDA 12.x needs 525.60.13 or newer, 13.x 580), or "
        "use an image built on an older NGC PyTorch base (containers/versions.env) and point `IMAGE=` at it; "
        "`python -m app.check` compares them per node in its `gpu: driver vs CUDA` line",
        # CUDA's 222 (cudaErrorUnsupportedPtxVersion, CUDA_ERROR_UNSUPPORTED_PTX_VERSION): PTX from a compiler newer
        # than the driver's JIT, the same too-old driver met when a kernel is compiled for the GPU at load time.
        # 804 (cudaErrorCompatNotSupportedOnDevice): the runtime is newer than the driver and the forward-compat
        # libcuda it would need does not run on this GPU (data-center GPUs only, CUDA's compatibility guide): the
        # driver is too old for it, and without the compat library the same run fails with 35.
        (r"CUDA driver version is insufficient for CUDA runtime version",
         r"The NVIDIA driver on your system is too old",
         r"the provided PTX was compiled with an unsupported toolchain",
         # The same 222 by name, as cudaGetErrorName() and cuGetErrorName() give it (CUDA 12.x), where a program
         # prints the name instead of the words ("CUDA RUNTIME API error: Free failed with error %s").
         r"\bcudaErrorUnsupportedPtxVersion\b|\bCUDA_ERROR_UNSUPPORTED_PTX_VERSION\b",
         r"forward compatibility was attempted on non supported HW", r"cudaErrorCompatNotSupportedOnDevice"),
        94,
    ),
    Cause(
        "nccl-version-mismatch",
        "torch was built against a newer NCCL than the libnccl it loaded (symbol {symbol} missing): another "
        "package or LD_LIBRARY_PATH puts an older NCCL first",
        "load the NCCL torch ships: remove the other NCCL from LD_LIBRARY_PATH (or the conflicting pip "
        "package, e.g. an old nvidia-nccl-cu12), or use a torch built for the NCCL you have; "
        "`python -c 'import torch; print(torch.cuda.nccl.version())'` says which it loads",
        (r"undefined symbol: (?P<symbol>nccl\w+)",),
        94,
    ),
    Cause(
        "cuda-library-missing",
        "a CUDA library the program was built against, {lib}, was not found when it loaded: the job's environment "
        "lacks that CUDA (the module or conda environment of the build not loaded where the job runs, "
        "LD_LIBRARY_PATH not passed to the tasks, or a build for a newer CUDA than the one installed)",
        "give the job the CUDA the program was built with: `module load` it in the job script (not only on the "
        "login node), keep the submit environment (`sbatch` passes it unless `--export=NONE`; PBS `qsub -V`), or use "
        "a build that carries its CUDA libraries (pip's torch wheels, the project's image); `ldd` on the library "
        "that failed to load lists every dependency `not found`",
        # glibc 2.3x elf/dl-load.c (_dl_map_object): _dl_signal_error (errno, name, NULL, N_("cannot open shared
        # object file")), as CPython's ImportError/OSError and the dynamic loader print it, for the libraries of
        # the CUDA toolkit and NCCL (libcudart, libcublas, libcublasLt, libcudnn*, libnccl, libcufft, libcurand,
        # libcusparse, libcusolver, libnvrtc, libnvJitLink, libcupti). Not libcuda.so, the driver's (apptainer-no-nv).
        (r"\b(?P<lib>lib(?:cudart|cublas(?:Lt)?|cudnn\w{0,30}|nccl|cufft|curand|cusparse|cusolver|nvrtc|nvJitLink"
         r"|cupti)\.so(?:\.[\d.]{1,20})?): cannot open shared object file",),
        76,
    ),
    Cause(
        "apptainer-no-nv",
        "the process found no NVIDIA driver library (libcuda.so.1) or tool (nvidia-smi): a container started "
        "without --nv, which binds the host's driver into it, or a node without a GPU driver",
        "start the container with `--nv` (the job scripts do: keep it if you run apptainer by hand or change "
        "`APPTAINER_ARGS`), on a GPU node (`--gres=gpu:4`); the image carries no driver, the host provides it; "
        "`python -m app.check` warns in its `container: GPU devices` line",
        # torch c10/cuda/CUDAFunctions.cpp device_count_impl (2.x), for cudaErrorInsufficientDriver with no driver
        # version at all (no libcuda loaded): "Found no NVIDIA driver on your system. Please check that you have an
        # NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx".
        (r"libcuda\.so(?:\.1)?: cannot open shared object file", r"unable to find libcuda\.so",
         r"Found no NVIDIA driver on your system",
         # The container command itself, where the log shows no driver message: a GPU job whose apptainer or
         # singularity exec/run/shell line has no --nv (nor --nvccli, --rocm, APPTAINER_NV) and whose program then
         # crashed (the shell's "Segmentation fault", glibc-2.39 sysdeps/generic/siglist.h line 39, from a CUDA
         # program that does not check its errors) or found no GPU (CUDA's 100, "no CUDA-capable device is
         # detected"); sigma2's CUDA-in-containers guide shows it.
         _CONTAINER_WITHOUT_NV,
         # The container's own nvidia-smi missing where no --nv (nor --nvccli) was given: with it, the host's
         # driver is the question (apptainer-nv-no-host-driver).
         _NO_NVIDIA_SMI_IN_CONTAINER),
        91,
        applies=lambda log: log.has(_NO_DRIVER_LIB) or (
            ((log.has(_GPU_ASKED) and log.has(_NO_GPU_SYMPTOM)) or log.has(_NO_NVIDIA_SMI_IN_CONTAINER))
            and not log.has(_NV_GIVEN)),
    ),
    Cause(
        "host-oom",
        "a task used more host memory than the job may: the kernel's OOM killer in Slurm's cgroup, or PBS' "
        "memory limit",
        "ask for more host memory (`--mem=`, `--mem-per-gpu=`, or `--exclusive --mem=0` for a whole node; PBS and "
        "Torque `-l mem=`, whose queue default applies when a job asks for none), or "
        "use less: fewer DataLoader workers, a smaller batch, data read lazily instead of loaded whole; "
        "`sacct -j JOBID -o JobID,MaxRSS,ReqMem` shows what it used",
        # OpenPBS v23.06.06 src/resmom/mom_main.c: "=>> PBS: job killed: %s" with "mem %lukb exceeded limit %lukb"
        # (line 5969), "vmem %lukb exceeded limit %lukb" (5954), and job_over_limit()'s sum over a multi-node job's
        # nodes, "%s job total %lu %s exceeded limit %lu %s" with mem and kb (6185).
        # Slurm 25.11.7, where it polls memory itself (JobAcctGatherParams=OverMemoryKill) instead of a cgroup:
        # src/interfaces/jobacct_gather.c "%ps exceeded memory limit (%"PRIu64" > %"PRIu64"), being killed" and the
        # job notice "Exceeded job memory limit"; src/slurmd/slurmd/job_mem_limit.c "Job %u exceeded memory limit
        # (%"PRIu64">%"PRIu64"), cancelling it".
        (r"Detected \d+ oom[-_]kill event", r"srun: error: \S+: tasks? [\d,-]+: Out Of Memory",
         r"PBS: job killed: v?mem \d+kb exceeded limit \d+kb", r"PBS: job killed: mem job total \d+ kb exceeded limit ",
         r"exceeded memory limit \(\d+ ?> ?\d+\), (?:being killed|cancelling it)", r"Exceeded job memory limit",
         # The kernel's OOM killer (Linux v6.8 mm/oom_kill.c __oom_kill_process() pr_err("%s: Killed process %d
         # (%s) total-vm:%lukB, ...", message, ...) with "Out of memory" or "Memory cgroup out of memory"; before
         # 4.19 oom_kill_process() also "%s: Kill process %d (%s) score %u or sacrifice child"), as dmesg and the
         # node's journal show it.
         r"(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process \d+ \(",
         # Older Slurm's task/cgroup (task_cgroup_memory.c task_cgroup_memory_check_oom(), read in a stored copy
         # whose version is not recorded; newer ones count oom_kill events) info("Exceeded step memory limit at some
         # point."), read from the cgroup's failcnt: it also shows in runs that finished (memory reclaimed from
         # the page cache, SchedMD bug 3214), so it counts in a failed run only (the condition below).
         r"Exceeded (?:step|job) memory limit at some point",
         # Moab (and Maui) under Torque, the job-deletion notice of its resource-limit policy (closed source; the
         # line as the deletion mail and the job's output show it: "job 10086535 exceeded MEM usage hard limit (516
         # > 140)", in MB; DCCN's Torque guide, cBio's cluster): the job used more memory than it asked for (or than
         # the queue's default when it asked for none).
         r"\bexceeded MEM usage (?:hard|soft) limit \(\d+ > \d+\)"),
        79,
        applies=lambda log: not log.has(_MEMORY_FAILCNT) or log.has(_FAILED) or log.has(_HOST_OOM_KILL),
    ),
    Cause(
        "job-pids-limit-exceeded",
        "the job reached its limit on processes and threads: fork() failed with EAGAIN (the job's pids cgroup "
        "limit, pids.max, that the site's Slurm or the container sets, or the user's `ulimit -u`), so the shell "
        "could start no more programs",
        "start fewer processes and threads per node: DataLoader `num_workers` times the ranks per node, OpenMP and "
        "BLAS threads (`OMP_NUM_THREADS`), a script that starts programs in a loop without waiting for them; "
        "`cat /sys/fs/cgroup/pids.max` and `ps -eLf | wc -l` inside the job (or `ulimit -u`) show the limit and "
        "the count; the site's documentation says the job's limit (Mila: 2000 tasks per job)",
        # bash-5.2 jobs.c line 2173 sys_error ("fork: retry"), while fork() fails with EAGAIN (it retries, doubling
        # its sleep up to FORKSLEEP_MAX), then line 2190 sys_error ("fork") (nojobs.c lines 532 and 556 the same;
        # jobs.c line 1744 in 4.2): error.c sys_error prints "%s: " (the shell or the script) and ": %s\n" with
        # strerror(errno), glibc's "Resource temporarily unavailable" for EAGAIN. fork() returns EAGAIN only at a
        # limit on tasks (RLIMIT_NPROC, the pids cgroup, the kernel's threads-max or pid_max); out of memory is
        # ENOMEM, "Cannot allocate memory".
        (r"\bfork: (?:retry: )?Resource temporarily unavailable\b",),
        80,
    ),
    Cause(
        "fabric-manager-restarted",
        "NCCL's NVLink SHARP (NVLS) setup failed in CUDA ('{error}'): NVIDIA Fabric Manager was restarted while "
        "the GPUs held its resources, and the GPUs need a reset",
        "the admins reset the GPUs or reboot the node (Fabric Manager user guide: reset the GPUs after FM is "
        "restarted); resubmit without it (`--exclude=NODE`); to run meanwhile `EXTRA_ENV=NCCL_NVLS_ENABLE=0`; "
        "`python -m app.check` shows the fabric's state per node in its `gpu: Fabric Manager` line",
        # Any CUDA failure in NCCL's NVLS transport (src/transport/nvls.cc, CUCHECK through src/include/cudawrap.h
        # "Cuda failure %d '%s'", v2.19 to v2.30.7-1): the multicast objects it creates live on the NVSwitches that
        # Fabric Manager programs, and NCCL's maintainers read the WARN as FM restarted without a GPU reset, whatever
        # CUDA's error ('invalid argument', 'unknown error': NVIDIA/nccl-tests#276). A log cut inside the quote
        # still counts.
        (r"nvls\.cc:\d+ NCCL WARN Cuda failure (?:\d+ )?'(?P<error>[^']{1,80})",),
        89,
    ),
    Cause(
        "pmix-gds-mismatch",
        "PMIx could not set up its shared-memory data store (gds): the client in the container and Slurm's PMIx "
        "server disagree on it, or the client cannot reach the server's files",
        "export `PMIX_MCA_gds=hash` to the tasks (`EXTRA_ENV=PMIX_MCA_gds=hash`, or `--export=ALL,"
        "PMIX_MCA_gds=hash` for srun); with srun --mpi=pmix into a container, bind Slurm's PMIx directories too",
        # The store's own files: dstore_*.c, and gds/ds12 or gds/ds21 (PMIx 4.2 in a container that does not see
        # PMIX_SERVER_TMPDIR: "PMIX ERROR: ERROR in file .../src/mca/gds/ds12/gds_ds12_lock_pthread.c")
        (r"PMIX ERROR: (?:PMIX_ERR_)?OUT[-_]OF[-_]RESOURCE", r"PMIX ERROR: [\w-]+ in file \S*dstore",
         r"PMIX ERROR: [\w-]+ in file \S*gds/ds\d+/",
         # PMIx 4.2.9 src/util/pmix_error.h "PMIX ERROR: %s in file %s at line %d" from its TCP transport (ptl):
         # the client cannot reach the server's rendezvous (a container that does not see its directory).
         r"PMIX ERROR: UNREACH\w* in file \S*ptl"),
        88,
        # The ds12/ds21 lock files also log when pthread_rwlock_destroy fails at teardown, after programs ran fine
        # (pmix_ds12_lock_finalize; open-mpi/ompi#7516, openpmix/openpmix#1716), and the store its not-found lines
        # (_pmix_error_of_its_own): alone, they count in a failed run.
        applies=lambda log: log.has(_PMIX_OWN_ERROR) or log.has(_MPI_FAILED),
    ),
    Cause(
        "gpus-per-task-binding",
        "a rank asked for a GPU it cannot see: with srun --gpus-per-task each task sees only its own GPU, as "
        "device 0, so selecting GPU LOCAL_RANK fails on every rank but the first",
        "ask for GPUs per node (`--gres=gpu:4` or `--gpus-per-node=4`) and one torchrun per node, or keep "
        "--gpus-per-task and select `cuda:0`; this project's `LAUNCH=srun` picks the one visible GPU",
        (r"invalid device ordinal",),
        86,
        applies=lambda log: log.has(_GPUS_PER_TASK),
        context=(_GPUS_PER_TASK,),
    ),
    Cause(
        "too-many-ranks-per-node",
        "a rank asked for a GPU the node does not have: more processes per node than visible GPUs (torchrun's "
        "--nproc_per_node against CUDA_VISIBLE_DEVICES or the allocation)",
        "start as many processes per node as GPUs: `--nproc_per_node` = the GPUs in CUDA_VISIBLE_DEVICES "
        "(the job scripts take it from the allocation; `GPUS_PER_NODE=N` overrides); under srun with "
        "--gpus-per-task each task sees one GPU, as device 0",
        (r"invalid device ordinal",),
        85,
        # Not where the traceback shows the device chosen by the global rank: device-from-global-rank.
        applies=lambda log: not log.has(_GPUS_PER_TASK) and not log.has(_DEVICE_FROM_GLOBAL_RANK),
    ),
    Cause(
        "device-from-global-rank",
        "a rank chose its GPU by its global rank (`torch.cuda.set_device(rank)`, `cuda:{rank}`): on the second "
        "node and later the number is past the node's GPUs, so CUDA refuses the device (the first node runs)",
        "choose the GPU by the rank on the node: `torch.cuda.set_device(int(os.environ['LOCAL_RANK']))` (torchrun "
        "sets LOCAL_RANK; under srun without torchrun, SLURM_LOCALID), or `rank % torch.cuda.device_count()`",
        # The same CUDA string as too-many-ranks-per-node (cudaErrorInvalidDevice): the second reading of it, which
        # only the program's code tells apart (a device index above the node's GPU count on node 2 and later).
        (r"invalid device ordinal",),
        84,
        applies=lambda log: not log.has(_GPUS_PER_TASK),
        context=(_DEVICE_FROM_GLOBAL_RANK,),
    ),
    Cause(
        "cuda-unavailable",
        "the process sees no GPU: torch without CUDA, a CPU node or allocation, or CUDA_VISIBLE_DEVICES empty",
        "run on GPU nodes with GPUs allocated (`--gres=gpu:4`, PBS `ngpus=4`) and a CUDA build of torch (the "
        "image has one); `python -m app.check`'s `gpu: devices` line on the node says which; where `nvidia-smi` "
        "lists GPUs but CUDA finds none, CUDA_VISIBLE_DEVICES names GPUs the job does not have (leave it to the "
        "scheduler), or the container sees other device files than the job's (Slurm's cgroup.conf "
        "`ConstrainDevices=yes`); where `nvidia-smi` fails too, the driver's module is not loaded (a kernel update "
        "without a reboot)",
        # CUDA's string for cudaErrorNoDevice (100), and the driver API's CUDA_ERROR_NO_DEVICE. A torch without
        # CUDA asked for the nccl backend: torch 2.13.0 torch/distributed/distributed_c10d.py line 2181 raise
        # RuntimeError("Distributed package doesn't have NCCL built in") (a CPU-only wheel, or a macOS or Windows
        # build).
        (r"ProcessGroupNCCL is only supported with GPUs, no GPUs found", r"Torch not compiled with CUDA enabled",
         r"No CUDA GPUs are available", r"no CUDA-capable device is detected", r"CUDA_ERROR_NO_DEVICE\b",
         r"Distributed package doesn't have NCCL built in",
         # HIP's hipErrorNoDevice by name and by string (ROCm/clr hipamd/src/hip_error.cpp, commit bb3a2f0,
         # ihipGetErrorName line 83 "hipErrorNoDevice", ihipGetErrorString "no ROCm-capable device is detected"):
         # the same on AMD GPUs (a job without --gres=gpu:N, --gpus or ROCR_VISIBLE_DEVICES set empty).
         r"\bhipErrorNoDevice\b", r"no ROCm-capable device is detected"),
        84,
    ),
    Cause(
        "deepspeed-op-build",
        "DeepSpeed (or another torch extension) could not compile its CUDA ops: no CUDA toolkit (nvcc, headers) "
        "or one that does not match torch's CUDA",
        "use a CUDA toolkit of torch's version (`torch.version.cuda`) with nvcc and headers, and point "
        "`CUDA_HOME` at it, or prebuild the ops when installing (`DS_BUILD_OPS=1 pip install deepspeed`)",
        # DeepSpeed 0.19.5 op_builder/builder.py line 130: the CUDA mismatch it refuses ends in "unable to compile";
        # the same words without it (lines 119 and 125) are printed where it accepts the mismatch.
        (r"CUDA_HOME does not exist, unable to compile CUDA op", r"Error building extension '[\w.-]+'",
         r"fatal error: [\w./-]+\.h: No such file or directory",
         r"does not match the version torch was compiled with \S+, unable to compile"),
        85,
        applies=lambda log: log.has(_OP_BUILD),
        context=(r"Installed CUDA version \S+ does not match the version torch was compiled with",),
    ),
    Cause(
        "hostfile-unresolvable",
        "the launcher could not resolve a host name it was given ({host}): a hostfile (DeepSpeed, pdsh, mpirun) "
        "lists names the nodes do not know",
        "list the job's own nodes (Slurm `scontrol show hostnames \"$SLURM_JOB_NODELIST\"`, PBS `$PBS_NODEFILE`) "
        "or their addresses; `getent hosts NAME` on a node checks one; without ssh, start one process per node "
        "with srun instead of a hostfile",
        (r"ssh: Could not resolve hostname (?P<host>[^\s:]+): ",),
        84,
    ),
    Cause(
        "deepspeed-mpi-discovery",
        "DeepSpeed found no RANK/WORLD_SIZE/LOCAL_RANK from its launcher and fell back to MPI discovery, which "
        "needs mpi4py",
        "start it with a launcher that sets them (torchrun, the `deepspeed` launcher, or this project's job "
        "scripts with `LAUNCH=torchrun`), or install mpi4py when the job runs under mpirun/srun with PMI",
        (r"No module named '?mpi4py'?",),
        83,
        context=(r"attempting to detect MPI environment",),
    ),
    Cause(
        "shm-not-writable",
        "NCCL could not create its shared-memory segment in /dev/shm: permission denied (a /dev/shm not "
        "writable for the user, e.g. not mode 1777)",
        "the admins make /dev/shm mode 1777 on the node; in a container bind a writable one "
        "(`BINDS=/dev/shm`); `EXTRA_ENV=NCCL_SHM_DISABLE=1` runs meanwhile (slower within a node); "
        "`python -m app.check` shows each node's in its `node: /dev/shm` line",
        # NCCL 2.22+ when mkstemp in /dev/shm fails (src/misc/shmutils.cc, src/os/linux.cc): "failed to create
        # shared memory file PATH, error Permission denied (13)"
        (r"shm_open failed ?: Permission denied", r"shared memory segment \S+ \(size \d+\), error: Permission denied",
         r"failed to extend \S+ to \d+ bytes, error: Permission denied",
         r"failed to create shared memory file \S+, error Permission denied"),
        84,
    ),
    Cause(
        "shm-too-small",
        "a process ran out of shared memory in /dev/shm (NCCL's segments, or the DataLoader workers' tensors): it "
        "is too small or full (a container's private /dev/shm: Docker's 64 MB, Apptainer's --contain)",
        "give the job the node's /dev/shm: drop `--contain`/`--containall` from `APPTAINER_ARGS` (Apptainer "
        "then shares the host's), or `BINDS=/dev/shm`; Docker/Kubernetes `--shm-size=1g` or `--ipc=host`; "
        "remove stale /dev/shm/nccl-* files; `python -m app.check` prints each node's size in its `node: /dev/shm` "
        "line",
        # torch's DataLoader (torch/csrc/DataLoader.cpp, commit 03d4ef6): the parent's "DataLoader worker (pid %d) is
        # killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory." and the
        # worker's own SIGBUS handler "ERROR: Unexpected bus error encountered in worker. This might be caused by
        # insufficient shared memory (shm)."
        (r"posix_fallocate failed: No space left on device", r"failed to extend /dev/shm/\S+ to \d+ bytes",
         r"Error while creating shared memory segment", r"dataloader's workers are out of shared memory",
         r"bus error encountered in worker\. This might be caused by insufficient shared memory",
         # torch's shared-memory allocator (aten/src/ATen/MapAllocator.cpp, the string in the 2.13.0 wheel's
         # libtorch_cpu.so): "unable to write to file <" NAME ">: " strerror " (" errno ")", for the /torch_PID_...
         # segments the DataLoader's workers hand their batches over in, which live in /dev/shm.
         r"unable to write to file </torch_\w{1,80}>: No space left on device"),
        83,
    ),
    Cause(
        "unsquashfs-xattr-write-failed",
        "unsquashfs, unpacking the SIF image into a sandbox directory (`--fakeroot`, an unprivileged run's temporary "
        "sandbox, `build --sandbox`), could not set the files' extended attributes: as non-root it may not write "
        "security.* ones (security.capability), and the target (tmpfs, many NFS mounts) may hold none; squashfs-tools "
        "4.4 and later exit with an error for it, and Singularity before 3.7 did not tell it to skip them",
        "use Apptainer (any 1.x) or SingularityCE 3.7 or later: they pass unsquashfs `-user-xattrs` when not root "
        "and `-no-xattrs` where the target holds no user xattrs; with an older Singularity, point "
        "`SINGULARITY_TMPDIR`/`APPTAINER_TMPDIR` at a local disk with user xattrs (ext4, xfs; not tmpfs or NFS), "
        "or make the sandbox where the build runs as root (`sudo apptainer build --sandbox` on local disk); "
        "`unsquashfs -no-xattrs -d DIR IMAGE.sif` unpacks by hand",
        # squashfs-tools 4.4 squashfs-tools/unsquashfs_xattr.c line 127 (4.6.1 line 263) ERROR("write_xattr: could
        # not write xattr %s for file %s because you're not superuser!\n", ...), then line 131 "write_xattr: to avoid
        # this error message, either specify -user-xattrs, -no-xattrs, or run as superuser!\n" (4.6.1 line 267:
        # "-xattrs-include '^user.'"); line 75 (4.6.1 line 211) "write_xattr: failed to write xattr %s for file %s
        # because extended attributes are not supported by the destination filesystem\n". 4.3 printed the first two
        # and went on; 4.4 marks the run failed and exits 1, which Apptainer v1.4.5 internal/pkg/image/unpacker/
        # squashfs.go line 178 wraps as "extract command failed: %s: %s" and launcher_linux.go line 1382 as "root
        # filesystem extraction failed: %s" (apptainer/singularity#5399, #5668; fixed by #5518 in Singularity 3.6.2,
        # `-user-xattrs` when rootless, and #5674 in 3.7.0, `-no-xattrs` where the target lacks user xattrs).
        # The wrapping alone reads so only where unsquashfs shows no other failure: Singularity 3.6.4 ran it inside
        # its own `singularity exec` (commit 4fe1720), whose warnings the wrapped output begins with.
        (r"write_xattr: could not write xattr \S+ for file ",
         r"write_xattr: to avoid this error message, either specify (?:-user-xattrs|-xattrs-include)",
         r"write_xattr: failed to write xattr \S+ for file \S[^\n]{0,4000}?because extended attributes are not "
         r"supported by the destination filesystem",
         r"root filesystem extraction failed: extract command failed: "),
        81,
        applies=lambda log: log.has(_UNSQUASHFS_FAILED) and (log.has(_UNSQUASHFS_XATTR)
                                                            or not log.has(_UNSQUASHFS_OTHER)),
    ),
    Cause(
        "systemd-removeipc",
        "NCCL's shared-memory file vanished under it: systemd-logind removes a user's /dev/shm files when it "
        "sees the user's last session end (RemoveIPC=yes), which jobs started by srun or mpirun are not",
        "the admins set `RemoveIPC=no` in /etc/systemd/logind.conf (NCCL troubleshooting guide)",
        (r"NCCL WARN unlink shared memory \S+ failed, error: No such file or directory",),
        82,
    ),
    Cause(
        "memlock-too-low",
        "the locked-memory limit (ulimit -l) is too low for RDMA (InfiniBand verbs, EFA): registering memory with "
        "the network card fails (ENOMEM)",
        _MEMLOCK_FIX,
        (r"Call to ibv_(?:reg_mr\w*|reg_dmabuf_mr|create_cq\w*) failed with error Cannot allocate memory",
         r"Unable to register memory \(type = \d+\) for device \d+\. RC: -12\b",
         # UCX: its CQs, and a registration whose line carries UCX's locked-memory advice (see _UCX_REG_MR_ENOMEM).
         r"ibv_create_cq\((?:cqe=[^)]{0,200})?\) failed: Cannot allocate memory", _UCX_REG_MR_ENOMEM_LIMITED,
         # The limit as the node shows it, below 100 MB: Linux fs/proc/base.c proc_pid_limits() (v6.8)
         # "%-25s %-20lu " per limit, lnames[RLIMIT_MEMLOCK] = { "Max locked memory", "bytes" } (/proc/PID/limits,
         # what the job's processes inherited from slurmd or pbs_mom); bash-5.2 builtins/ulimit.def printone()
         # "%-20s %20s" with "(%s, -%c) " and the value, "max locked memory (kbytes, -l) 64" (`ulimit -a`).
         r"^\s{0,8}Max locked memory +\d{1,8} +(?:\d+|unlimited) +bytes",
         r"^\s{0,8}max locked memory +\(kbytes, -l\) \d{1,5}$",
         # libfabric v1.22.0 prov/efa/src/efa_base_ep.c line 439 "Libfabric EFA provider has encountered an internal
         # error:\n\nLibfabric error: (%zd) %s\n" (the only "Libfabric error: (" in libfabric): ENOMEM from EFA's
         # memory registration, e.g. its receive buffers (efa_errno.h 4112 "Failure to post internal receive
         # buffers"), is the locked-memory limit (awslabs' EFA guides: `ulimit -l unlimited`).
         r"^\s{0,8}Libfabric error: \(-12\) Cannot allocate memory",
         # Intel MPI's DAPL fabric (closed source; the line as its ranks print it, "[0] DAPL startup: RLIMIT_MEMLOCK
         # too small", firemodels/fds#6023): it checks the limit at start and stops below what it needs.
         r"\bDAPL startup: RLIMIT_MEMLOCK too small",
         # Open MPI 1.6.5 to 4.1.8's openib BTL, [init-fail-no-mem] of help-mpi-btl-openib.txt (v4.1.8 line 112:
         # "The OpenFabrics (openib) BTL failed to initialize while trying to\nallocate some locked memory.  This
         # typically can indicate that the\nmemlock limits are set too low.  For most HPC installations, the\n..."
         # and line 123 "  Memlock limit: %s"), and the usnic BTL's [check_reg_mem_basics fail]
         # (help-mpi-btl-usnic.txt line 84: "...  This typically can indicate that the \"memlock\" limits are set\n
         # too low." and line 91 "  Memlock limit: %s").
         r"\bmemlock limits are set too low\.\s{1,2}For most HPC installations\b",
         r'\bThis typically can indicate that the "memlock" limits are set\b',
         r"^\s{0,8}Memlock limit: \d+\s*$",
         # Its UD connection manager's verbs objects, refused under a small limit (btl_base_verbose; v1.8.4
         # ompi/mca/btl/openib/connect/btl_openib_connect_udcm.c lines 551 to 572, v4.1.8
         # opal/mca/btl/openib/connect/btl_openib_connect_udcm.c 698 to 719: BTL_VERBOSE(("error creating ud
         # completion channel")), ("error creating ud recv completion queue"), ("error creating ud send completion
         # queue"), ("error allocating cm buffers")). Open MPI 1.8.0 to 1.8.4 then abort in udcm_module_finalize
         # (line 736 OBJ_DESTRUCT(&m->cm_recv_msg_queue) of a queue constructed only after those objects, line 620;
         # opal/class/opal_object.h line 368 assert(OPAL_OBJ_MAGIC_ID == ((opal_object_t *)
         # (object))->obj_magic_id)), the assert glibc prints whether or not verbose was on.
         r"\bbtl_openib_connect_udcm\.c:\d+:udcm_module_init\] error (?:creating ud (?:(?:send|recv) completion "
         r"queue|completion channel)|allocating cm buffers)\b",
         r"\budcm_module_finalize: Assertion `.{0,120}\(&m->cm_recv_msg_queue\)\)->obj_magic_id' failed"),
        83,
        # UCX's lines only in a failed run: it logs a device it cannot use and goes on with its other transports
        # (shared memory on a node without InfiniBand: openucx/ucx#8746, a run that completed).
        # Open MPI's openib text with an unlimited limit is another limit's ENOMEM.
        applies=lambda log: ((not log.has(_UCX_VERBS_ENOMEM) or log.has(_UCX_REG_FAILED_RUN)
                              or log.has(_NCCL_VERBS_ENOMEM) or log.has(_UCX_IFACE_CQ_ENOMEM))
                             and not log.has(_OMPI_MEMLOCK_UNLIMITED)),
    ),
    Cause(
        "efa-installer-too-old",
        "libfabric's EFA provider refused to register GPU memory (EINVAL): an EFA installer before 1.29.1 with "
        "NCCL 2.19 or newer",
        "upgrade the EFA installer (libfabric) to 1.29.1 or newer, or set `FI_EFA_SET_CUDA_SYNC_MEMOPS=0` "
        "(`EXTRA_ENV=FI_EFA_SET_CUDA_SYNC_MEMOPS=0`)",
        (_OFI_GPU_MR_EINVAL,),
        83,
        # Not on HPE Cray EX (Slingshot, or its nidNNNNNN compute nodes) without EFA in sight: see
        # cuda-forward-compat-driver-breaks-nic-memory-registration.
        applies=lambda log: not log.has(_SLINGSHOT) and (not log.has(_CRAY_NODE) or log.has(_EFA_NODE)),
    ),
    Cause(
        "cumem-host-no-p2p",
        "NCCL's shared-memory transport shares host memory through cuMem, which fails between GPUs without "
        "peer access (consumer or PCIe-only GPUs; NCCL 2.27 in NVIDIA/nccl#1838)",
        "`EXTRA_ENV=NCCL_CUMEM_HOST_ENABLE=0` (NCCL falls back to its /dev/shm segments)",
        # The driver API's check, src/include/cudawrap.h "Cuda failure %d '%s'" (2.19 to 2.30), with CUDA's 217: the
        # p2p transport peers only GPUs that can (cudaDeviceCanAccessPeer) and words its refusal "failed to peer
        # with device" (p2p-peer-access-refused); cuMem host memory (shm transport) does not ask first. torch
        # repeats the line under "Last error:" without its location.
        (r"shm\.cc:\d+ NCCL WARN Cuda failure (?:\d+ )?'peer access is not supported between these two devices'",
         r"Cuda failure 217 'peer access is not supported between these two devices'"),
        83,
    ),
    Cause(
        "topo-file-preset",
        "NCCL_GRAPH_FILE or NCCL_TOPO_FILE names devices this node does not have (a file written for another "
        "machine, often preset by a VM image or /etc/nccl.conf)",
        "unset `NCCL_GRAPH_FILE` and `NCCL_TOPO_FILE` (and remove them from /etc/nccl.conf), or use the file "
        "written for this node type; Apptainer passes the host's environment into the container",
        # NCCL v2.18.5-1 to v2.30.7-1: src/graph/search.cc WARN("XML Import Channel : dev %d not found.", ...) (a
        # graph file's channel names a device this node lacks); src/graph/xml.h WARN("Attribute %s of node %s not
        # found", ...) (line 85 in v2.18.5-1, 107 in v2.30.7-1): a topology or graph file that lacks what NCCL
        # reads, such as a net plugin's static topology (aws-ofi-nccl's p5.48xl-topo.xml before 1.11,
        # aws/aws-ofi-nccl#785). NCCL_GRAPH_FILE (src/graph/search.cc INFO "NCCL_GRAPH_FILE set by environment to
        # %s") in a run NCCL failed: NCCL's maintainers answer that it "should never be set in production"
        # (NVIDIA/nccl#1240); NCCL_TOPO_FILE alone is not read so, VM images set it rightly.
        (r"XML Import Channel : dev \d+ not found", r"NCCL WARN Attribute \w+ of node \w+ not found",
         r"NCCL_GRAPH_FILE set by environment to \S"),
        # Below the causes a failure's own lines name (a graph file set is a suspect, not the failure's words).
        62,
        applies=lambda log: log.has(_TOPO_FILE_UNREADABLE) or log.has(_NCCL_FAILED),
        context=(r"NCCL_(?:TOPO|GRAPH)_FILE set by environment",),
    ),
    Cause(
        "nccl-usb-nic-topology-bug",
        "a network device of this node is not on PCI (a USB network adapter, or another virtual device): NCCL "
        "attaches it to the first CPU without a PCI bus id, and NCCL 2.18.6 to 2.19.4 then fail building the "
        "node's topology because they expect a bus id on every device under the CPU (fixed in 2.20.3)",
        "use NCCL 2.20.3 or later (a newer container or `pip install -U nvidia-nccl-cu12`); or unplug or disable the "
        "USB network adapter; or, as NCCL's maintainers suggested, save the topology once on a NCCL that works "
        "(`NCCL_TOPO_DUMP_FILE=topo.xml`) and inject it with `NCCL_TOPO_FILE=topo.xml`",
        # NCCL v2.18.6-1 src/graph/xml.cc line 585 (v2.19.4-1 line 590), ncclTopoGetXmlFromSys inserting a PCI node
        # among the CPU's children in bus id order: NCCLCHECK(xmlGetAttrStr(parent->subs[s], "busid", &busId)),
        # which for the NIC attached without one fails in src/graph/xml.h line 85 WARN("Attribute %s of node %s not
        # found", attrName, node->name); v2.20.3-1 reads it with xmlGetAttr and skips a child without. The NIC got
        # there by src/graph/xml.cc line 793 (v2.19.3-1) INFO(NCCL_GRAPH, "Topology detection: network path %s is
        # not a PCI device (%s). Attaching to first CPU", ...); v2.30.7-1 line 1115 "... network path (name = %s)
        # %s is not a PCI device (%s). ...". NVIDIA/nccl#1125 (a USB NIC, fixed by the patch released in 2.20).
        (r"NCCL WARN Attribute busid of node nic not found",),
        # Above topo-file-preset, which reads the same WARN when a topology file was set.
        66,
        applies=lambda log: log.has(_NON_PCI_NIC) or not log.has(_TOPO_FILE_SET),
        context=(_NON_PCI_NIC,),
    ),
    Cause(
        "port-in-use",
        "the rendezvous or store port is already taken on this node (another job or an earlier run still "
        "holds it)",
        "pick another port: `RDZV_PORT=N` (the job scripts pick a free one on the head node at start), torchrun "
        "`--rdzv_endpoint HOST:PORT` or `MASTER_PORT`; on a shared node `--rdzv_endpoint localhost:0` lets "
        "torchrun pick a free one",
        # Not torch's per-address "The server socket has failed to bind to {} {}." (socket.cpp, 2.4 to 2.13): a
        # warning it records and moves on from (under torchrun's agent store every worker prints it and TCPStore.cpp
        # says "ignoring the error"); the thrown "failed to listen on any local network address" quotes it.
        # Nor NCCL's and RCCL's "Call to bind failed : %s" (rccl-ib-socket-port-exhaustion-large-alltoall): their
        # sockets bind to any free port, so that EADDRINUSE is the node out of ports, not a taken one.
        (r"^(?!.*(?:The server socket has failed to bind to |Call to bind(?:_client_port)? failed ?: ))"
         r".*Address already in use",
         r"failed to listen on any local network address"),
        71,
    ),
    Cause(
        "wrong-bootstrap-iface",
        "NCCL found no usable network interface for its bootstrap: NCCL_SOCKET_IFNAME names an interface this "
        "node does not have, or the node has no IP interface it may use",
        "set `NCCL_SOCKET_IFNAME` to interfaces every node has: a prefix (`ib`, `hsn`) or a list "
        "(`eth0,ens1f0`), as the fabric policy does per fabric (`FABRIC=`), else `EXTRA_ENV=NCCL_SOCKET_IFNAME=...`;"
        " `ip -br addr` on each node lists them",
        (r"Bootstrap : no socket interface found", r"NET/Socket : No usable listening interface found",
         r"is neither AF_INET\(2\) nor AF_INET6\(10\)", r"Socket creation failed : Address family not supported"),
        69,
        context=(r"NCCL_SOCKET_IFNAME set",),
    ),
    Cause(
        "roce-gid-index",
        "the network cards could not reach each other (IB completion error 12, retry count exceeded): on RoCE "
        "usually a GID that is not routable between the nodes",
        "on RoCE with NCCL older than 2.21 set the RoCEv2 GID: `EXTRA_ENV=NCCL_IB_GID_INDEX=3` (`show_gids` "
        "lists them; newer NCCL picks one itself), and `NCCL_IB_TC` if the switches need it; on InfiniBand "
        "check the link between the nodes (`ibstat`, the subnet manager)",
        # ibv_modify_qp to RTR refused with EINVAL (22): the GID index names no GID of the port (NCCL_IB_GID_INDEX
        # preset wrong) on RoCE; ibvwrap.cc words it per version as the 110 case of rail-only-fabric (before 2.21,
        # v2.18.5-1 line 52, strerror alone: "failed with error Invalid argument"). On a RoCE link layer a queue
        # pair that times out (110) is read here too: a GID the nodes cannot route.
        (r"NET/IB ?: Got completion (?:from peer \S+ )?with (?:error 12\b|status=12\b|status=IBV_WC_RETRY_EXC_ERR)",
         # The same WARN quoted from "Got completion" on (vendors' troubleshooting pages), in its whole form:
         # v2.4.8-1 to v2.7.8-1 src/transport/net_ib.cc line 818 WARN("NET/IB : Got completion with error %d, opcode
         # %d, len %d, vendor err %d", ...), v2.10.3-1 to v2.18.5-1 "... from peer %s with error %d, ...".
         r"^\s{0,8}Got completion (?:from peer \S{1,300} )?with error 12, opcode \d+, len \d+, vendor err \d+",
         r"Call to ibv_modify_qp failed with (?:error .{1,80}? errno )?22\b",
         r"Call to ibv_modify_qp failed with error Invalid argument\b", _QP_TIMED_OUT,
         # UCCL v0.1.1 ep/src/rdma.cpp line 2073 (its RDMA proxy, then abort): fprintf(stderr, "CQE ERROR wr_id=%llu
         # status=%d(%s) opcode=%d byte_len=%u vendor_err=0x%x qp_num=0x%x\n", ...), the status by
         # ibv_wc_status_str; 12 is IBV_WC_RETRY_EXC_ERR (uccl-project/uccl#799: a link-local GID, fixed by the GID).
         r"CQE ERROR wr_id=\d{1,20} status=12\("),
        67,
        applies=lambda log: log.has(_ROCE) or not log.has(_QP_TIMED_OUT),
        context=(_ROCE,),
    ),
    Cause(
        "ib-transport-retry-timeout-under-congestion",
        "an InfiniBand send was not acknowledged by the other node within the transport timeout, through all its "
        "retries (completion status 12, retry count exceeded), and the MPI library aborted: most often a fabric "
        "congested by other jobs and the code's own all-to-all traffic, else a peer whose port went down or whose "
        "process died, or (on RoCE) a GID the nodes cannot route",
        "tell them apart first: the other rank's log and node (a crash there, `ibstat` showing its port down) and "
        "whether it recurs in quiet hours; under congestion raise the transport timeout, MVAPICH2 "
        "`MV2_DEFAULT_TIME_OUT` (and check `MV2_IBA_HCA`/`MV2_NUM_HCAS` for multi-rail nodes), UCX `UCX_RC_TIMEOUT` "
        "(1.0s) and `UCX_RC_RETRY_COUNT` (7), NCCL `NCCL_IB_TIMEOUT`; a link down is the admins' (`--exclude=NODE` "
        "meanwhile); on RoCE set the GID index (roce-gid-index)",
        # MVAPICH2 (a stored copy of src/mpid/ch3/channels/mrail/src/gen2/ibv_channel_manager.c, handle_cqe():
        # ibv_va_error_abort(IBV_STATUS_ERR, "[] Got completion with error %d, vendor code=0x%x, dest rank=%d\n",
        # wc.status, ...)) with 12, IBV_WC_RETRY_EXC_ERR; UCX v1.22.0 src/uct/ib/mlx5/ib_mlx5_log.c line 179
        # ucs_log("%s on " UCT_IB_IFACE_FMT " (synd 0x%x ...", err_info, ...) with err_info "Transport retry count
        # exceeded" (line 132, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR; UCS_ERR_ENDPOINT_TIMEOUT). NCCL's own
        # status 12 is roce-gid-index (its threads settled on the GID).
        (r"\[\] Got completion with error 12, vendor code=0x[0-9a-f]{1,8}, dest rank=\d+",
         # At FATAL where no error handler takes it, else at UCX_*_FAILURE's level (default diag: src/uct/base/
         # uct_iface.h uct_base_iface_failure_log_level), so matched at any level.
         r"\bTransport retry count exceeded on \S{1,100} \(synd 0x"),
        66,
    ),
    Cause(
        "rail-only-fabric",
        "NCCL could not connect a queue pair to the other node (ibv_modify_qp to RTR timed out): the two NICs "
        "cannot reach each other, as on a rail-optimised fabric where only NICs of the same rail connect",
        "`EXTRA_ENV=NCCL_CROSS_NIC=0` keeps each ring on one rail; if it persists check the NICs' links and, on "
        "RoCE, the GID (`NCCL_IB_GID_INDEX`)",
        # NCCL 2.24+: "failed with 110 Connection timed out, ..."; 2.21-2.23 (IBV_INT_CHECK_RET_ERRNO, ibvwrap.cc):
        # "failed with error Connection timed out errno 110"; before 2.21 "failed with error Connection timed out".
        # On RoCE the same timeout reads as roce-gid-index.
        (_QP_TIMED_OUT,),
        67,
        applies=lambda log: not log.has(_ROCE),
    ),

    # --- from the components' sources: each message as its program prints it, at the version named ---------
    # The statements are quoted with their versions in tests/diagnose/component_source_lines.py, which renders
    # each into a log line and checks that the cause named here is named first.
    Cause(
        "gdrdrv-same-process-check-rejects-threads",
        "gdrcopy's kernel driver (gdrdrv) refused to pin or map GPU memory with EACCES (errno 13): it serves a "
        "handle only to the task that opened /dev/gdrdrv, and gdrdrv before 2.1 compared threads rather than "
        "processes, so a buffer pinned from another thread of the same process (UCX's gdr_copy transport in a "
        "multi-threaded program) was refused; in 2.1 and later only another process (a forked child using its "
        "parent's handle) is",
        "update gdrcopy, both the gdrdrv kernel module and libgdrapi, to 2.1 or later (`modinfo gdrdrv | grep "
        "^version` and `cat /sys/module/gdrdrv/version` show the loaded module; the admins reload it); meanwhile "
        "leave gdrcopy out of UCX (`UCX_TLS=^gdr_copy`); a program that forks must open gdrcopy (gdr_open) in "
        "each process, after the fork",
        # gdrcopy v2.0 src/gdrapi.c line 226 (pin) and the other ioctls: gdr_err("ioctl error (errno=%d)\n", ret),
        # printed with gdr_err's "ERR:  " prefix; gdrdrv's only EACCES (v2.0 src/gdrdrv/gdrdrv.c lines 345, 772, 898:
        # release, ioctl, mmap) is "if (info->pid != task_pid(current))", v2.1 gdrdrv_check_same_process() compares
        # task_tgid (NVIDIA/gdrcopy#120, fixed by #121). UCX v1.18.0 src/uct/cuda/gdr_copy/gdr_copy_md.c line 139
        # (v1.8.0 line 118): "gdr_pin_buffer failed. length :%lu ret:%d", the errno gdr_pin_buffer returned.
        (r"ERR: {1,2}ioctl error \(errno=13\)", r"gdr_pin_buffer failed\. length ?:\d{1,20} ret:13\b"),
        84,
    ),
    Cause(
        "cloud-init-duplicate-mac-ib-interface",
        "cloud-init could not configure the node's network: two interfaces ({first} and {second}) report the same "
        "MAC address, which its interface enumeration refuses (a known issue with the IPoIB interface ib0 beside an "
        "Ethernet one on Ubuntu images of Azure's InfiniBand H- and N-series VMs), so networking did not come up "
        "on that boot",
        "Azure's workaround (Known issues with HB-series and N-series VMs): set `EnableRDMA=y` in "
        "/etc/waagent.conf, turn off cloud-init's network configuration (`network: {config: disabled}` in "
        "/etc/cloud/cloud.cfg.d/99-disable-network-config.cfg) and remove the `match: macaddress:` line from the "
        "netplan file cloud-init generated (/etc/netplan/50-cloud-init.yaml), then reboot or regenerate the image; "
        "newer kernels fix it",
        # cloud-init 24.1 cloudinit/net/__init__.py line 987 (get_interfaces_by_mac_on_linux, 23.1 line 1009):
        # msg = "duplicate mac found! both '%s' and '%s' have mac '%s'." % (name, ret[mac], mac) then
        # raise RuntimeError(msg); line 1145 (get_ib_hwaddrs_by_interface) the same words without the period.
        (r"duplicate mac found! both '(?P<first>[^'\n]{1,64})' and '(?P<second>[^'\n]{1,64})' have mac",),
        82,
    ),
    Cause(
        "nvshmem-ibgda-uninitialized-ah-attr",
        "NVSHMEM could not create an InfiniBand address handle for a peer (ibv_create_ah failed): its IBGDA "
        "transport passes ibv_create_ah an ibv_ah_attr it never zeroed, and kernels that validate static_rate "
        "refuse the stray value with EINVAL (most often on RoCE); a GID index that does not exist on the port "
        "fails the same call",
        "use an NVSHMEM whose IBGDA transport zeroes the struct (NVIDIA/nvshmem#21; llm-d/llm-d#407 patches "
        "`memset(&ah_attr, 0, sizeof(ah_attr))` into src/modules/transport/ibgda/ibgda.cpp), or leave IBGDA off "
        "(`NVSHMEM_IB_ENABLE_IBGDA=0`) meanwhile; if it persists with the fix, check the RoCE GID "
        "(`show_gids`, `NVSHMEM_IB_GID_INDEX`)",
        # NVSHMEM v3.4.5-0 src/modules/transport/ibgda/ibgda.cpp line 2234 (and 1403; ibdevx.cpp line 740):
        # NVSHMEMI_NULL_ERROR_JMP(ah, status, NVSHMEMX_ERROR_INTERNAL, out, "Unable to create ah.\n"), which prints
        # "%s:%d: NULL value " (file, line) before it (src/include/non_abi/nvshmemx_error.h line 80); the ah_attr of
        # line 2157 is filled field by field without a memset, the RoCE branch's (line 1388) is zeroed.
        (r"(?:NULL value )?Unable to create ah\.",),
        80,
    ),
    Cause(
        "nccl-version-across-ranks",
        "the ranks run different NCCL versions (NCCL refused to build the communicator): the nodes do not run "
        "the same image or environment",
        "run every rank from the same image or environment (the same `IMAGE=`, the same venv on a shared "
        "filesystem); `python -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())'` on each node "
        "says which it loads; an NCCL on LD_LIBRARY_PATH on some nodes only is the usual culprit",
        # NCCL src/init.cc (2.21.5 to 2.30.7): WARN("Mismatched NCCL version detected : rank %d version %d rank %d
        # version %d", ...), then ncclInvalidUsage; NCCL's RAS service (src/ras/ras.cc) WARN("NCCL version mismatch
        # with remote peer %s (local: %d, remote %d)", ...) in 2.24.3 to 2.29.7, "(local: %s, remote %s)" (the
        # version as text) in 2.30.7.
        (r"Mismatched NCCL version detected : rank \d+ version \d+ rank \d+ version \d+",
         r"NCCL version mismatch with remote peer \S+ \(local: [\d.]+, remote [\d.]+\)"),
        93,
    ),
    Cause(
        "versions-differ-across-nodes",
        "the ranks' own lines show more than one NCCL version or CUDA driver version: the nodes run different "
        "software, which breaks or slows collectives between them",
        "run every node from the same image and driver: compare `nvidia-smi --query-gpu=driver_version "
        "--format=csv` and the NCCL version on each node (`python -m app.check` prints both per node); resubmit "
        "without the odd node (`--exclude=NODE`) and tell the admins",
        # NCCL src/init.cc prints `NCCL version %s` (rank 0 of each communicator) and `cudaDriverVersion %d` (each
        # process, INIT); torch's ProcessGroupNCCL prints `NCCL version: %s` in its options line.
        (r"NCCL version:? (?P<nccl>\d+\.\d+\.\d+)", r"cudaDriverVersion (?P<driver>\d+)"),
        65,
        applies=lambda log: log.has(_FAILED),
        hits_show=lambda found: _distinct(found, "nccl") > 1 or _distinct(found, "driver") > 1,
    ),
    Cause(
        "nvml-driver-mismatch",
        "the node's NVIDIA kernel module and its driver libraries are of different versions (NVML: "
        "Driver/library version mismatch): the driver was updated and the node not rebooted",
        "resubmit without the node (`--exclude=NODE`) and tell the admins: they reboot it (or reload the nvidia "
        "kernel modules); `cat /proc/driver/nvidia/version` against `nvidia-smi` shows the two versions",
        # NVML's string for NVML_ERROR_LIB_RM_VERSION_MISMATCH (nvml.h, driver 525 to 580), printed by nvidia-smi
        # as "Failed to initialize NVML: %s" and by libnvidia-container as "nvml error: %s", lower-cased (its
        # src/error.c error_vset() ends in strlower(): "nvml error: driver/library version mismatch").
        (r"[Dd]river/library version mismatch",),
        95,
    ),
    Cause(
        "container-gpu-access-lost-systemd-cgroup-reload",
        "NVML could not open the container's GPUs (Unknown Error): the container lost access to the GPU device nodes "
        "(or, where they never worked in it, was not given it), most often because systemd re-applied the "
        "container's cgroup device rules (`systemctl daemon-reload`, a unit change, a package update) and dropped "
        "the NVIDIA devices the runtime had added without /dev/char links",
        "recreate the container (a restart restores the devices) and stop it recurring: on the host "
        "`sudo nvidia-ctk system create-dev-char-symlinks --create-all` (NVIDIA Container Toolkit 1.12 or newer; "
        "again after each driver load), or give the GPUs as CDI devices (`--device nvidia.com/gpu=all`) or as "
        "explicit `--device /dev/nvidia0 ...` flags, or Docker's `\"exec-opts\": [\"native.cgroupdriver=cgroupfs\"]`; "
        "`journalctl` at the time shows the daemon-reload; nvidia-smi working earlier in the same container (its "
        "table or `GPU 0: ... (UUID: ...)` lines) tells the loss apart from GPUs never granted, for which check "
        "that they were requested (`--gpus all`) and the runtime's `no-cgroups` in "
        "/etc/nvidia-container-runtime/config.toml",
        # NVML's string for NVML_ERROR_UNKNOWN (999, nvml.h: "An internal driver error occurred"), "Unknown Error",
        # printed by nvidia-smi as "Failed to initialize NVML: %s". NVIDIA Container Toolkit's troubleshooting page
        # files this very line under 'Containers losing access to GPUs with error: "Failed to initialize NVML:
        # Unknown Error"' (the runtime hook's device access, lost on a systemd update of the container); read with
        # nvidia-smi's table header or its `-L` lines ("GPU %d: %s (UUID: %s)") before it as support (the GPUs
        # worked in that container first). NVIDIA/nvidia-docker#1671 and #1730 (the maintainers' workarounds:
        # nvidia-ctk's /dev/char links, NVIDIA Container Toolkit 1.12.0).
        (r"Failed to initialize NVML: Unknown Error",),
        78,
        context=(r"\bNVIDIA-SMI \d{2,4}\.\d{1,4}(?:\.\d{1,4})? {1,12}Driver Version: ",
                 r"^GPU \d{1,3}: [^\n]{1,100} \(UUID: GPU-"),
    ),
    Cause(
        "cuda-driver-combination",
        "CUDA refused the driver it found (error 803, unsupported display driver / cuda driver combination): "
        "the libcuda loaded does not belong to the node's kernel driver, most often a CUDA forward-compatibility "
        "libcuda (cuda-compat) on a driver or GPU it does not support",
        "load the node's own libcuda: in this project's image `APP_CUDA_COMPAT=off` (the compat libraries are "
        "for data-center GPUs on older drivers); elsewhere remove cuda-compat's directory from LD_LIBRARY_PATH; "
        "if the node itself is inconsistent (driver updated, no reboot), resubmit without it and tell the admins",
        # CUDA's string for cudaErrorSystemDriverMismatch / CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803), CUDA 11.1+.
        # 804 (cudaErrorCompatNotSupportedOnDevice) is read here too, second to driver-too-old (same weight, earlier
        # in the table): the compat libcuda on a GPU it does not support, which a container runtime that injects
        # it also causes (DeepVAC/TorchPod#43: a newer nvidia-container-toolkit on a GeForce).
        (r"system has unsupported display driver / cuda driver combination", r"cudaErrorSystemDriverMismatch",
         r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", r"forward compatibility was attempted on non supported HW",
         r"cudaErrorCompatNotSupportedOnDevice"),
        94,
    ),
    Cause(
        "container-cuda-requirement",
        "the container runtime refused the image: the image requires CUDA {cuda} or newer and the node's driver is "
        "older (libnvidia-container's check of NVIDIA_REQUIRE_CUDA)",
        "run on nodes with a newer driver, or use an image built for an older CUDA; on data-center GPUs the image "
        "can run through CUDA forward compatibility: `NVIDIA_DISABLE_REQUIRE=1` in the container's environment "
        "skips the check (enroot/pyxis, Docker); this project's Apptainer image does not go through this check",
        # libnvidia-container src/cli/configure.c: warnx("requirement error: %s", err.msg), the message from
        # src/cli/dsl.c: "unsatisfied condition: %s, please update your driver to a newer version, or use an
        # earlier cuda container" (v1.13 to v1.17).
        (r"requirement error: unsatisfied condition: cuda\s?>=\s?(?P<cuda>[\d.]+)",),
        94,
    ),
    Cause(
        "container-no-driver",
        "the container runtime's GPU hook found no NVIDIA driver on the node (libnvidia-container could not load "
        "NVML): a node without a GPU driver, or a runtime that does not see the driver's libraries",
        "run on GPU nodes (`--gres=gpu:4`) where `nvidia-smi` works; if it works on the node, the admins check "
        "the runtime's ldconfig path (`ldconfig = \"@/sbin/ldconfig\"` in /etc/nvidia-container-runtime/"
        "config.toml) and enroot's 98-nvidia hook; the project's Apptainer image (`IMAGE=app.sif`, `--nv`) does not "
        "use this hook",
        # libnvidia-container src/cli/configure.c: warnx("initialization error: %s", nvc_error(nvc)), with
        # src/nvc.c's "nvml error: %s" (driver not loaded) or src/dxcore / driver.c "load library failed: %s".
        # enroot 4.1.2 conf/hooks/98-nvidia.sh line 77 warns "Kernel module nvidia_uvm is not loaded" and goes on:
        # it shows this cause only where the GPU hook then failed.
        (r"nvidia-container-cli: initialization error: (?:nvml error: driver not loaded|load library failed: "
         r"libnvidia-ml\.so)", r"Kernel module nvidia_uvm is not loaded"),
        92,
        applies=lambda log: log.has(_GPU_HOOK_FAILED),
    ),
    Cause(
        "nvidia-control-device-node-missing",
        "the node lacks the NVIDIA driver's control device {device}, which the driver creates when it loads, so "
        "the container runtime's GPU hook (libnvidia-container) could not bind it and no GPU container starts: the "
        "driver is not (fully) loaded on that node",
        "tell the admins which node (its driver state is broken: `ls -l /dev/nvidia*` there; as root `nvidia-modprobe "
        "-c 0`, `nvidia-modprobe -u -c 0` and `nvidia-modprobe -m` create nvidiactl, nvidia-uvm and nvidia-modeset, "
        "or they reload the driver); resubmit without that node meanwhile (`--exclude=NODE`)",
        # libnvidia-container src/nvc_info.c always lists /dev/nvidiactl and /dev/nvidia-modeset among the driver's
        # devices (nvidia-uvm and nvidia-uvm-tools where found); src/nvc_mount.c mount_device() stats each on the
        # host with xstat() (src/xfuncs.h, commit 1352197): error_set(err, "stat failed: %s", path), the errno
        # appended lower-cased (src/error.c), printed after src/cli/configure.c's "mount error: %s". The same line
        # under enroot/pyxis (98-nvidia.sh) and Docker's nvidia runtime hook.
        (r"mount error: stat failed: (?:/\S{0,200})?(?P<device>/dev/nvidia(?:ctl|-modeset|-uvm(?:-tools)?)): no such "
         r"file or directory",),
        93,
    ),
    Cause(
        "libnvidia-container-firmware-mount-failed",
        "the container runtime's GPU hook could not mount the driver's GSP firmware directory into the container "
        "({path}): libnvidia-container 1.6/1.7 bind-mounts /lib/firmware/nvidia/<driver> from the host, which fails "
        "where the node's OS (its /usr/lib/firmware) is on NFS or a read-only image, so no GPU container starts",
        "the admins update libnvidia-container (libnvidia-container1 and -tools) to 1.8.0 or later, which reworked "
        "the firmware mount; `nvidia-container-cli --version` on the node says which runs; meanwhile run with this "
        "project's Apptainer image (`IMAGE=app.sif`, `--nv`), which does not use this hook",
        # libnvidia-container src/cli/configure.c: warnx("mount error: %s", nvc_error(nvc)) with src/xfuncs.h
        # xmount(): error_set(err, "mount operation failed: %s", ...) naming the firmware path mount_firmware()
        # (src/nvc_mount.c) bind-mounts; later versions also log_errf("error mounting firmware path %s", ...)
        # (commit 077f498). NVIDIA/libnvidia-container#147 and #152 (fixed in 1.8.0).
        (r"mount error: mount operation failed: (?P<path>\S{0,300}/lib/firmware/nvidia/\S{1,200})",
         r"error mounting firmware path (?P<path>\S{1,300})"),
        93,
    ),
    Cause(
        "libnvidia-container-release-regression-1-17-7",
        "enroot's GPU hook failed adding device rules to the job's cgroup ({why}): enroot runs nvidia-container-cli "
        "with `--no-cgroups`, and libnvidia-container 1.17.7 added the rules anyway (a regression of that release), "
        "so every GPU container under enroot/pyxis fails on the nodes that run it",
        "the admins go back to the NVIDIA Container Toolkit 1.17.6 (`libnvidia-container1`, "
        "`libnvidia-container-tools`, `nvidia-container-toolkit` 1.17.6-1) or to a release with the fix; "
        "`nvidia-container-cli --version` on the node says which runs; meanwhile run with this project's Apptainer "
        "image (`IMAGE=app.sif`, `--nv`)",
        # libnvidia-container src/cgroup.c nvcgo_setup_device_cgroup_1_svc(): error_setx(err, "failed to add device
        # rules: %s", rerr), after configure's "mount error: %s"; cgroup v2 "unable to find any existing device
        # filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: ..." (src/nvcgo/internal/
        # cgroup), v1 "open .../devices.allow: permission denied". enroot v3.1 to v4.1 conf/hooks/98-nvidia.sh runs
        # `nvidia-container-cli --user configure --no-cgroups`: under enroot the CLI should add no rule at all
        # (NVIDIA/nvidia-container-toolkit#1093, NVIDIA/libnvidia-container#313, both 1.17.7-1). Docker or LXC
        # without that flag: a rootless runtime's cgroup, another cause (libnvidia-container#154).
        (r"nvidia-container-cli: mount error: failed to add device rules: (?P<why>.{1,300})",),
        93,
        applies=lambda log: log.has(_ENROOT_GPU_HOOK),
        context=(_ENROOT_GPU_HOOK,),
    ),
    Cause(
        "nvidia-container-toolkit-1-12-0-cdi-missing-dev-nodes",
        "the NVIDIA Container Toolkit's chmod hook failed on a device folder ({folder}) that this GPU does not have "
        "(a compute GPU has no /dev/dri; /dev/nvidia-caps exists only with MIG), so the container was not created: "
        "NVIDIA Container Toolkit 1.12.0 runs the hook on those folders without checking they exist, with CDI or "
        "with NVIDIA_DRIVER_CAPABILITIES that include graphics or display (`all`)",
        "the admins upgrade the toolkit to 1.12.1 or later (`nvidia-ctk --version` says which runs), and "
        "regenerate the CDI specification (`nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`); meanwhile ask "
        "for `NVIDIA_DRIVER_CAPABILITIES=compute,utility` instead of `all`",
        # NVIDIA Container Toolkit v1.12.0 cmd/nvidia-ctk/hook/chmod/chmod.go line 129 syscall.Exec(chmodPath, args,
        # nil) on the container root's paths as given (cmd/nvidia-ctk/cdi/generate/device-folder-permissions.go
        # asks it for the parents of nested device nodes, mode 755); v1.12.1's CHANGELOG "Don't fail chmod hook if
        # paths are not injected" (it os.Stat()s each path first). coreutils v9.4 src/chmod.c line 231 error (0,
        # ent->fts_errno, _("cannot access %s"), quoteaf (file_full_name)) with strerror's ENOENT; the runtime
        # reports the hook (runc "error running hook #%d: ... stderr: %s").
        (r"chmod: cannot access '[^'\n]{1,400}?(?P<folder>/dev/(?:dri|nvidia-caps))': No such file or directory",),
        92,
        applies=lambda log: log.has(_CONTAINER_HOOK_RAN),
        context=(_CONTAINER_HOOK_RAN,),
    ),
    Cause(
        "selinux-blocks-nvidia-container-cli",
        "the container runtime's GPU hook was not allowed to change its capabilities (nvidia-container-cli: "
        "\"capability change failed\"): SELinux in enforcing mode on the node refuses them, so every GPU container "
        "fails to start while containers without GPUs run",
        "on the node `getenforce` says Enforcing: the admins give nvidia-container-cli a policy that allows it (or "
        "set the node Permissive, `sudo setenforce 0`, to confirm); meanwhile run with this project's Apptainer "
        "image (`IMAGE=app.sif`, `--nv`), which does not use this hook",
        # libnvidia-container src/utils.c perm_set_capabilities(): error_set(err, "capability change failed")
        # when cap_set_proc() fails, printed by src/cli/configure.c warnx("permission error: %s", err.msg)
        # (commits 077f498, 09df17a). NVIDIA/enroot#88 (SELinux enforcing).
        (r"nvidia-container-cli: permission error: capability change failed",),
        92,
    ),
    Cause(
        "nvidia-container-ldconfig-not-run",
        "the container runtime could not run the ldconfig its configuration names ({ldconfig}) to refresh the "
        "container's library cache after mounting the driver's libraries, so programs in the container do not find "
        "them (nvidia-smi: libnvidia-ml.so not found, CUDA: no driver)",
        "point the runtime at the host's ldconfig: in /etc/nvidia-container-runtime/config.toml set `ldconfig = "
        "\"/sbin/ldconfig\"` (or `\"@/sbin/ldconfig.real\"` where that is the host's binary, Ubuntu) instead of "
        "`\"@/sbin/ldconfig\"`; `ls -l /sbin/ldconfig*` on the node shows which exists",
        # libnvidia-container src/nvc_ldcache.c nvc_ldcache_update() (commit 0f8e13d): error_set(&ctx->err,
        # "process execution failed") then log_errf("could not start %s: %s", argv[0], ctx->err.msg); with ENOENT
        # it exits 0, so the container starts without a cache (NVIDIA/nvidia-docker#1163 and #854). In the CLI's
        # debug log (`debug = ` in config.toml, NVIDIA_DEBUG_LOG under enroot).
        (r"nvc_ldcache\.c:\d+\] could not start (?P<ldconfig>\S{1,200}): ",),
        92,
        context=(r"couldn't find libnvidia-ml\.so",),
    ),
    Cause(
        "apptainer-tmp-full",
        "Apptainer ran out of space while building, pulling or unpacking the image: its temporary or cache "
        "directory (/tmp, ~/.apptainer/cache by default) is on a small filesystem",
        "point `APPTAINER_TMPDIR` and `APPTAINER_CACHEDIR` at a filesystem with room (a project or scratch "
        "directory, not /tmp or $HOME), clear old layers with `apptainer cache clean`, or build the image once "
        "where there is room (`make image`) and copy the .sif",
        # Apptainer 1.3/1.4 wraps the OS error: sylog.Fatalf("While making image from oci registry: %v", err),
        # "While performing build: %v", "container creation failed: %s" (cmd/internal/cli/*.go), ending in the
        # syscall's "no space left on device" or mksquashfs' "Write failed because No space left on device";
        # Apptainer 1.1.9 to 1.5.3 sylog.Fatalf("while extracting %s: %s", image, err) when it unpacks a SIF
        # into a temporary sandbox (cmd/internal/cli/actions_linux.go, later internal/pkg/runtime/launch/
        # launcher_linux.go). Anchored at the line's start (sylog writes FATAL there; srun -l may put "3: " before
        # it), so that a long line is scanned once, not from every "FATAL:" in it.
        (r"^(?:\S{1,40} )?(?:FATAL|ERROR): +(?:While|while extracting|Unable to|container creation failed"
         r"|Build failed)[^\n]{0,4000}?[Nn]o space left on device",
         # Any program writing into Apptainer's own directories (the session's mounts under /var/apptainer/mnt,
         # Singularity's /var/singularity/mnt, a build's build-temp-*): coreutils' cp "error writing '%s'" in a
         # %post, or the copy of a build.
         # Anchored too: from the line's start only, so a line of many such paths is scanned once.
         r"^[^\n]{0,400}?(?:/var/(?:lib/)?(?:singularity|apptainer)/mnt/|/build-temp-\d)[^\n]{0,400}?No space "
         r"left on device",),
        93,
    ),
    Cause(
        "slurm-mpi-plugin-missing",
        "srun could not load the MPI plugin the job asked for ({plugin}): this Slurm was not built with it, the "
        "nodes' slurmd lack it, or the plugin could not load the library it needs (Slurm's PMIx plugin and libpmix)",
        "`srun --mpi=list` shows the plugins this Slurm has: pick one of them (`--mpi=pmix` only where listed), or "
        "`--mpi=none` for torchrun jobs (they need no PMI: this project's job scripts start torchrun without it); "
        "SLURM_MPI_TYPE in the environment sets it too",
        # Slurm 25.11.7 src/interfaces/mpi.c: error("MPI: Cannot create context for %s", plugin_name) and
        # "%s: unable to resolve MPI plugin offset from plugin_id=%u. This error usually results from a job being
        # submitted against an MPI plugin which was not compiled into slurmd ..."; before the interfaces/ rewrite
        # (17.11 to 20.11) src/common/mpi.c error("cannot create %s context for %s", "mpi", "mpi/<type>") and
        # srun's src/srun/libsrun/opt.c "\"--mpi=%s\" -- long invalid MPI type, --mpi=list for acceptable types."
        # src/common/plugin.c line 374 error("Couldn't load specified plugin name for %s: %s", c->type, ...) (the
        # plugin's init failed, or it is for another Slurm); src/plugins/mpi/pmix/mpi_pmix.c line 199 PMIXP_ERROR
        # (pmixp_debug.h " %s: %s: %s [%d]: %s:%d: " format, plugin_type first) "pmi/pmix: can not load PMIx library".
        (r"MPI: Cannot create context for (?P<plugin>mpi/[\w-]+)",
         r"Couldn't load specified plugin name for (?P<plugin>mpi/[\w-]+): ",
         r"(?P<plugin>mpi/pmix\w{0,4}): \w{1,40}: .{0,300}?pmi/pmix: can not load PMIx library",
         r"cannot create mpi context for (?P<plugin>mpi/[\w-]+)",
         r"\"--mpi=(?P<plugin>[\w-]+)\" -- long invalid MPI type",
         r"unable to resolve MPI plugin offset from plugin_id=\d+"),
        92,
    ),
    Cause(
        "mpi-without-pmi",
        "the program's Open MPI was started by srun but cannot talk to Slurm's PMI (it was built without "
        "Slurm/PMI support, or srun offered none): MPI_Init fails on every rank",
        "start it with the PMI Slurm offers: `srun --mpi=pmix` (`srun --mpi=list` shows them), or with the MPI's "
        "own `mpirun` inside the allocation; or use an Open MPI built `--with-pmix`/`--with-slurm`; a step started "
        "with `srun --export=VARS` loses the MPI module's environment the PMIx client reads (`--export=ALL,VARS`). "
        "A torchrun job "
        "needs no MPI: drop the mpi4py import (DeepSpeed's MPI discovery) or start it with torchrun",
        # Open MPI 4.1 (orte/mca/ess/base/help-ess-base.txt [slurm-error], [slurm-error2]): "The application
        # appears to have been direct launched using \"srun\", but OMPI was not built with SLURM's PMI support"
        # and "... but OMPI was not built with SLURM support."; Open MPI 5.0.0 to 5.0.10
        # (ompi/runtime/help-mpi-runtime.txt [no-pmi], [no-pmix-but]): "Open MPI requires access to a local PMIx
        # server to execute." and "No PMIx server was reachable, but a PMI1/2 was detected."; Slurm's PMI2
        # client: "PMI2_Init failed to intialize.  Return code: %d" (sic).
        # Open MPI 2.0 to 4.1's own PMI clients, which log a failure as OPAL_ERROR_LOG (v4.1.6 opal/util/error.h
        # line 30: opal_output(0, "OPAL ERROR: %s in file %s at line %d", opal_strerror(r), __FILE__, __LINE__)):
        # any error of the Slurm PMI-1/PMI-2 and Cray PMI components (opal/mca/pmix/s1/pmix_s1.c, s2/pmix_s2.c,
        # cray/pmix_cray.c, used only when srun or aprun started the task), and the PMIx clients' "Not
        # initialized"/"Unreachable" (v4.1.6 opal/mca/pmix/pmix3x/pmix3x_client.c line 111, after PMIx_Init failed;
        # pmix1_client.c, pmix1x_client.c, pmix2x_client.c, ext2x_client.c and ext3x_client.c in 2.x to 4.0): the
        # PMI the task was started with is not one this Open MPI can use.
        (r"OMPI was not built with SLURM(?:'s PMI)? support", r"PMI2_Init failed to intiali[sz]e",
         r"Open MPI requires access to a local PMIx server to execute",
         r"No PMIx server was reachable, but a PMI1/2 was detected",
         r"OPAL ERROR: [^\n]{1,80}? in file \S{0,300}?\bpmix_(?:s[12]|cray)\.c at line \d+",
         r"OPAL ERROR: (?:Not initialized|Unreachable) in file \S{0,300}?\b(?:pmix\dx?|ext\dx)_client\.c at line \d+",
         # PMIx's own client whose PMIx_Init could not set up its runtime (pmix_rte_init: no component of those
         # srun's environment names, security, data store, transport): PMIX_ERROR_LOG(rc) (v3.2.3 src/util/error.h
         # line 45, v4.2.9 src/util/pmix_error.h line 48 "PMIX ERROR: %s in file %s at line %d") in
         # src/client/pmix_client.c at the line after pmix_rte_init of each release, v3.0.0 to v5.0.11 (465, 470,
         # 471, 473, 515, 562 in 3.x; 580 to 665 in 4.x; 597, 598, 607 in 5.0.x); no other PMIX_ERROR_LOG of that
         # file sits on those lines in any of these releases.
         r"PMIX ERROR: [\w-]{1,40} in file \S{0,300}?\bclient/pmix_client\.c at line "
         r"(?:465|47[013]|515|562|58[024]|59[78]|607|618|62[126]|657|66[45])\b"),
        90,
    ),
    Cause(
        "nccl-tests-without-mpi",
        "an MPI test program (nccl-tests) was built without MPI: every process started by srun or mpirun ran "
        "as rank 0 of its own one-rank job, so nothing crossed between the GPUs or the nodes",
        "build nccl-tests with MPI (`make clean && make MPI=1 MPI_HOME=/path/to/mpi`: without `make clean` an earlier "
        "build without MPI stays), with the MPI whose mpirun starts it, and start it with `srun --mpi=pmix` or "
        "`mpirun`, one process per GPU; or, on one node only, one process with all GPUs (`-g 4`); this project's "
        "`python -m app.check` measures all-reduce without MPI",
        # nccl-tests v2.17.6 src/util.cu: "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n",
        # printed by rank 0 for every rank: built without MPI, each process prints its own "Rank  0" line.
        (r"#\s+Rank\s+0 (?:Group\s+\d+ )?Pid\s+(?P<pid>\d+) on\s+(?P<host>\S+) device",
         # The run's summary, PRINT (`if (is_main_thread) printf`, is_main_thread set for proc 0 only: v2.19.6
         # src/common.cu line 1527) at its end: v2.0.0 src/common.cu line 880 to v2.13.13 line 1130 and v2.17.6
         # src/util.cu line 644 PRINT("# Avg bus bandwidth    : %g %s\n", ...), v2.19.6 line 778 PRINT("# %-20s :
         # %g %s\n", "Avg bus bandwidth", ...); and its header at its start (v2.10.0 src/common.cu line 941 to
         # v2.19.6 src/util.cu line 625 PRINT("# nThread %d nGpus %d minBytes %ld maxBytes %ld ..."). Two summaries
         # with no header between them, after the command line that started a test (`*_perf`) with mpirun or srun:
         # two runs side by side.
         r"# Avg bus bandwidth {0,8}: (?P<bw>\S{1,30})", r"# nThread (?P<threads>\d{1,6}) nGpus \d{1,6} minBytes ",
         r"\b(?P<launcher>mpirun|mpiexec|srun)\s[^\n]{0,300}?\w_perf\b"),
        88,
        hits_show=_nccl_tests_ran_apart,
    ),
    Cause(
        "nccl-ll128-gpudirect-slingshot-data-corruption",
        "nccl-tests counted wrong elements (#wrong) in a collective across GH200 nodes: NCCL 2.27 and later use "
        "the LL128 protocol for the data the network card writes into GPU memory through Grace Hopper's "
        "NVLink-C2C, where LL128's ordering does not hold, and it silently corrupts data (NVIDIA/nccl#2001, seen "
        "on Cray Slingshot with aws-ofi-nccl when HPE's recommended NCCL settings are not applied, e.g. a custom "
        "NCCL build or a container)",
        "turn LL128 off: `EXTRA_ENV=NCCL_PROTO=^LL128` (this project's Slingshot policy sets "
        f"`{policy.export_line('slingshot', 'NCCL_PROTO')}`), or `NCCL_LL128_C2C=0` (NCCL 2.27 and later keep "
        "LL128 then but not over C2C); in a container or with your own NCCL build apply the site's/HPE's NCCL and "
        "FI_CXI_* settings; rerun nccl-tests (`all_reduce_perf -b 1M -e 64M -f 2` across two nodes) and check "
        "that every #wrong is 0. Wrong results within one node, or on other GPUs, are not this: see p2p-acs-iommu",
        # nccl-tests v2.17.6 src/util.cu lines 424 and 480, the result row and its #wrong (_NCCL_TESTS_WRONG), with
        # the ranks' lines (line 566) naming GH200 devices on two hosts. NCCL v2.27.3-1 src/graph/tuning.cc line
        # 211 NCCL_PARAM(Ll128C2c, "LL128_C2C", 1) and line 460 enable LL128 for typeInter up to PATH_P2C on
        # compute capability 9.0 (v2.26.6-1 line 429: up to PATH_PXN); NVIDIA/nccl#2001 (GH200, Slingshot 11,
        # aws-ofi-nccl: #wrong from 2.27.3, not with 2.26.6), NVIDIA/nccl#2053 (LL128 off on PATH_P2C; verified
        # clean with NCCL_PROTO=Simple, LL, or NCCL_LL128_C2C=0); NRIS' Olivia documentation (NCCL_PROTO=^LL128).
        (_NCCL_TESTS_WRONG, _NCCL_TESTS_GH200_RANK),
        88,
        context=(_SLINGSHOT,),
        hits_show=_wrong_across_gh200_nodes,
    ),
    Cause(
        "p2p-acs-iommu",
        "peer-to-peer traffic over PCIe is broken on this node, between GPUs or between the network card and a GPU "
        "(GPUDirect RDMA) (wrong results, IOMMU faults, or the card's accesses to GPU memory refused as local "
        "protection errors): PCIe Access Control Services (ACS) or the IOMMU redirect peer traffic through the root "
        "complex, which drops or corrupts it",
        "confirm with `EXTRA_ENV=NCCL_P2P_DISABLE=1` (between GPUs) or `EXTRA_ENV=NCCL_NET_GDR_LEVEL=LOC` (no "
        "GPUDirect RDMA, for the network's local protection errors; UCX: `UCX_IB_GPU_DIRECT_RDMA=no`): if the "
        "errors go away, the admins disable ACS on the PCIe switches and set the IOMMU to passthrough (`iommu=pt`, "
        "or off) per NCCL's troubleshooting guide; `nvidia-smi topo -m` shows the paths; resubmit without the node "
        "meanwhile",
        # nccl-tests v2.17.6 src/util.cu: PRINT("# Out of bounds values : %d %s\n", errors, errors ? "FAILED" :
        # "OK"); the kernel's IOMMU fault reports (Linux drivers/iommu/amd/iommu.c "Event logged [IO_PAGE_FAULT",
        # drivers/iommu/intel/dmar.c "[DMA %s NO_PASID] Request device [%02x:%02x.%d] fault addr").
        # NCCL's InfiniBand transport with the work completion's IBV_WC_LOC_PROT_ERR (4), the card refused access to
        # the registered (GPU) memory: v2.18.5-1 src/transport/net_ib.cc line 1295 "... with error %d, opcode %d,
        # ...", v2.21.5-1 line 1909 "... with status=%d opcode=%d ...", v2.30.7-1 src/transport/net_ib/p2p.cc line
        # 688 "NET/IB: Got completion from peer %s with status=%s(%d) ..." (ibvWcStatusStr, src/misc/ibvwrap.cc).
        # NCCL's own reading, v2.30.7-1 src/transport/net_ib/common.h line 615 printIbWcStatusHint(): for
        # IBV_WC_LOC_PROT_ERR INFO "HINT: In many cases this error occurs when ACS is enabled which would break GPU
        # Direct RDMA protocol." (the switch falls through to the other statuses' hints, which are not read).
        (r"# Out of bounds values : [1-9]\d* FAILED", r"AMD-Vi: Event logged \[IO_PAGE_FAULT",
         r"DMAR: \[DMA (?:Read|Write)[^\]]{0,40}\] Request device",
         r"NET/IB ?: Got completion from peer \S{1,300} with (?:error 4,|status=4 |status=IBV_WC_LOC_PROT_ERR\(4\))",
         r"HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA",
         # UCX's verbs and mlx5 transports with the same status (see _UCX_LOCAL_PROTECTION): openucx/ucx#3564, an OSU
         # bandwidth test from GPU to GPU failing so until ACS was disabled in the BIOS.
         _UCX_LOCAL_PROTECTION),
        87,
        # UCX's lines only on GPU buffers: on host memory a local protection error is the program's (a buffer
        # freed or deregistered while in flight), not the PCIe path.
        applies=lambda log: not log.has(_UCX_LOCAL_PROTECTION) or log.has(_GPU_BUFFERS),
    ),
    Cause(
        "gpu-hardware-fault",
        "a GPU of the node failed (uncorrectable ECC error, fallen off the bus, or an NVRM Xid of a hardware "
        "fault): the node needs the admins",
        "resubmit without the node (`--exclude=NODE`; the job scripts record it in nodes-to-exclude.txt) and send "
        "the admins the lines above with `nvidia-smi -q -d ECC,ROW_REMAPPER` from the node; `python -m app.check` "
        "judges each GPU",
        # CUDA's strings for cudaErrorECCUncorrectable (214) and CUDA_ERROR_ECC_UNCORRECTABLE; the NVIDIA kernel
        # module's "NVRM: Xid (PCI:%s): %d, ..." with the hardware Xids (48 double-bit ECC, 74 NVLink, 79 fallen
        # off the bus, 94/95 contained/uncontained ECC, 119/120 the GSP firmware timed out or failed, 154 the
        # driver asks for a GPU reset or a reboot; NVIDIA's Xid catalogue, docs.nvidia.com/deploy/xid-errors);
        # nvidia-smi's "Unable to determine the device handle for GPU%s: %s: Unknown Error".
        (r"uncorrectable ECC error encountered", r"CUDA_ERROR_ECC_UNCORRECTABLE", r"GPU has fallen off the bus",
         r"NVRM: Xid \(PCI:[\w:.]+\): (?:48|74|79|94|95|119|120|154)\b",
         r"Unable to determine the device handle for GPU ?[\w:.]*: Unknown Error",
         # The kernel module's own status codes, as its NVRM lines print them ("Reset required
         # [NV_ERR_RESET_REQUIRED] (0x00000062)"): open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvstatuscodes.h
         # (commit 307159f) NV_ERR_RESET_REQUIRED 0x62 "Reset required", NV_ERR_GPU_IS_LOST 0x0F "GPU lost from
         # the bus": the GPU needs a reset, or left the bus, whatever call met it first.
         r"\[NV_ERR_(?:RESET_REQUIRED|GPU_IS_LOST)\]",
         # NVIDIA k8s-device-plugin v0.14.5 to v0.20.0 internal/rm/health.go (v0.20.0 line 169) klog.Infof(
         # "XidCriticalError: Xid=%d on Device=%s; marking device as unhealthy.", e.EventData, d.ID), for an Xid
         # its check does not skip (13, 31, 43, 45, 68 and 109, the application's, are skipped), and
         # internal/plugin/server.go (v0.20.0 line 279) klog.Infof("'%s' device marked unhealthy: %s", ...).
         r"XidCriticalError: Xid=\d{1,4} on Device=\S{1,100}; marking device as unhealthy",
         r"'nvidia\.com/[\w.-]{1,60}' device marked unhealthy: "),
        95,
    ),
    Cause(
        "gpu-busy-exclusive",
        "CUDA could not open a GPU because another process holds it (the GPUs are in exclusive-process mode): "
        "more ranks than GPUs on the node, or another job or a leftover process on the GPU",
        "start one rank per GPU (`--nproc_per_node` = the GPUs the job has); `nvidia-smi` on the node lists the "
        "processes on each GPU and `nvidia-smi -q -d COMPUTE` its compute mode; a leftover process from an "
        "earlier job goes with the admins; on a node running NVIDIA MPS (an nvidia-cuda-mps-control process) a "
        "container with a private /tmp cannot reach the MPS pipes in the host's /tmp: bind that directory in or "
        "set `CUDA_MPS_PIPE_DIRECTORY` to a shared one (e.g. /dev/shm) for the server and the job",
        # CUDA's string for cudaErrorDevicesUnavailable (46) / CUDA_ERROR_DEVICE_UNAVAILABLE.
        # CUDA before 11 worded 46 "all CUDA-capable devices are busy or unavailable".
        (r"CUDA-capable device\(s\) is/are busy or unavailable", r"all CUDA-capable devices are busy or unavailable",
         r"cudaErrorDevicesUnavailable",
         r"CUDA_ERROR_DEVICE_UNAVAILABLE"),
        87,
    ),
    Cause(
        "slurm-task-launch-failed",
        "Slurm could not start the job's tasks on a node ({why}): the job never ran a task on every node",
        "the message after the colon says why; `scontrol show node NODE` shows the node's state; resubmit without "
        "the node (`--exclude=NODE`) and tell the admins if it persists",
        # Slurm 25.11.7 src/api/step_launch.c: error("Task launch for %ps failed on node %s: %m", ...);
        # src/srun/launch.c: error("Unable to create step for job %u: %m", ...).
        # slurmctld's reason for a batch job it could not launch (src/slurmctld/job_mgr.c lines 18079 and 6075):
        # "launch failed requeued held", "launch failure limit exceeded requeued held".
        # src/api/step_launch.c line 1071: error("task %u launch failed: %s", ..., slurm_strerror(rc)) for each
        # task of a node whose slurmd answered the launch with an error.
        (r"Task launch for \S+ failed on node [\w.-]+: (?P<why>.{1,300})",
         r"srun: error: task \d+ launch failed: (?P<why>.{1,300})",
         # Not ESLURM_ALREADY_DONE ("Job/step already completing or completed", slurm_errno.c line 272): a step
         # asked for after the job ended, whose own lines say why it ended.
         r"Unable to create step for job \d+: (?P<why>(?!Job/step already completing or completed).{1,300})",
         r"(?P<why>launch failed requeued held|launch failure limit exceeded requeued held)",
         # src/srun/launch.c line 1510 error("Application launch failed: %m") when slurm_step_launch() failed as a
         # whole (the nodes' slurmds did not all answer the launch: "Socket timed out on send/recv operation").
         r"srun: error: Application launch failed: (?P<why>.{1,300})"),
        80,
    ),
    Cause(
        "efa-unreachable",
        "libfabric's EFA provider could not reach the other instance (an unresponsive remote, or a peer address it "
        "could not add): the security group does not let the instances talk to each other (its outbound rule as "
        "well as its inbound one), or they are in different subnets, or the peer process had already exited",
        "the instances' security group must allow all inbound and outbound traffic to and from itself, in one "
        "subnet and placement group (AWS' EFA setup guide); if it does, read the other rank's log for the error "
        "that stopped it first",
        # libfabric 1.22.0 prov/efa/src/efa_errno.h: "Unresponsive remote (detected locally)" (status 13), and
        # efa_strerror.c's help: "... most often due to incorrect inbound/outbound security group rules ..."; libfabric
        # 2.x (efa_errno.h, commit 31557ab) status 4126 "Unresponsive receiver (reachable by EFA device but handshake
        # failed)": the device reaches the peer, the handshake does not come back (outbound rule, or no peer process).
        (r"Unresponsive remote \(detected locally\)",
         r"most often due to incorrect inbound/outbound security group rules",
         r"Unresponsive receiver \(reachable by EFA device but handshake failed\)",
         # aws-ofi-nccl 1.18.0 NCCL_OFI_WARN("Unable to insert remote address into address vector for device %d. RC:
         # %s", ...) when fi_av_insert() adds no address (src/nccl_ofi_rdma.cpp line 2201, src/nccl_ofi_sendrecv.cpp
         # line 1323; "RC: %d" at line 2007 and in older plugins): the EFA device could not make an address handle
         # for the peer (aws/aws-ofi-nccl#663: the security group's outbound rule). Not on Slingshot's cxi.
         r"NET/OFI Unable to insert remote address into address vector for device \d+"),
        76,
        applies=lambda log: not log.has(_SLINGSHOT),
    ),
    Cause(
        "efa-libfabric-too-old",
        "aws-ofi-nccl refused the EFA provider: the libfabric it loaded is older than 1.22.0",
        "use the libfabric of a recent EFA installer (1.22.0 or newer; `fi_info --version`), first on "
        "LD_LIBRARY_PATH, or the plugin and libfabric of the same AWS Deep Learning image",
        # aws-ofi-nccl 1.18.0 src/nccl_ofi_net.cpp: NCCL_OFI_WARN("EFA provider requires at least libfabric version
        # 1.22.0.")
        (r"EFA provider requires at least libfabric version",),
        90,
    ),
    Cause(
        "deepspeed-pdsh-ssh-args-bug",
        "DeepSpeed's pdsh launcher failed on its own bug: with --ssh_port it appends to PDSH_SSH_ARGS_APPEND, which "
        "is not set (DeepSpeed 0.11.0 to 0.14.0)",
        "update DeepSpeed to 0.14.1 or newer; or set the variable before the launch (`export "
        "PDSH_SSH_ARGS_APPEND=\"\"`); or drop `--ssh_port` and give the port in ~/.ssh/config (`Host node*` / "
        "`Port 2222`)",
        # DeepSpeed v0.11.0 deepspeed/launcher/multinode_runner.py line 69 (v0.14.0 line 77)
        # environment["PDSH_SSH_ARGS_APPEND"] += f" -p {self.args.ssh_port}", a KeyError when the variable is not
        # in the environment; v0.14.1 reads it with environment.get(..., '').
        (r"KeyError: 'PDSH_SSH_ARGS_APPEND'",),
        90,
    ),
    Cause(
        "deepspeed-no-hostfile",
        "the DeepSpeed launcher found no hostfile and started the training on the first node only, in a job that "
        "has several nodes",
        "give it the job's nodes: a hostfile (`--hostfile`, one `NODE slots=4` line per node, from `scontrol show "
        "hostnames`), or start one launcher per node with srun and torchrun (this project's job scripts do)",
        # DeepSpeed 0.19 deepspeed/launcher/runner.py fetch_hostfile: logger.warning("Unable to find hostfile, will
        # proceed with training with local resources only.")
        (r"Unable to find hostfile, will proceed with training with local resources only",),
        91,
        applies=lambda log: _multi_node(log) or log.has(_INIT_FAILED),
        context=(_NODE_COUNT_MULTI,),
    ),
    Cause(
        "deepspeed-train-batch-below-gpu-count",
        "DeepSpeed's batch sizes gave a micro batch of {micro} per GPU: the config's train_batch_size is smaller "
        "than the job's GPU count times gradient_accumulation_steps (DeepSpeed divides it among the ranks; a "
        "config written for one node run on many), or train_micro_batch_size_per_gpu is set to 0",
        "make train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x the number of GPUs "
        "(at least the GPU count: e.g. 96 on 96 GPUs with `\"gradient_accumulation_steps\": 1`), or give only "
        "train_micro_batch_size_per_gpu and gradient_accumulation_steps and let DeepSpeed compute the rest",
        # DeepSpeed v0.16.4 deepspeed/runtime/config.py line 927 (v0.9.5 line 886), _batch_assertion(): assert
        # (micro_batch > 0), f"Micro batch size per gpu: {micro_batch} has to be greater than 0", after
        # _set_batch_related_parameters() computed micro_batch = train_batch // (grad_acc * world_size).
        (r"Micro batch size per gpu: (?P<micro>0|-\d{1,9}) has to be greater than 0",),
        86,
    ),
    Cause(
        "k8s-shared-gpu-request-over-one-refused",
        "the NVIDIA device plugin shares this node's GPUs (time-slicing or MPS replicas) and refuses a container "
        "that asks for more than one shared GPU (failRequestsGreaterThanOne): the kubelet failed the pod at "
        "admission (UnexpectedAdmissionError)",
        "ask for one `nvidia.com/gpu` (or `nvidia.com/gpu.shared`) per container on such nodes: a second replica "
        "gives no more GPU, only another share of one; for several whole GPUs, schedule the pod on nodes without "
        "sharing (the node label that selects the device plugin's config); the pod does not recover by itself: "
        "delete it and create it again",
        # NVIDIA k8s-device-plugin v0.12.2 cmd/nvidia-device-plugin/server.go line 256 fmt.Errorf("request for '%v:
        # %v' too large: maximum request size for shared resources is 1", plugin.rm.Resource(), len(...)); v0.20.0
        # internal/rm/rm.go lines 99 (time-slicing) and 103 (MPS) fmt.Errorf("%w: maximum request size for shared
        # resources is 1; found %d", errInvalidRequest, ...) with errInvalidRequest "invalid request" (line 78); the
        # kubelet's event "Allocate failed due to rpc error: code = Unknown desc = %s, which is unexpected".
        (r"(?:request for '(?P<resource>[^'\n]{1,100})' too large|invalid request): maximum request size for shared "
         r"resources is 1",),
        84,
    ),
    Cause(
        "rank-sigkill",
        "a rank was killed with SIGKILL (exit code -9): most often the kernel's out-of-memory killer (host "
        "memory), or the scheduler ending the job",
        "check host memory: `sacct -j JOBID -o JobID,MaxRSS,ReqMem,State` and the node's `dmesg` (oom-kill); ask "
        "for more memory (`--mem=`) or use less (fewer DataLoader workers, data read lazily); a job past its time "
        "limit or preempted says so in its scheduler lines",
        # torch 2.13.0 torch/distributed/elastic/multiprocessing: errors/__init__.py's failure table
        # "exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}" and message f"Signal {-self.exitcode}
        # ({self.signal_name()}) received by PID {self.pid}", api.py's "failed (exitcode: %s) local_rank: %s";
        # torch/multiprocessing/spawn.py's "process %d terminated with signal %s".
        # The exit code alone also counts: users quote it with the columns closed up ("exitcode: -9"), and
        # api.py line 836 logs "failed (exitcode: %s) local_rank: %s (pid: %s) of fn: %s (start_method: %s)".
        (r"exitcode\s*: -9 \(pid", r"failed \(exitcode: -9\) local_rank", r"\bexitcode\s{0,4}: -9(?:\)|\s|$)",
         r"Signal 9 \(SIGKILL\) received by PID",
         r"process \d+ terminated with signal SIGKILL",
         # Open MPI's mpirun (PRRTE help-prun.txt [prun:proc-aborted-strsignal], orterun's the same): "%s noticed
         # that process rank %lu with PID %lu on node %s exited on signal %d (%s)." with 9 (Killed).
         r"noticed that process rank \d+ with PID \d+ on node \S{1,253} exited on signal 9\b",
         # bash (bash-5.2 jobs.c notify_of_job_status) reporting a child killed by a signal, with strsignal(9)
         # "Killed": a batch script (non-interactive) writes "%s: line %d: " then pretty_print_job's "PID Killed
         # COMMAND" (line 4310); an interactive shell writes the signal's name alone on its line for a foreground
         # job (line 4321): what a rank started from a terminal leaves when the OOM killer ends it.
         r": line \d+: +\d+ Killed\b", r"^\s{0,8}Killed\s{0,8}$",
         # DeepSpeed's per-node launcher (v0.16.4 deepspeed/launcher/launch.py line 325, sigkill_handler;
         # 0.19.8 line 259): logger.error(f"{cmd} exits with return code = {last_return_code}"), the child's
         # Popen returncode, -9 for SIGKILL; logged as "[ERROR] [launch.py:325:sigkill_handler] [...] exits ...".
         r"exits with return code = -9\s{0,8}$",
         # CPython v3.11.7 Lib/subprocess.py line 142 CalledProcessError.__str__ "Command '%s' died with %r." with
         # signal.Signals(9), as a launcher that waits on its ranks through subprocess raises it (`raise
         # subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)`).
         r"' died with <Signals\.SIGKILL: 9>\.$"),
        57,
    ),
    Cause(
        "binary-built-for-newer-cpu-isa",
        "a process died with SIGILL (illegal instruction): most often a program or library built for a newer CPU "
        "(`-march=native` or `-march=skylake-avx512` on the build node, AVX-512 or AVX2 code) that ran on a node "
        "whose CPU lacks those instructions; more rarely a deliberate trap in the code or a corrupted build",
        "compare the CPUs: `grep -o 'avx[^ ]*' /proc/cpuinfo | sort -u` on the build node and on the node that "
        "failed (`srun -w NODE`); then build for the oldest CPU the jobs may get (`-march=x86-64-v3`, or the older "
        "node's `-march=`), or keep the job on the nodes it was built for (`--constraint=FEATURE`, `sinfo -o '%N "
        "%f'` lists each node's features); if the CPUs match, `gdb ./a.out core` shows the instruction (`ud2` is a "
        "trap in the code, not the CPU)",
        # The signal's name from glibc-2.39 sysdeps/generic/siglist.h line 32: init_sig (SIGILL, "ILL",
        # N_("Illegal instruction")), as strsignal() gives it to Slurm 25.11.7 srun (src/srun/launch.c line 450,
        # error("%s: %s %s: %s%s", hosts, task_str, tasks, signal_str, core_str), core_str " (core dumped)") and to
        # bash's job report (as for rank-sigkill's "Killed"). torch 2.13.0 torch/distributed/elastic/
        # multiprocessing: errors/__init__.py's failure table "exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}"
        # and message f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}", api.py's
        # "failed (exitcode: %s) local_rank: %s", with -4 for SIGILL.
        (r"(?:^|: |\d )Illegal instruction\b(?! was encountered)", r"exitcode\s*: -4 \(pid",
         r"failed \(exitcode: -4\) local_rank", r"Signal 4 \(SIGILL\) received by PID",
         r"process \d+ terminated with signal SIGILL", r"' died with <Signals\.SIGILL: 4>\.$"),
        78,
    ),
    Cause(
        "launcher-local-rank-argument-rejected",
        "the training script's argument parser rejected the rank argument its launcher appends ({arg}): "
        "torch.distributed.launch (without --use-env) and DeepSpeed's launcher add it to every rank's command line, "
        "`--local-rank=N` since torch 2.0 and `--local_rank=N` before it and in DeepSpeed, and the script does not "
        "declare that spelling, so each rank exits (status 2) before training starts",
        "declare both spellings in the script: `parser.add_argument(\"--local-rank\", \"--local_rank\", type=int, "
        "default=-1)`; or read the rank from the environment (`int(os.environ[\"LOCAL_RANK\"])`) and launch with "
        "torchrun (it passes no rank argument), or `python -m torch.distributed.launch --use-env`, or DeepSpeed's "
        "`deepspeed --no_local_rank`",
        # CPython v3.11.7 Lib/argparse.py line 1871 (parse_args) msg = _('unrecognized arguments: %s'), printed by
        # error() (line 2630) as _('%(prog)s: error: %(message)s\n') before exit(2). What the launcher appends:
        # torch v2.13.0 torch/distributed/run.py line 966 cmd_args.append(f"--local-rank={macros.local_rank}") when
        # not use_env (torchrun's parser has no --use-env, so torchrun never appends it; torch.distributed.launch
        # does unless --use-env), torch v1.13.1 run.py line 720 f"--local_rank={macros.local_rank}"; DeepSpeed
        # v0.16.4 deepspeed/launcher/launch.py line 246 cmd.append(f"--local_rank={local_rank}") unless
        # --no_local_rank.
        (r": error: unrecognized arguments: (?:\S{1,500} ){0,20}(?P<arg>--local[-_]rank=\d+)",),
        90,
    ),
    Cause(
        "cuda-arch-unsupported",
        "the program's CUDA code was not built for this GPU: the torch, extension or NCCL build lacks the GPU's "
        "compute capability, so its kernels cannot run here",
        "install a build that includes the GPU's capability: `python -c 'import torch; print(torch.cuda."
        "get_arch_list())'` against `nvidia-smi --query-gpu=compute_cap --format=csv` (H100 and GH200: sm_90); a "
        "wheel for the node's CUDA and CPU architecture (aarch64 on GH200), or this project's image; rebuild "
        "extensions with `TORCH_CUDA_ARCH_LIST` including it, and a NCCL built from source with the GPU's "
        "capability in `NVCC_GENCODE` (`-gencode=arch=compute_90,code=sm_90` for H100/GH200)",
        # torch 2.13.0 torch/cuda/__init__.py _check_cubins: "{} with CUDA capability sm_{} is not compatible with
        # the current PyTorch installation."; CUDA's string for cudaErrorNoKernelImageForDevice (209).
        # The same missing kernels in NCCL's words: NCCL's CUDA checks (src/include/checks.h CUDACHECK
        # WARN("Cuda failure '%s'", cudaGetErrorString(err)), v2.7.8-1 to v2.30.7-1) around its kernels'
        # cudaFuncGetAttributes (src/enqueue.cc, v2.18.5-1 line 115) and launches print CUDA's strings for
        # cudaErrorSymbolNotFound (500, "named symbol not found": no kernel of that name in the build for this
        # GPU, a NCCL built with NVCC_GENCODE for older GPUs) and cudaErrorInvalidDeviceFunction (98, "invalid
        # device function", the same before CUDA 11's fat binaries).
        (r"with CUDA capability sm_\d+ is not compatible with the current PyTorch",
         r"no kernel image is available for execution on the device",
         r"NCCL WARN Cuda failure (?:\d+ )?'(?:named symbol not found|invalid device function)'",
         r"CUDA error: invalid device function\b"),
        93,
    ),
    Cause(
        "command-not-on-node",
        "Slurm could not start the task's program on the node: {program} is not there (not on the node's PATH, "
        "or a path that exists on the login node only)",
        "give srun a program every node has: activate the environment in the job script before srun (`source "
        ".venv/bin/activate` on a shared filesystem), use its full path, or run it inside the image "
        "(`IMAGE=app.sif`); `srun -N NNODES which PROGRAM` checks each node",
        # Slurm 25.11.7 src/slurmd/slurmstepd/task.c line 546: error("execve(): %s: %m", task->argv[0]).
        (r"execve\(\): (?P<program>\S{1,200}): No such file or directory",),
        88,
    ),
    Cause(
        "slurm-step-blocked",
        "srun waits to start its step: the job's resources are held by another step ({why}), so the tasks never "
        "start on every node",
        "let steps share the allocation: `srun --overlap` (or `--exact` with a share of CPUs and memory each, "
        "e.g. `--mem=0` only for one step at a time); a step left running from an earlier srun holds them: "
        "`squeue -s -j JOBID` lists the steps",
        # Slurm 25.11.7 src/srun/launch.c line 1271: info("Job %u step creation temporarily disabled, retrying
        # (%s)", ..., slurm_strerror(rc)).
        (r"step creation temporarily disabled, retrying \((?P<why>[^)]{1,200})\)",),
        85,
        applies=lambda log: not log.has(_STEP_CREATED),
    ),
    Cause(
        "cxi-vni-not-granted",
        "the Slingshot NIC refused the job's network identifier (VNI): the process was not started through the "
        "launcher that grants the job its VNIs (Slurm's Slingshot switch plugin, PALS), or lost their environment",
        "start the ranks with the site's launcher inside the allocation (`srun`, or PALS `mpiexec` on PBS), not "
        "ssh or a second mpirun; in a container keep the environment (no `--cleanenv`, or pass SLINGSHOT_VNIS, "
        "SLINGSHOT_SVC_IDS and SLINGSHOT_DEVICES); `fi_info -p cxi` inside the job shows whether the provider "
        "opens",
        # libfabric 1.22.0 prov/cxi/src/cxip_if.c lines 202 and 217: CXIP_WARN("cxil_get_svc with %s and rgroup_id
        # %d failed: %d:%s\n", ...) and CXIP_WARN("Invalid VNI %d for %s and svc_id %d\n", ...).
        # prov/cxi/src/cxip_dom.c line 1766 CXIP_WARN("cxip_gen_auth_key failed: %d:%s", ...) (older releases print
        # the number alone): -38 is -FI_ENOSYS, which cxip_gen_auth_key() returns when the NIC holds no default
        # service for the process (cxip_info.c line 1525), i.e. no VNI was granted to it.
        # The NIC's own return code for a packet whose VNI the target has no match for, as libfabric's cxi provider
        # prints it: cxi_rc_to_str(C_RC_VNI_NOT_FOUND) "VNI_NOT_FOUND" (HewlettPackard/shs-cassini-headers
        # include/cxi_prov_hw.h, commit 06f69b0), in "(err: %d, %s)".
        # The same -FI_ENOSYS as the caller sees it from fi_domain() (cxi's domain open generates the auth key):
        # aws-ofi-nccl v1.18.0 src/nccl_ofi_rdma.cpp line 6803 and src/nccl_ofi_sendrecv.cpp line 2229
        # NCCL_OFI_WARN("Couldn't open a fabric access domain. RC: %d, ERROR: %s", ...), and other libfabric users'
        # "fi_domain failed: -38"; read only on a Slingshot system (EFA's and verbs' providers have other ENOSYS).
        # Where that ENOSYS comes from, as the provider enumerates the NICs (prov/cxi/src/cxip_nic.c): no
        # SLINGSHOT_VNIS/SLINGSHOT_SVC_IDS from the launcher and no CXI service open to the user's uid or gid, line
        # 252 CXIP_WARN("Failed to find valid default rgroup and vni for %s\n", ...) (service 0 recorded); a service
        # that matches but lists no VNI, line 220 CXIP_WARN("No valid VNIs for %s service ID %u\n", ...).
        (r"Invalid VNI \d+ for \w+ and svc_id \d+", r"\(err: \d+, VNI_NOT_FOUND\)",
         r"cxil_get_svc with \w+ and (?:rgroup_id|svc_id) \d+ failed",
         r"cxip_gen_auth_key failed: -38\b", _FI_DOMAIN_ENOSYS,
         r"Failed to find valid default rgroup and vni for \w+", r"No valid VNIs for \w+ service ID \d+",
         # The send's completion error as aws-ofi-nccl v1.18.0 prints it, fi_cq_strerror() being cxi's
         # cxi_rc_to_str(): src/nccl_ofi_rdma.cpp line 1456 "Request %p seq %d completed with error. RC: %d. Error:
         # %d (%s). ..." and src/nccl_ofi_sendrecv.cpp line 217 (without "seq %d"); RC 107 is FI_ENOTCONN, which
         # libfabric's proverr2errno() (prov/cxi/src/cxip_cq.c line 61) gives C_RC_VNI_NOT_FOUND.
         r"completed with error\. RC: \d+\. Error: \d+ \(VNI_NOT_FOUND\)"),
        84,
        applies=lambda log: not log.has(_FI_DOMAIN_ENOSYS) or log.has(_SLINGSHOT),
    ),
    Cause(
        "gke-tcpxo-rxdm-gvnic-displaced-gpu-nic",
        "GPUDirect-TCPXO's receive-datapath manager (RxDM) found fewer GPU NICs in the node's PCI tree than CUDA "
        "has GPUs ({pci} against {cuda}) and exited: a NIC of the node's GPU networks is missing or was displaced "
        "(on GKE an extra gVNIC network takes a GPU NIC's PCI slot), so NCCL's FasTrak connections are refused",
        "give the GPU node pool exactly the 8 GPU NIC networks (no extra gVNIC additional network: `gcloud "
        "container node-pools describe POOL --format='yaml(networkConfig.additionalNodeNetworkConfigs)'` lists "
        "them; recreate the pool without it), then restart the RxDM sidecar; `kubectl logs POD -c tcpxo-daemon` "
        "shows its count",
        # RxDM (fastrak_gpumem_manager) publishes no source; its words as NVIDIA/aicr#1662 quotes them, and the
        # shorter wording of that project's TCPXO troubleshooting notes ("Number of GPUs detected 7 is not equal to
        # the actual number of GPUs 8").
        (r"Number of GPUs detected (?:in the PCI tree )?(?P<pci>\d+) is not equal to the actual number of GPUs "
         r"(?:reported by CUDA )?(?P<cuda>\d+)",),
        92,
    ),
    Cause(
        "enroot-registry-refused",
        "enroot (pyxis' image import) could not pull the image: the registry answered {code} (401 or 403: no or "
        "wrong credentials; 404: no such image or tag; 429: the pull rate limit)",
        "put the registry's credentials in enroot's credentials file (`$ENROOT_CONFIG_PATH/.credentials`, by "
        "default ~/.config/enroot/.credentials: `machine nvcr.io login $oauthtoken password <key>`), check the "
        "name and tag (pyxis writes the registry with `#`: `--container-image=nvcr.io#nvidia/pytorch:25.01-py3`), "
        "or import once on a login node (`enroot import docker://...`) and give --container-image the .sqsh file; "
        "a 404 on `.../manifests/<tag>` for a tag that exists (the registry's page lists it) is an enroot older "
        "than 3.4.1 (`enroot version`) that asks only for Docker's manifest types and not the OCI index a "
        "multi-arch image is pushed with: the admins upgrade enroot, or import on a machine with a newer one",
        # enroot v4.1.2 src/common.sh line 134: common::err "URL ${@: -1} returned error code: ${code} ${status}"
        # (printed as "[ERROR] ..."); 429 has no status text there. enroot v3.3.1 src/docker.sh lines 134 to 156
        # ask for the manifest list with "Accept: application/vnd.docker.distribution.manifest.list.v2+json"
        # ignoring a 404 (CURL_IGNORE="401 404"), then for the tag's manifest as
        # application/vnd.docker.distribution.manifest.v2+json: a tag with only an OCI index answers 404 there, the
        # same line a missing tag gives, so the log cannot tell them apart. v3.4.1 (commit a7493bf, "Add support for
        # OCI format") lines 134 and 135 add application/vnd.oci.image.index.v1+json and ...manifest.v1+json.
        (r"URL \S{1,2000} returned error code: (?P<code>40[134]|429)\b",),
        92,
    ),
    Cause(
        "image-tag-not-found-no-latest",
        "the registry has no image for the tag {tag} of that repository (MANIFEST_UNKNOWN), so the pull or build "
        "stopped: the tag is misspelt or was never published there; an image named without a tag "
        "(`docker://owner/name`) asks for `latest`, which many repositories do not publish",
        "name a tag the repository has: `apptainer build app.sif docker://owner/name:TAG` (Docker Hub's Tags tab, "
        "or `skopeo list-tags docker://owner/name`, lists them); the project's image is built from a pinned tag "
        "(`make image`)",
        # Apptainer v1.4.0 to v1.5.3 fetches OCI images through go-containerregistry: its transport error (v0.21.6
        # pkg/v1/remote/transport/error.go) is fmt.Sprintf("%s %s: ", Method, URL) (line 50) then the registry's
        # diagnostic, line 104 fmt.Sprintf("%s: %s", d.Code, d.Message) and "; %v" with its detail (Docker Hub's
        # "unknown tag=latest"); the build wraps it (internal/pkg/build/build.go line 308 "conveyor failed to get:
        # %v", cmd/internal/cli/build_linux.go "While performing build: %v"), `pull` as "While making image from
        # oci registry: error fetching image to cache: %v". MANIFEST_UNKNOWN is the registry's code for a tag or
        # digest it lacks (OCI distribution spec). containers/image (SingularityCE 4.5's pulls, Podman, skopeo)
        # v5.36.1 docker/docker_client.go line 967: fmt.Errorf("reading manifest %s in %s: %w", tagOrDigest, ...)
        # with the registry's message ("manifest unknown", docker/errors.go; older releases "manifest unknown:
        # manifest unknown").
        (r"/manifests/(?P<tag>[^\s:/]{1,128}): MANIFEST_UNKNOWN: manifest unknown",
         r"\breading manifest (?P<tag>[^\s:/]{1,128}) in \S{1,300}: manifest unknown"),
        90,
    ),
    Cause(
        "ib-link-layers-mixed",
        "NCCL was given network ports of two link types (InfiniBand and RoCE/Ethernet) to use together: the "
        "HCAs it picked on this node, or on the two ends of a connection, do not speak the same protocol",
        "select ports of one link type with `NCCL_IB_HCA` (`EXTRA_ENV=NCCL_IB_HCA==mlx5_0:1,mlx5_1:1`: `=` "
        "matches the names exactly), the same on every node; `ibv_devinfo | grep -e hca_id -e link_layer` shows "
        "each port's link layer; `python -m app.check` names the transport per node pair",
        # NCCL v2.26.6-1 to v2.30.7-1 (src/transport/net_ib.cc, net_ib/connect.cc): WARN("NET/IB : Attempted to
        # merge|connect incompatible devices: [%d]%s:%d/%s and [%d]%s:%d/%s. Try selecting NICs of only one link
        # type using NCCL_IB_HCA") and WARN("NET/IB : Remote %s device is incompatible with the local
        # [%d]%s:%d/%s. ..."); none of the three before 2.26.
        (r"NET/IB ?: Attempted to (?:merge|connect) incompatible devices",
         r"NET/IB ?: Remote \S+ device is incompatible with the local"),
        88,
    ),
    Cause(
        "nvlink-p2p-disabled",
        "the driver reports peer-to-peer disabled between GPUs that NVLink connects: the node's NVLink fabric "
        "is not up (on NVSwitch systems the Fabric Manager service is stopped or failed) or a link is faulty",
        "run `nvidia-smi topo -p2p rw` and `nvidia-smi nvlink --status` on the node; on NVSwitch nodes (HGX "
        "H100/H200 8-GPU) the admins check `systemctl status nvidia-fabricmanager`; resubmit without the node "
        "(`--exclude=NODE`); `NCCL_IGNORE_DISABLED_P2P=1` only makes NCCL route around the GPUs' link, slower",
        # NCCL v2.18.1-1 to v2.30.7-1 src/graph/paths.cc: WARN("P2P is disabled between NVLINK connected GPUs %d
        # and %d. This should not be the case given their connectivity, and is probably due to a hardware issue.
        # ...") when NVML's P2P status for the pair is not OK. Two different devices: the same one twice is
        # nccl-multi-rank-per-gpu-false-p2p-disabled-check.
        (r"P2P is disabled between NVLINK connected GPUs (?P<first>\d+) and (?!(?P=first)\b)\d+",),
        87,
    ),
    Cause(
        "nccl-multi-rank-per-gpu-false-p2p-disabled-check",
        "NCCL said P2P is disabled between GPU {gpu} and itself: several ranks share that GPU, and an NCCL built "
        "from master between the v2.30 development commit and its fix compared the ranks' topology entries, not "
        "their devices, so it asked NVML for P2P from a GPU to itself; NCCL's bug, not the NVLink",
        "use a released NCCL (2.30.3 or later, which skips the check for one device) instead of that master build; "
        "with it, `EXTRA_ENV=NCCL_IGNORE_DISABLED_P2P=1` skips the check; a warning that names two different GPUs "
        "is the link itself (`nvidia-smi topo -p2p rw`)",
        # NCCL master from b3aeda4 ("NCCL v2.30 development", ranks may share a GPU) to 04cdb80 ("Fix P2P check for
        # multi-rank per GPU feature", in v2.30.3-1) src/graph/paths.cc line 375: WARN("P2P is disabled between
        # NVLINK connected GPUs %d and %d. ...", indexes[i-1], indexes[i-0]), the NVML device of each side, checked
        # when `g1 != g2` (topology indices, which differ for two ranks of one GPU). Released NCCL before 2.30.3
        # refuses two ranks on one GPU first (src/init.cc "Duplicate GPU detected"), so a device named twice
        # comes only from those builds.
        (r"P2P is disabled between NVLINK connected GPUs (?P<gpu>\d+) and (?P=gpu)\b",),
        88,
    ),
    Cause(
        "p2p-peer-access-refused",
        "CUDA refused peer-to-peer access between two GPUs of the node ({why}): GPUs under different PCIe root "
        "complexes, PCIe ACS or an IOMMU that blocks peer traffic, or a virtual machine that hides it",
        "confirm with `EXTRA_ENV=NCCL_P2P_DISABLE=1` (NCCL then copies through host memory); `nvidia-smi topo "
        "-p2p r` shows which pairs can peer; the admins disable ACS on the PCIe switches and set the IOMMU to "
        "passthrough (`iommu=pt`) per NCCL's troubleshooting guide; Open MPI's CUDA IPC is turned off with `mpirun "
        "--mca btl_smcuda_use_cuda_ipc 0`",
        # NCCL v2.18.1-1 to v2.30.7-1 src/transport/p2p.cc: WARN("failed to peer with device %d(=%lx): %d %s",
        # ..., err, cudaGetErrorString(err)) and src/transport/net.cc: WARN("failed to peer with device %d: %d
        # %s", ...) when cudaDeviceEnablePeerAccess fails; torch's "CUDA error: %s" with CUDA's string for
        # cudaErrorPeerAccessUnsupported (217). NCCL's shm.cc line of the same string is cumem-host-no-p2p.
        (r"failed to peer with device \d+(?:\(=\w+\))?: \d+ (?P<why>.{1,200})",
         r"CUDA error: (?P<why>peer access is not supported between these two devices)",
         # Open MPI's CUDA IPC (the smcuda BTL, 1.7 to 4.1): [cuIpcOpenMemHandle failed] of help-mpi-common-cuda.txt
         # (v1.8.8 line 72 "  cuIpcOpenMemHandle return value:   %d", v4.1.8 line 87 "...:  %d"), shown from
         # opal/mca/common/cuda/common_cuda.c line 1158 with CUDA's result: 205 CUDA_ERROR_MAP_FAILED (the peer's
         # memory not mappable from this GPU) and 217 CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (cuda.h). Other results
         # (out of memory, an invalid value under MPS) are not this cause.
         r"^\s{0,8}(?P<why>cuIpcOpenMemHandle return value: {1,4}(?:205|217))\s*$"),
        86,
    ),
    Cause(
        "memlock-limit-tiny",
        "the job failed with a locked-memory limit (ulimit -l) of {limit} bytes, which libibverbs warned is too "
        "low for RDMA: registering buffers with the network card (InfiniBand verbs, EFA) fails or is limited",
        _MEMLOCK_FIX,
        # rdma-core v28.0 to v59.0 libibverbs/init.c check_memlock_limit: fprintf(stderr, PFX "Warning:
        # RLIMIT_MEMLOCK is %llu bytes.\n" ...) for a limit of 32 KiB or less (PFX "libibverbs: "). A warning
        # every verbs program prints at start, so a cause only in a job that failed.
        (r"libibverbs: Warning: RLIMIT_MEMLOCK is (?P<limit>\d+) bytes",),
        80,
        applies=lambda log: log.has(_FAILED),
    ),
    Cause(
        "memlock-limit-lowered-without-reboot",
        "Open MPI's InfiniBand transport (the openib BTL) could not start its async event thread (pthread_create "
        "failed), so the ranks had no network between nodes: seen after the admins lowered the nodes' locked-memory "
        "limit (limits.conf, pbs_mom) without rebooting them; a per-user process limit reached fails it alike",
        "compare the limits a job gets with a login's (`mpirun -np 2 bash -c 'ulimit -l -u -s'` against `ulimit -l "
        "-u -s`): after changing memlock, restore `memlock unlimited` (or the new value) in limits.conf and pbs_mom's "
        "or slurmd's start-up and reboot the nodes; a `max user processes` (ulimit -u) at its ceiling is the other "
        "reading",
        # Open MPI v1.4.2 to v1.4.5 ompi/mca/btl/openib/btl_openib_component.c line 562 (v1.6.5 line 674, v1.7.5 to
        # v1.10.7 btl_openib_async.c line 707/711), start_async_event_thread: if (pthread_create(...)) {
        # BTL_ERROR(("Failed to create async event thread")); return OMPI_ERROR; } (BTL_ERROR's prefix
        # "[node][[job,vpid]][file:line:function] "). Open MPI 2.0 and later start the thread otherwise. The
        # reading is users/2013/08/22480 (memlock lowered to 12 GB, fixed by unlimited and a reboot).
        (r"\bbtl_openib(?:_component|_async)\.c:\d+:start_async_event_thread\] Failed to create async event "
         r"thread\b",),
        75,
    ),
    Cause(
        "cma-ptrace-denied-in-container",
        "Open MPI's shared-memory transport could not copy between two ranks of a node with cross-memory attach "
        "(process_vm_readv/writev refused with EPERM, errno 1): the ranks run in different containers (a user "
        "namespace each, one container per rank), or the kernel's ptrace restrictions forbid it",
        "start a node's ranks inside one container (one container per node that runs all its ranks, e.g. "
        "Charliecloud's `ch-run --join`, or `srun --ntasks-per-node=1 ch-run IMAGE -- mpirun ...`), or turn "
        "cross-memory attach off: "
        "`mpirun --mca btl_vader_single_copy_mechanism none` (Open MPI 1.8 to 4.1), `--mca smsc ^cma` (Open MPI 5); "
        "on bare nodes the admins set `kernel.yama.ptrace_scope=0`",
        # Open MPI's vader BTL (v1.8.8 ompi/mca/btl/vader/btl_vader_get.c line 81, put.c line 83; v4.1.8
        # opal/mca/btl/vader/btl_vader_get.c line 98, btl_vader_put.c line 77): opal_output(0, "Read %ld, expected %lu,
        # errno = %d\n", ...) and "Wrote %ld, ..." after process_vm_readv/writev; Open MPI 5's smsc/cma (v5.0.6
        # opal/mca/smsc/cma/smsc_cma_module.c lines 149 and 205) "CMA wrote ..."/"CMA read %ld, expected %lu, errno =
        # %d". errno 1 is EPERM (ptrace access refused); ESRCH (3) is a peer that died and not this cause. And the
        # vader help text [cma-different-user-namespace-error] (v4.1.8 help-btl-vader.txt line 130 "ERROR: Linux
        # kernel CMA support was requested via the\nbtl_vader_single_copy_mechanism MCA variable, but CMA support is\n
        # not available due to different user namespaces."); its WARNING forms fall back to another mechanism.
        # The Read/Wrote lines alone are printed by runs that then completed (Open MPI in unprivileged Docker:
        # horovod/horovod#300 and #503, "harmless"): a cause only in a run that failed.
        (_CMA_EPERM, _CMA_USERNS_ERROR),
        80,
        applies=lambda log: log.has(_CMA_USERNS_ERROR) or log.has(_MPI_FAILED),
    ),
    Cause(
        "enroot-no-gpu-hook",
        "enroot (pyxis' container start) could not give the container the GPUs: nvidia-container-cli "
        "(libnvidia-container) is not installed on the node, which enroot's GPU hook needs",
        "the admins install libnvidia-container's `nvidia-container-cli` on the GPU nodes (enroot's 98-nvidia "
        "hook calls it whenever NVIDIA_VISIBLE_DEVICES is set); meanwhile run with this project's Apptainer image "
        "(`IMAGE=app.sif`, which uses `--nv` and not this hook)",
        # enroot v3.1.0 to v4.1.2 conf/hooks/98-nvidia.sh: common::err "Command not found: nvidia-container-cli,
        # see https://github.com/NVIDIA/libnvidia-container" (printed "[ERROR] ...", src/common.sh common::log).
        (r"Command not found: nvidia-container-cli",),
        90,
    ),
    Cause(
        "enroot-hook-failed",
        "enroot (pyxis' container start) stopped because one of its hooks failed: {hook}; the hook's own lines "
        "just above say why",
        "read the hook's lines above this one: 98-nvidia.sh is the GPU hook (libnvidia-container: the driver, "
        "`nvidia-container-cli info` on the node), 99-mellanox.sh the InfiniBand one, 50-slurm-pmi.sh the PMI "
        "one (it reads the Slurm configuration); the admins fix the hook or its tool on the node; meanwhile run "
        "with this project's Apptainer image (`IMAGE=app.sif`)",
        # enroot v3.1.0 to v4.1.2 src/common.sh common::runparts: "${file}" || common::err "${file} exited with
        # return code $?" for each executable hook (src/runtime.sh runs them from hooks.d).
        (r"(?P<hook>/\S{1,300}\.sh) exited with return code [1-9]\d*",),
        60,
    ),
    Cause(
        "image-musl-ldconfig-breaks-enroot-hooks",
        "an enroot hook that bind-mounts the host's libraries into the container (enroot's 99-mellanox.sh to 3.5, "
        "a site's Slurm or CXI hook) could not refresh the container's linker cache: it runs the image's own "
        "/sbin/ldconfig with glibc's options (`ldconfig -r ROOTFS`), which an image whose C library is not glibc "
        "does not have (Alpine's musl ldconfig, busybox), so the hook failed and the container did not start",
        "use a glibc-based image (Debian, Ubuntu, RHEL-like, the NGC images) for jobs that need the hooks, or turn "
        "the hook off for this image: `MELLANOX_VISIBLE_DEVICES=void` (enroot's InfiniBand hook), "
        "`ENROOT_SLURM_HOOK=0` and `com.hooks.cxi.enabled = \"false\"` (CSCS' container engine), or ask the admins "
        "which variable disables their hook; `enroot start IMAGE ls /sbin/ldconfig*` shows the image's ldconfig",
        # enroot v3.4.0 to v3.5.0 conf/hooks/99-mellanox.sh line 154: ldconfig="$(set -- "" "${ENROOT_ROOTFS}"/sbin/
        # ldconfig*; echo "${@: -1}")"; if ! ${ldconfig:-ldconfig} -r "${ENROOT_ROOTFS}" ...; then common::err
        # "Failed to refresh the dynamic linker cache" (line 156; src/common.sh prints "[ERROR] %s"); sites' hooks
        # carry the same step (CSCS' container-engine known issues: the Slurm and CXI hooks with Alpine images).
        (r"\[ERROR\] Failed to refresh the dynamic linker cache",),
        75,
    ),
    Cause(
        "enroot-nvidia-visible-devices-unset",
        "the program in an enroot/pyxis container found no NVIDIA driver: enroot's GPU hook (98-nvidia.sh) adds the "
        "driver only when NVIDIA_VISIBLE_DEVICES is set, which NVIDIA's CUDA images set and other base images "
        "(ubuntu, python, a home-built one) do not, so the container ran without the driver",
        "set it for the job: `export NVIDIA_VISIBLE_DEVICES=all` before srun (pyxis passes the environment), or in "
        "the image (`ENV NVIDIA_VISIBLE_DEVICES=all` and `ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility`) or an "
        "enroot environment file; check the node itself has the driver (`srun nvidia-smi` outside the container) "
        "and that the job asked for GPUs (`--gpus-per-node`)",
        # enroot v4.1.2 conf/hooks/98-nvidia.sh line 33: if [ "${NVIDIA_VISIBLE_DEVICES:-void}" = "void" ]; then
        # exit 0 (the hook does nothing, silently); torch's c10/cuda/CUDAFunctions.cpp then says "Found no NVIDIA
        # driver on your system" (no libcuda loaded). NVIDIA/enroot#205 (the maintainer: "You have to set
        # NVIDIA_VISIBLE_DEVICES (in your srun env, enroot env file, container, etc)"). Read where the log shows
        # pyxis or enroot starting the container; elsewhere the line is apptainer-no-nv's.
        (r"Found no NVIDIA driver on your system",),
        92,
        applies=lambda log: log.has(_ENROOT_RUN),
    ),
    Cause(
        "nvccli-contain-without-nvidia-visible-devices",
        "Apptainer set up the GPUs with nvidia-container-cli (--nvccli) under --contain/--containall without "
        "NVIDIA_VISIBLE_DEVICES, so no GPU was passed into the container and the program inside sees none",
        "set the GPUs to pass in: `export NVIDIA_VISIBLE_DEVICES=all` (or a list, `0,1`; `APPTAINERENV_` is not "
        "needed, Apptainer reads it from the host environment) before `apptainer run --nvccli -c ...`, or drop "
        "`--contain`/`-c` (without it Apptainer sets `NVIDIA_VISIBLE_DEVICES=all` itself), or use `--nv` instead "
        "of `--nvccli`",
        # Apptainer v1.1.0 cmd/internal/cli/actions_linux.go line 972, v1.5.3 internal/pkg/runtime/launch/
        # launcher_linux.go line 879: sylog.Warningf("When using nvidia-container-cli with --contain
        # NVIDIA_VISIBLE_DEVICES must be set or no GPUs will be available in container."), printed when the variable
        # is empty and --contain or --containall is given; without them it sets NVIDIA_VISIBLE_DEVICES=all (line
        # 884). Its first part alone: a terminal wraps the line there.
        (r"When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES(?: must be set|\s*$)",),
        90,
    ),
    Cause(
        "slurm-fewer-tasks-than-nodes",
        "srun was asked for fewer tasks ({tasks}) than nodes ({nodes}) and ran on {tasks} node(s) only: the other "
        "nodes never started a task, so the ranks they should hold never joined",
        "start one task per node: `srun -N NNODES --ntasks-per-node=1 torchrun ...` (or `-n` equal to the node "
        "count), not `-n 1`; this project's jobscripts/slurm.sh and mn5.sh do it",
        # Slurm 25.11.7 src/srun/opt.c line 1221 (also sbatch/opt.c, salloc/opt.c): warning("can't run %d
        # processes on %d nodes, setting nnodes to %d", ...). Printed in healthy one-task steps too (`srun -n 1`
        # in a two-node job), so a cause only in a job that failed.
        (r"can't run (?P<tasks>\d+) processes on (?P<nodes>\d+) nodes, setting nnodes to \d+",),
        92,
        applies=lambda log: log.has(_FAILED),
    ),
    Cause(
        "slurm-ntasks-per-node-ignored",
        "srun ignored --ntasks-per-node={per_node}: the {tasks} tasks asked for do not fit that many per node on "
        "the nodes given, so nodes got more tasks (ranks) than planned, more than they have GPUs",
        "make the counts agree: `-n` = nodes x `--ntasks-per-node` (or give only `-N` and `--ntasks-per-node`); "
        "one torchrun per node: `srun -N NNODES --ntasks-per-node=1 torchrun --nproc_per_node=GPUS ...`",
        # Slurm 25.11.7 src/srun/opt.c line 1269: warning("can't honor --ntasks-per-node set to %u which doesn't
        # match the requested tasks %u with the maximum number of requested nodes %u. Ignoring
        # --ntasks-per-node.", ...), and line 1278 for -m pack.
        (r"can't honor --ntasks-per-node set to (?P<per_node>\d+) which doesn't match the requested tasks "
         r"(?P<tasks>\d+)",),
        86,
        # In a run that failed; or ignoring --ntasks-per-node=1, the one-launcher-per-node layout (one torchrun per
        # node): launchers then share a node, which never works (NVIDIA/cloudai#729's 16 tasks on 2 nodes).
        applies=lambda log: log.has(_FAILED) or log.has(_ONE_PER_NODE_IGNORED),
    ),
    Cause(
        "efa-gdr-unavailable",
        "the libfabric plugin refused to run on an AWS instance type ({instance}) whose EFA supports GPUDirect "
        "RDMA, because libfabric's EFA provider offered none: a libfabric without CUDA support ahead of the EFA "
        "installer's, `FI_EFA_USE_DEVICE_RDMA=0`, or a node without GPU-memory registration (dma-buf or the "
        "nvidia-peermem module)",
        "use the EFA installer's libfabric (`/opt/amazon/efa/lib` first on LD_LIBRARY_PATH, not one from the "
        "image or a conda environment), leave `FI_EFA_USE_DEVICE_RDMA` unset, and check `fi_info -p efa` on the "
        "node; `OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK=1` only lets it run without GPUDirect, much slower",
        # aws-ofi-nccl v1.18.0 src/platform-aws.cpp line 752: NCCL_OFI_WARN("GDR disabled on GDR-supported
        # instance type %s", platform_data->name), when the EFA provider reports no FI_HMEM support on an
        # instance type its platform table marks gdr_required (the check is older than 1.18, in C).
        (r"GDR disabled on GDR-supported instance type (?P<instance>[\w.-]{1,40})",),
        88,
    ),
    Cause(
        "mnnvl-imex-not-working",
        "the GPUs are in a multi-node NVLink domain (MNNVL) but NCCL cannot share GPU memory across it: the job "
        "has no IMEX channel, or the IMEX service is not running or not configured on every node of the domain",
        "give the job an IMEX channel (a `/dev/nvidia-caps-imex-channels/channelN` inside the job and the "
        "container: Slurm's switch/nvidia_imex plugin creates one per job) and run nvidia-imex on every node "
        "(`nvidia-imex-ctl -N` shows each node's state); `EXTRA_ENV=NCCL_MNNVL_ENABLE=0` runs over the network "
        "instead of multi-node NVLink meanwhile",
        # NCCL src/mnnvl.cc: v2.25.1-1 and v2.26.6-1 WARN("MNNVL (cliqueSize %d) is available but not supported on
        # this system. Check the IMEX configuration."); v2.27.7-1 to v2.30.7-1 "... is available but not working
        # on this system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). ..." (no FABRIC
        # memory) and "... Check the IMEX configuration (nvidia-imex-ctl -N). ..." (export or import failed).
        (r"MNNVL \(cliqueSize \d+\) is available but not (?:working|supported) on this system",),
        89,
    ),
    Cause(
        "imex-channel-missing-fabric-memory-refused",
        "CUDA refused to create GPU memory with a fabric handle (cuMemCreate: operation not permitted, 800): the "
        "process has no IMEX channel (/dev/nvidia-caps-imex-channels/channelN), which fabric handles need on GPUs "
        "that support them (GB200/GH200 NVLink domains), most often inside a container that was not given one",
        "give the job an IMEX channel: bind /dev/nvidia-caps-imex-channels into the container, or create channel0 "
        "(`mknod /dev/nvidia-caps-imex-channels/channel0 c MAJOR 0` with MAJOR from `grep nvidia-caps-imex-channels "
        "/proc/devices`); Slurm's switch/nvidia_imex plugin creates one per job; mscclpp 0.7 and later fall back to "
        "a file-descriptor handle within a node",
        # mscclpp v0.6.0 include/mscclpp/gpu_utils.hpp line 99 asks cuMemCreate for CU_MEM_HANDLE_TYPE_FABRIC on every
        # GPU; its MSCCLPP_CUTHROW (line 31) throws CuError(std::string("Call to " #cmd " failed.") + __FILE__ + ":"
        # + line, err), src/errors.cc line 59 appending " (Cu failure: " + errStr + ")"; v0.7.0 retries without the
        # fabric handle on CUDA_ERROR_NOT_PERMITTED. The driver API's reading of NOT_PERMITTED for fabric handles
        # (no IMEX channel accessible) as microsoft/mscclpp#467's maintainer quotes it.
        (r"Call to cuMemCreate\([^)\n]{0,200}\) failed\.[^\n]{0,400}?\(Cu failure: operation not permitted\)",),
        89,
    ),
    Cause(
        "slurm-pmix-library-mismatch",
        "Slurm's PMIx plugin loaded another libpmix than the one it was built with ({what}): a libpmix.so on the "
        "job's LD_LIBRARY_PATH (a module, a conda environment, an MPI install) shadows Slurm's, so srun cannot start "
        "the step with PMIx",
        "keep that library off srun's path: load the module or environment inside the task (after srun), not "
        "before it, or drop its lib directory from LD_LIBRARY_PATH in the job script; `srun --mpi=list` shows "
        "the PMIx versions Slurm has (pmix_v4, pmix_v5); a torchrun job needs no PMI: `srun --mpi=none`",
        # Slurm 25.11.7 src/plugins/mpi/pmix/mpi_pmix.c line 152: PMIXP_ERROR("pmi/pmix: incorrect PMIx library
        # version loaded %d was loaded, required %d version", ...) after dlopen("libpmix.so.2") without a full
        # path (the plugin then fails: MPI: Cannot create context for mpi/pmix).
        (r"(?P<what>incorrect PMIx library version loaded \d+ was loaded, required \d+ version)",
         # What glibc's loader says with LD_DEBUG=libs,files (elf/dl-load.c, glibc 2.17 to 2.39: "\nfile=%s [%lu];
         # dynamically loaded by %s [%lu]\n" (2.28 line 1970), "  trying file=%s\n" (line 1822), "file=%s [%lu];
         # generating link map\n" (line 945)): the plugin's dlopen of libpmix, the paths tried, the one mapped.
         # The last path tried before the link map is the library loaded; one in an MPI or conda install is not
         # Slurm's (open-mpi/ompi#7979: Open MPI 4.0.2's bundled PMIx 3 loaded by mpi_pmix_v1.so).
         r"file=libpmix\.so[.\d]{0,12} \[\d+\];  dynamically loaded by (?P<what>\S{0,300}/mpi_pmix\w{0,20}\.so)",
         r"trying file=(?P<tried>\S{0,300}/libpmix\.so[.\d]{0,12})\s*$",
         r"file=(?P<mapped>libpmix\.so[.\d]{0,12}) \[\d+\];  generating link map",
         # elf/dl-cache.c (2.28 line 193) " search cache=%s\n": the search went on past the paths tried.
         r" search (?P<cache>cache)=/\S"),
        94,
        hits_show=lambda found: _foreign_libpmix_loaded(found),
    ),
    Cause(
        "net-device-count-differs",
        "the nodes offer NCCL different numbers of network devices (min {low}, max {high}): a network card down "
        "or missing on some node, or NCCL_IB_HCA / NCCL_SOCKET_IFNAME choosing different sets on different nodes",
        "`ibv_devinfo` on each node (every port PORT_ACTIVE) or `python -m app.check` on the allocation names the "
        "node that lacks one: resubmit without it (`--exclude=NODE`); set NCCL_IB_HCA the same on every node; "
        "`NCCL_IGNORE_NET_MISMATCH=1` lets NCCL go on with the uneven nodes",
        # NCCL v2.30.7-1 src/init.cc line 1339: WARN("Detected mixed local Net device counts across ranks (min %d,
        # max %d). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.", ...), then ncclSystemError.
        (r"Detected mixed local Net device counts across ranks \(min (?P<low>\d+), max (?P<high>\d+)\)\. Set",),
        88,
    ),
    Cause(
        "ranks-disagree-on-size",
        "the processes that met at NCCL's bootstrap root disagree on the job's size: processes of two launches met "
        "at one root address (two jobs or an earlier run's leftover processes on the same rendezvous port), or "
        "the ranks were started with different world sizes",
        "give each run its own rendezvous port and make sure no step of an earlier run is still going (`squeue -s "
        "-j JOBID` lists the steps); this project's job scripts pick a free port on the head node at start; start "
        "every node with the same `--nnodes` and `--nproc_per_node`",
        # NCCL src/bootstrap.cc: WARN("Bootstrap Root : mismatch in rank count from procs %d : %d", ...) in
        # v2.18.1-1 to v2.22, WARN("Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs
        # %d, iroot %d vs %d", ...) from v2.23.4-1 (", offset %d vs %d" added in v2.29).
        (r"Bootstrap Root : mismatch in (?:rank count|info) from procs",),
        87,
    ),
    Cause(
        "env-rendezvous-unset",
        "torch.distributed found no {var} in the environment: the script was started with python (or `srun "
        "python`) instead of a launcher that sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT",
        "start it with torchrun (`srun --ntasks-per-node=1 torchrun --nnodes=NNODES --nproc_per_node=GPUS "
        "--rdzv_backend=c10d --rdzv_endpoint=HEAD:PORT script.py`), as this project's job scripts do; with one "
        "srun task per GPU instead, set the variables from SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID and the "
        "first node of SLURM_JOB_NODELIST before init_process_group",
        # torch v2.13.0 torch/distributed/rendezvous.py line 249 (_env_rendezvous_handler): _error(f"environment
        # variable {var} expected, but not set"), raised as ValueError("Error initializing torch.distributed using
        # env:// rendezvous: ...").
        (r"env:// rendezvous: environment variable (?P<var>\w{1,40}) expected, but not set",),
        91,
    ),
    Cause(
        "deepspeed-hostfile-bad",
        "the DeepSpeed launcher could not read its hostfile ({what}): a node listed twice, a line not of the form "
        "`NODE slots=N`, or an empty file",
        "write one `NODE slots=GPUS` line per node, each node once: `scontrol show hostnames "
        "\"$SLURM_JOB_NODELIST\" | sed 's/$/ slots=4/' > hostfile` (PBS: `sort -u $PBS_NODEFILE`), or start one "
        "launcher per node with srun and torchrun (this project's job scripts do)",
        # DeepSpeed v0.10.3 to v0.19.5 deepspeed/launcher/runner.py _parse_hostfile: ValueError(f"Hostfile contains
        # multiple entries for {host}, unable to proceed with launching"), (f"Hostfile contains a bad entry:
        # {line}, unable to proceed with launching"), ("Hostfile is empty or not formatted correctly, unable to
        # proceed with launching.").
        (r"(?P<what>Hostfile contains (?:multiple entries for|a bad entry:)|Hostfile is empty or not formatted "
         r"correctly)[^\n]{0,300}?, unable to proceed with launching",),
        92,
    ),
    Cause(
        "cxi-match-entries-exhausted",
        "the Slingshot NIC ran out of its hardware message-matching entries (many ranks or many small messages) "
        "and libfabric's CXI provider, matching in hardware only, aborted the process",
        "let the provider fall back to matching in software: "
        f"`{policy.export_line('slingshot', 'FI_CXI_RX_MATCH_MODE')}` (this project's policy sets it on "
        "Slingshot unless the job set it; `hybrid` keeps hardware matching until the entries run out)",
        # libfabric v1.22.0 prov/cxi/src/cxip_msg_hpc.c lines 2014 and 2197: RXC_FATAL(rxc,
        # FC_SW_ONLOAD_MSG_FATAL), "LE resources not recovered during flow control. FI_CXI_RX_MATCH_MODE=[hybrid|
        # software] is required" behind "RXC (%#x:%u) PtlTE %u:[Fatal] " (prov/cxi/include/cxip.h).
        (r"LE resources not recovered during flow control",),
        90,
    ),
    Cause(
        "ib-device-not-accessible",
        "NCCL found the InfiniBand card {device} but could not open it: the process cannot use /dev/infiniband (a "
        "container started without it, or device files the user may not open), so NCCL falls back to TCP or "
        "fails",
        "`ls -l /dev/infiniband` inside the job (in the container) must list uverbs* readable and writable by "
        "the user: Apptainer shares the host's /dev unless `--contain` (then add `--bind /dev/infiniband`), "
        "Docker needs `--device=/dev/infiniband`; on the host the admins check the uverbs devices' permissions",
        # NCCL v2.18.1-1 to v2.30.7-1 (src/transport/net_ib.cc, net_ib/init.cc): WARN("NET/IB : Unable to open
        # device %s", devices[d]->name) when ibv_open_device fails.
        (r"NET/IB : Unable to open device (?P<device>\S{1,60})",),
        87,
    ),
    Cause(
        "apptainer-nv-no-host-driver",
        "Apptainer's --nv found no NVIDIA driver {what} on this node to bind into the container: a node without "
        "the GPU driver (a CPU or login node), or driver libraries the node's ldconfig cache does not list",
        "run on GPU nodes (`--gres=gpu:4`, PBS `ngpus=4`) where `nvidia-smi` works; if it works there, the admins "
        "check that `ldconfig -p | grep libcuda` lists the driver (Apptainer finds the libraries of "
        "nvliblist.conf through it)",
        # Apptainer v1.1.9 to v1.5.3 (cmd/internal/cli/actions_linux.go, later internal/pkg/runtime/launch/
        # launcher_linux.go addGPUBinds): sylog.Warningf("Could not find any %s files on this host!", gpuPlatform)
        # and ("Could not find any %s libraries on this host!", ...), gpuPlatform "nv" for --nv. A warning, so a
        # cause only in a job that failed.
        (r"Could not find any nv (?P<what>files|libraries) on this host!",),
        92,
        applies=lambda log: log.has(_FAILED),
    ),
    Cause(
        "apptainer-no-loop-device",
        "Apptainer could not mount the image: it found no free loop device on the node (all in use by other "
        "containers, or more than apptainer.conf's `max loop devices`)",
        "the admins raise `max loop devices` in apptainer.conf (and the kernel's loop devices: `max_loop`); "
        "meanwhile run the image without loop devices, through FUSE in a user namespace (`apptainer exec "
        "--userns`, which mounts the SIF with squashfuse), or resubmit to other nodes (`--exclude=NODE`)",
        # Apptainer v1.1.9 to v1.5.3 pkg/util/loop/loop.go: fmt.Errorf("no loop devices available"), wrapped by
        # internal/pkg/runtime/engine/apptainer/container_linux.go as fmt.Errorf("failed to find loop device: %s",
        # err) in "FATAL: container creation failed: ...".
        (r"failed to find loop device: [^\n]{0,200}?no loop devices available",),
        90,
    ),
    Cause(
        "apptainer-loop-device-unattached",
        "Apptainer could not attach the image to a loop device ('{what}'): a /dev/loopN node that has no loop device "
        "behind it in the kernel (ENXIO, 'no such device or address'); Apptainer before 1.1.8 with `shared loop "
        "devices = yes` returned that as an error while looking for a loop device to share, instead of skipping it",
        "`apptainer --version`: before 1.1.8 the admins upgrade it, or set `shared loop devices = no` in "
        "apptainer.conf; on a later Apptainer `ls -l /dev/loop*` and `losetup -a` on the node show loop nodes "
        "without devices (a `max_loop` or devtmpfs problem for the admins); meanwhile run the image through FUSE "
        "(`apptainer exec --userns`), or resubmit without the node (`--exclude=NODE`)",
        # Apptainer v1.1.7 pkg/util/loop/loop.go line 138 fmt.Errorf("failed to attach loop device: %s", err) (v1.4.5
        # line 84) after openLoopDev() (line 279 "could not open %s: %w"), internal/pkg/runtime/engine/apptainer/rpc/
        # server/server_linux.go (v1.4.5 line 310) fmt.Errorf("could not attach image file to loop device: %v", err),
        # then container_linux.go "failed to find loop device: %s"; v1.1.8 (commit fc1d99cf7) opens the node instead
        # of stat() and treats ENXIO as a device that does not exist.
        (r"(?P<what>(?:could not attach image file to loop device|failed to attach loop device|failed to find loop "
         r"device)[^\n]{0,300}?no such device or address)",),
        90,
    ),
    Cause(
        "apptainer-overlay-in-use",
        "Apptainer could not open the writable overlay or image {path}: another process holds it (Apptainer locks a "
        "writable ext3 overlay for one writer at a time), most often another container still running with the same "
        "`--overlay` (an interactive `apptainer shell` left open, an earlier job on the node, a second task of this "
        "job)",
        "find and end the other container: `ps aux | grep -e apptainer -e singularity` (or `lsof PATH`) on the node "
        "where it runs, `squeue -u $USER` for a job of yours using it; give each task or job its own overlay, or "
        "mount a shared one read-only (`--overlay PATH:ro`), which many may do at once",
        # Apptainer v1.4.5 pkg/image/image.go line 343 fmt.Errorf("can't open %s for writing, currently in use by "
        # "another process", i.Path) and line 345 "can't open %s for reading, currently in use for writing by another
        # process" when the byte-range lock on the image (or its overlay partition) is held
        # (lock.ErrByteRangeAcquired).
        (r"can't open (?P<path>\S{1,300}) for (?:writing, currently in use|reading, currently in use for writing) "
         r"by another process",),
        90,
    ),
    Cause(
        "slurm-workdir-missing",
        "the task could not enter its working directory {path} on the node ({why}): a directory that exists on "
        "the login node only (a local disk, /tmp), or a shared filesystem not mounted there; it ran from /tmp, or "
        "not at all",
        "submit from a directory on a filesystem every node mounts (project or scratch, not /tmp or a local "
        "disk), or give it: `sbatch --chdir=/path/on/shared/fs`; `srun -N NNODES ls -d DIR` checks each node",
        # Slurm 25.11.7 src/slurmd/slurmstepd/mgr.c lines 1877, 1883 and 2182: error("couldn't chdir to `%s': %m")
        # for a container step, error("couldn't chdir to `%s': %m: going to /tmp instead", step->cwd) otherwise.
        (r"couldn't chdir to `(?P<path>[^'\n]{1,400})': (?P<why>[^:\n]{1,80})",),
        84,
        applies=lambda log: log.has(_FAILED),
    ),
    Cause(
        "mpirun-not-enough-slots",
        "mpirun was asked for more processes than the allocation has slots: under Slurm or PBS a slot is a task "
        "the job asked for, so `-np` (or processes per node) exceeds the tasks of the request",
        "ask the scheduler for one task per process (`--ntasks-per-node=GPUS`, PBS `mpiprocs=GPUS`) and give "
        "mpirun no more than that (`-np` = nodes x GPUs, or `--map-by ppr:GPUS:node`); with one torchrun per node "
        "`mpirun -np NNODES --map-by ppr:1:node torchrun ...`",
        # Open MPI v4.1.8 orte/mca/rmaps/base/help-orte-rmaps-base.txt [orte-rmaps-base:alloc-error] "There are not
        # enough slots available in the system to satisfy the %d\nslots that were requested by the application:";
        # orte/mca/rmaps/round_robin/help-orte-rmaps-rr.txt "There are not enough slots on the nodes in your
        # allocation to satisfy your request to launch on a %d process-per-node basis".
        # orte/mca/rmaps/ppr/help-orte-rmaps-ppr.txt line 53 [ppr-too-many-procs] "Your job has requested more
        # processes than the ppr for\nthis topology can support:" (v4.1.6; --map-by ppr:N:node with -np above it).
        # The help text's second line alone (its first cut off, or wrapped differently) is the same message.
        (r"There are not enough slots available in the system to satisfy the \d+",
         r"^\s{0,8}slots that were requested by the application:$",
         r"There are not enough slots on the nodes in your allocation to satisfy your request",
         r"Your job has requested more processes than the ppr for"),
        90,
    ),
    Cause(
        "enroot-image-file-bad",
        "enroot (pyxis' container start) could not use the image file {image}: it is not there on the node (a "
        "relative path, or a filesystem the node does not mount), or it is not a squashfs image (a .sif or a tar)",
        "give `--container-image` the absolute path of a .sqsh file on a filesystem every node mounts, made by "
        "`enroot import docker://...` (a registry image is written `nvcr.io#nvidia/pytorch:25.01-py3`); an "
        "Apptainer .sif runs through this project's `IMAGE=app.sif` instead",
        # enroot v3.4.1 to v4.1.2 src/runtime.sh (runtime::create): common::err "No such file or directory:
        # ${image}" and common::err "Invalid image format: ${image}" (after `unsquashfs -s` refuses the file).
        (r"No such file or directory: (?P<image>/\S{0,400}\.(?:sqsh|squashfs|sif))\b",
         r"Invalid image format: (?P<image>\S{1,400})"),
        88,
    ),

    # --- container runtimes refusing their configuration --------------------------------------------------------
    Cause(
        "user-unknown-on-node",
        "the node's user database has no entry for the job's user (uid {uid}): `id`/`whoami` could not name it, "
        "so what is built from the user name there (enroot's and a site's per-user directories, $USER, the home "
        "directory) fails; the node's passwd, LDAP or SSSD is not in step with the login node's",
        "the admins: make the node resolve the user (`getent passwd UID` on the node and on the login node should "
        "agree; restart sssd/nslcd or resync the node's passwd), then resume the node; meanwhile resubmit with "
        "`--exclude=NODE`; a later `Permission denied` on a directory named by the uid is this, not the directory",
        # coreutils v9.4 src/id.c line 340 error (0, 0, _("cannot find name for user ID %s"), uidtostr (uid)) when
        # getpwuid() returns nothing; src/whoami.c line 84 the same words (%lu), then exits. A container run as a uid
        # its image does not list prints it too and runs on (a prompt's `id -un`): read in a failed job, or a
        # container that did not start (a hook or enroot's start script asking the name).
        (r"\b(?:id|whoami): cannot find name for user ID (?P<uid>\d{1,10})\b",),
        90,
        applies=lambda log: log.has(_FAILED) or log.has(_ENROOT_START_FAILED),
    ),
    Cause(
        "enroot-path-not-writable",
        "enroot (pyxis' container start) cannot create its directory {path}: ENROOT_RUNTIME_PATH, ENROOT_DATA_PATH "
        "or ENROOT_CACHE_PATH in enroot.conf points where the job's user may not write (the runtime path's default "
        "is under XDG_RUNTIME_DIR, /run/user/UID, which a job takes from the login session's environment but "
        "which only a login session creates on a node)",
        "the admins point those paths at a directory each user may create (enroot's defaults are per user: "
        "`ENROOT_RUNTIME_PATH ${XDG_RUNTIME_DIR}/enroot`, `ENROOT_DATA_PATH ${XDG_DATA_HOME}/enroot`), or create it "
        "with the user's ownership in the prolog; for /run/user/UID, set `XDG_RUNTIME_DIR` in the job to a "
        "directory it may create (`export XDG_RUNTIME_DIR=$(mktemp -d)`, a fresh private directory) or have the "
        "prolog create it; "
        "`enroot start` by hand on the node shows the same error",
        # enroot v4.1.2 enroot.in line 106: (umask 077 && mkdir -p "${ENROOT_CACHE_PATH}" "${ENROOT_DATA_PATH}"
        # "${ENROOT_RUNTIME_PATH}"), whose failure coreutils' mkdir prints as "mkdir: cannot create directory
        # %s: Permission denied"; pyxis relays enroot's output with its "pyxis: " prefix. mkdir quotes the name
        # with gnulib's quotearg: '...' in the C locale, \u2018...\u2019 in a UTF-8 one. enroot v4.1.2 enroot.in
        # line 76 config::export XDG_RUNTIME_DIR "/run", line 80 ENROOT_RUNTIME_PATH "${XDG_RUNTIME_DIR}/enroot":
        # `mkdir -p` of /run/user/UID/enroot names the first level it cannot create, /run/user/UID.
        (r"pyxis:[^\n]{0,80}mkdir: cannot create directory ['\u2018](?P<path>[^'\u2019]{1,400})['\u2019]: "
         r"Permission denied",
         r"mkdir: cannot create directory ['\u2018](?P<path>[^'\u2019]{0,400}/enroot\b[^'\u2019]{0,400})['\u2019]: "
         r"Permission denied",
         r"mkdir: cannot create directory ['\u2018](?P<path>/run/user/\d{1,10})['\u2019]: Permission denied"),
        88,
    ),
    Cause(
        "bind-spec-malformed",
        "Apptainer refused a bind of {source}: its destination is not an absolute path (a `--bind`/`BINDS` entry "
        "whose fields are out of order, such as `SRC:rw` read as the destination `rw`, or a relative destination)",
        "write each bind as `SRC[:DEST[:OPTS]]` with absolute paths (`/scratch/u:/scratch/u:rw`, or `/scratch/u` "
        "alone), separate binds with commas, and check APPTAINER_BINDPATH too",
        # Apptainer v1.4.5 internal/pkg/runtime/engine/apptainer/container_linux.go line 1782: fmt.Errorf("unable to
        # add %s to mount list: %s", child, err), err from internal/pkg/util/fs/mount/mount_linux.go line 406
        # "destination must be an absolute path".
        (r"unable to add (?P<source>\S{1,400}) to mount list: destination must be an absolute path",),
        95,
    ),

    # --- the software's builds and libraries ---------------------------------------------------------------------
    Cause(
        "python-dev-headers-missing",
        "a C/C++ extension (DeepSpeed's ops, a torch extension, a pip package built from source) could not compile: "
        "Python's development headers (Python.h) are not installed for the Python that builds it",
        "install the headers of that Python (`apt install python3.X-dev`, `dnf install python3-devel`; a conda or "
        "module Python has them), or use an image or wheel that has the extension prebuilt",
        # The compiler's own words (GCC 12.2, observed: "<file>:1:10: fatal error: Python.h: No such file or
        # directory"; clang: "fatal error: 'Python.h' file not found").
        (r"fatal error: '?Python\.h'?: No such file or directory", r"fatal error: 'Python\.h' file not found"),
        86,
    ),
    Cause(
        "libcuda-stub-loaded",
        "the process loaded the CUDA toolkit's stub libcuda (lib64/stubs, for linking only) instead of the driver's: "
        "the stubs directory is on LD_LIBRARY_PATH (or in ld.so.conf) ahead of the driver's libcuda",
        "remove `.../lib64/stubs` from LD_LIBRARY_PATH (and from /etc/ld.so.conf.d) where programs run; "
        "`ldconfig -p | grep libcuda` and `ldd $(which python)`-style checks show which libcuda.so.1 is found",
        # CUDA's string for cudaErrorStubLibrary (34), CUDA_ERROR_STUB_LIBRARY; and the stub's own path in the
        # loader's or Python's error for it.
        (r"CUDA driver is a stub library", r"cudaErrorStubLibrary", r"CUDA_ERROR_STUB_LIBRARY",
         r"/stubs/libcuda\.so\b"),
        90,
    ),
    Cause(
        "dmabuf-unsupported",
        "NCCL registered GPU memory with the NIC through DMA-BUF and the InfiniBand driver refused it: the kernel or "
        "the NIC's driver (inbox or MLNX_OFED) lacks DMA-BUF for GPU memory",
        "set `NCCL_DMABUF_ENABLE=0` (NCCL then uses nvidia-peermem for GPUDirect RDMA: `lsmod | grep nvidia_peermem`), "
        "or run a kernel and NIC driver with DMA-BUF (Linux 5.12 or later, with NVIDIA's open kernel modules)",
        # NCCL v2.21.5-1 src/misc/ibvwrap.cc line 34 IBV_PTR_CHECK_ERRNO: WARN("Call to " name " failed with error
        # %s", strerror(errno)) with name "ibv_reg_dmabuf_mr" (line 174); its probe in src/transport/net_ib.cc
        # (line 590) takes EOPNOTSUPP and EPROTONOSUPPORT as "no DMA-BUF", so these errnos are that.
        (r"Call to ibv_reg_dmabuf_mr failed with error (?:Operation not supported|Protocol not supported)",),
        86,
    ),
    Cause(
        "gloo-loopback-address",
        "torch's Gloo backend could not resolve this host's name to an address and bound to the loopback address "
        "(127.0.0.1), which the other nodes cannot reach, so Gloo's connections failed",
        "set `GLOO_SOCKET_IFNAME` to the interface the nodes share (the one `ip -br addr` shows with the node's "
        "address, e.g. `GLOO_SOCKET_IFNAME=ib0`), or make the host name resolve to that address (/etc/hosts, DNS)",
        # torch torch/csrc/distributed/c10d/ProcessGroupGloo.cpp createDefaultDevice(): TORCH_WARN_ONCE("Unable to
        # resolve hostname to a (local) address. ", "Using the loopback address as fallback. ", "Manually set the
        # network interface to bind to with GLOO_SOCKET_IFNAME."). One-node runs print it and work: a cause only
        # where Gloo's connections then failed ("Gloo connectFullMesh failed").
        (r"Unable to resolve hostname to a \(local\) address",),
        80,
        applies=lambda log: log.has(_GLOO_MESH_FAILED),
    ),

    # --- Slurm's node-side failures: the prolog, slurmd's configuration, a node below its configured memory --------
    Cause(
        "slurm-controller-unreachable",
        "a Slurm command got no answer from the controller ({why}): slurmctld is down or overloaded, or the "
        "network between the node and the controller is failing; the job was not submitted (or not allocated)",
        "retry after a while; `scontrol ping` says whether the controller answers and `sdiag` how busy it is; "
        "if it persists, tell the admins (the slurmctld log, the network to the controller)",
        # Slurm 25.11.7 src/common/slurm_errno.c lines 149 to 161 "Unable to contact slurm controller (connect
        # failure)" (send, receive, shutdown) and line 1069 SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT "Socket timed out on
        # send/recv operation", as the client commands print them after their name. srun's timeouts are its own
        # messages to the nodes' slurmd (a task launch, "slurm_receive_msgs: [[node]:6818]"), not the controller's:
        # only its "Unable to contact slurm controller" counts.
        (r"\b(?:sbatch|salloc|squeue|sinfo|scontrol|sacct|scancel): (?:error: )?[^\n]{0,200}?"
         r"(?P<why>Socket timed out on send/recv operation|Unable to contact slurm controller \(\w+ failure\))",
         r"\bsrun: (?:error: )?[^\n]{0,200}?(?P<why>Unable to contact slurm controller \(\w+ failure\))"),
        90,
    ),
    Cause(
        "slurm-message-timed-out",
        "a Slurm message got no usable answer ('{why}'): the daemon at the other end (a node's slurmd for srun's "
        "launch and signals, slurmctld for a command) did not answer within MessageTimeout: busy, not yet up (a node "
        "just resumed from drain or rebooted, whose slurmd has not started), or out of reach; Slurm before 23.11.9 "
        "reported many such timeouts as 'Unexpected message received'",
        "tell which end from the line: an address with port 6818 (`[node]:6818`) is that node's slurmd (`scontrol "
        "show node NODE` for its state, `sinfo -R` for why it was drained; a node just resumed answers once its "
        "slurmd is up: wait a minute or two and resubmit, or `--exclude=NODE`), a command's own error is the "
        "controller (`scontrol ping`, `sdiag` for its load); if it persists tell the admins (the daemon's log, the "
        "network, MessageTimeout in slurm.conf); 'Unexpected message received' on 23.11.9 or later is a reply from "
        "a daemon of another version (`scontrol version` against the daemon's)",
        # Slurm 25.11.7 src/common/slurm_errno.c line 1069 SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT "Socket timed out on
        # send/recv operation" and line 79 SLURM_UNEXPECTED_MSG_ERROR "Unexpected message received", as slurm_strerror
        # prints them after the sender's own words (src/common/slurm_protocol_api.c line 1291 slurm_receive_msgs
        # error("%s: [%s] failed: %s", ...)); 23.11.9's change log: "Fix many commands possibly reporting an
        # "Unexpected Message Received" when in reality the connection timed out". A command's line that says the
        # controller did not answer is "slurm-controller-unreachable"; a task launch that failed on a node,
        # "slurm-task-launch-failed".
        (r"(?P<why>Socket timed out on send/recv operation|\bUnexpected [Mm]essage [Rr]eceived\b)",),
        55,
    ),
    Cause(
        "slurm-protocol-version-unsupported",
        "a Slurm component got or had to send a message of a protocol version it does not speak ('{why}'): Slurm "
        "talks to its own release and the two (three from 24.11) before it, so one side is too old or newer than the "
        "other: a login node's commands, a node's slurmd, slurmdbd, or a job pending since before an upgrade that "
        "skipped releases (Slurm before 23.11.5 then killed jobs submitted under 21.08 or older)",
        "compare the versions: `sinfo -V` or `srun --version` where the command ran, `scontrol show config | grep "
        "SLURM_VERSION` for the controller, `scontrol show node NODE | grep Version` for each slurmd, `slurmdbd -V`; "
        "the admins upgrade in order (slurmdbd, slurmctld, then slurmd, then the login nodes' commands) and no more "
        "than the supported releases at once; a pending job refused after such an upgrade: cancel it and resubmit",
        # Slurm 25.11.7 src/common/slurm_protocol_pack.c lines 14116 (pack_msg) and 14636 (unpack_msg) error("%s:
        # Invalid message version=%hu, type:%s", ...) for a message below SLURM_MIN_PROTOCOL_VERSION, line 220
        # unpack_header error("%s: protocol_version %hu not supported", ...) returning SLURM_PROTOCOL_VERSION_ERROR,
        # slurm_errno.c line 99 "Incompatible versions of client and server code"; src/common/slurmdbd_pack.c line
        # 1642 "slurmdbd: Invalid message version=%hu, type:%s".
        (r"(?P<why>\bInvalid message version\b[^\n]{0,100})",
         r"(?P<why>\bprotocol_version \d{1,6} not supported)",
         r"(?P<why>Incompatible versions of client and server code)"),
        85,
    ),
    Cause(
        "slurm-plugin-load-failed",
        "a Slurm program could not load one of its plugins ('{what}'): a plugin built for another Slurm release "
        "(Slurm checks its plugin_version: the release's major and minor for a SPANK plugin such as pyxis, the whole "
        "version for its own), one that needs a symbol or library this node's Slurm or system lacks (an 'undefined "
        "symbol' is most often the same mismatch, or a Slurm build missing a link), or a plugin left from an "
        "earlier install in PluginDir",
        "the line names the file: `ldd -r FILE` on the node lists its missing libraries and undefined symbols; an "
        "'Incompatible' version: rebuild that plugin against this release's headers (slurm/spank.h from the "
        "deployed Slurm's slurm-devel, as pyxis' instructions ask) or remove the stale file from PluginDir (`scontrol "
        "show config | grep -i PluginDir`); an undefined Slurm symbol in a plugin of Slurm's own: the admins "
        "rebuild or upgrade Slurm (25.11.3 fixed gpu/nrt's `gpu_common_underscorify_tolower`), a missing library: "
        "install it on every node",
        # Slurm 25.11.7 src/common/plugin.c line 158 error("plugin_load_from_file: dlopen(%s): %s", fq_path,
        # dlerror()) for a required plugin (verbose() otherwise), line 110 info("%s: Incompatible Slurm plugin %s
        # version (%d.%02d.%d)", ...) returning ESLURM_PLUGIN_BAD_VERSION, slurm_errno.c line 1276 "Incompatible
        # plugin version" (src/common/plugrack.c line 349 error("%s: %s", e->fq_path, slurm_strerror(err)), spank.c
        # line 342 "spank: %s: %s"). A SPANK stack that then failed is "slurm-spank-plugin-failed"; srun in a batch
        # job's environment that cannot load the switch plugin, "sbatch-environment-srun-switch-plugin-unloadable".
        (r"(?P<what>plugin_load_from_file: dlopen\([^)\s]{1,300}\): [^\n]{1,300})",
         r"(?P<what>Incompatible Slurm plugin \S{1,300} version \([\d.]{1,20}\))",
         r"(?P<what>(?:\S{1,300}\.so: )?Incompatible plugin version)"),
        81,
    ),
    Cause(
        "slurm-step-unkillable",
        "processes of the job outlived Slurm's SIGKILL for longer than UnkillableStepTimeout, so slurmstepd gave up "
        "and drained the node ('Kill task failed'): a process in uninterruptible sleep (I/O to a hung NFS or Lustre "
        "server, a stuck GPU driver call) cannot die, or the step still held processes when its time ran out (a "
        "`tmux` or `screen` server, a daemon started from the job); Slurm before 25.05.1 could also drain a node so "
        "by a race, with no process left",
        "end your own long-lived processes before the job does (`tmux kill-server`, `screen -X quit`, `kill` the "
        "background jobs at the end of the script), and run tmux or screen on the login node around `srun`/`salloc`, "
        "not inside the job; the admins: `ps -eo pid,stat,wchan:30,cmd | awk '$2 ~ /D/'` on the node names the stuck "
        "processes and what they wait on (a file system, the GPU driver: `dmesg` for Xid), raise "
        "UnkillableStepTimeout if the node only needs longer to finish its I/O (at least five times MessageTimeout), "
        "then `scontrol update nodename=NODE state=resume`; resubmit with `--exclude=NODE` meanwhile",
        # Slurm 25.11.7 src/slurmd/slurmstepd/step_terminate_monitor.c line 147 error("*** %s STEPD TERMINATED ON %s
        # AT %s DUE TO JOB NOT ENDING WITH SIGNALS ***", ...) when UnkillableStepTimeout passed after SIGKILL, then
        # line 156 the drain reason "%s (JobId=%u %s)" with slurm_strerror(ESLURMD_KILL_TASK_FAILED), slurm_errno.c
        # line 970 "Kill task failed" (older releases drain with the words alone); doc/man/man5/slurm.conf.5
        # UnkillableStepTimeout (default 60 s or five times MessageTimeout).
        (r"(?:JOB|STEP|EXTERN STEP FOR|INTERACTIVE STEP FOR) \S{1,40} STEPD TERMINATED ON \S{1,200} AT \S{1,40} "
         r"DUE TO JOB NOT ENDING WITH SIGNALS",
         r"\bKill task failed\b"),
        84,
    ),
    Cause(
        "slurm-conf-not-found",
        "the Slurm command found no configuration on this host: no slurm.conf where SLURM_CONF or the default "
        "path (/etc/slurm/slurm.conf) points, no configless copy (/run/slurm/conf), and none fetched from the "
        "controller (no SLURM_CONF_SERVER, and the DNS SRV record _slurmctld._tcp did not resolve)",
        "on the host that printed it: `ls -l $SLURM_CONF /etc/slurm/slurm.conf /run/slurm/conf/slurm.conf`; point "
        "SLURM_CONF at the cluster's slurm.conf (e.g. `export SLURM_CONF=/opt/slurm/etc/slurm.conf`), or in a "
        "configless cluster run slurmd there with `--conf-server CONTROLLER` or set `SLURM_CONF_SERVER=CONTROLLER`; "
        "the admins: restore the file (a node's restarted slurmd, a container image without it), or publish the "
        "SRV record; `scontrol ping` works again once it reads a configuration",
        # Slurm 25.11.7 src/common/read_config.c _establish_config_source(): SLURM_CONF or the default file if it
        # exists, then /run/slurm/conf/slurm.conf (configless slurmd's cache), then fetch_config() from
        # SLURM_CONF_SERVER or DNS SRV: line 3098 error("%s: failed to fetch config", __func__), then line 3227
        # fatal("Could not establish a configuration source"); src/common/fetch_config.c line 285 error("%s: DNS SRV
        # lookup failed", __func__) after src/common/slurm_resolv.c line 77 "%s: res_nsearch error: %s".
        (r"\bfatal: Could not establish a configuration source\b",
         r"\b_establish_config_source: failed to fetch config\b", r"\bfetch_config: DNS SRV lookup failed\b"),
        90,
    ),
    Cause(
        "slurm-node-address-unknown",
        "Slurm could not find the address of node {node}: this host's slurm.conf does not list it (or its "
        "NodeAddr does not resolve here), so messages to it fail; the host's slurm.conf is older than the "
        "controller's (nodes added or renamed since, a queue resized) or name resolution lacks the node",
        "make this host's slurm.conf the controller's (copy it, or `scontrol reconfigure` so the daemons reread "
        "theirs; a cloud cluster's update that resized a queue must reach every node and login host), and check "
        "that the name resolves here (`getent hosts NODE`, `scontrol show node NODE | grep NodeAddr`); "
        "`--exclude=NODE` runs the job meanwhile",
        # Slurm 25.11.7 src/common/forward.c lines 148 and 406 error("%s: can't find address for host %s, check
        # slurm.conf", __func__, name) when slurm_conf_get_addr() fails for a node of the forwarding tree, src/api/
        # signal.c lines 111 and 161 the same words; 17.11 to 23.02 "forward_thread: can't find address for host
        # %s, check slurm.conf" and "fwd_tree_thread: ..." (23.02.7 lines 115 and 368). Read without the word
        # "host" too (a vendor's page quotes it so).
        (r"can't find address for (?:host )?(?P<node>[^\s,]{1,200}), check slurm\.conf",),
        88,
    ),
    Cause(
        "slurm-prolog-failure",
        "the prolog (the admins' script Slurm runs on each node before the job) failed on {node}: Slurm drained "
        "the node and revoked or requeued the job; nothing of the job ran there",
        "resubmit (the drained node is left out; `sinfo -R` shows its reason) and send the admins the node and the "
        "job id: the prolog's error is in that node's slurmd log",
        # Slurm 21.08.8 src/slurmd/slurmd/req.c line 2731 and 25.11.7 line 2434: xstrfmtcat(buf, "Prolog failure on
        # node %s", conf->node_name); slurm_notify_job(job_id, buf) (salloc and srun print it).
        # A step's launch whose prolog failed: slurmd answers ESLURMD_PROLOG_FAILED (25.11.7 req.c line 1419),
        # src/common/slurm_errno.c line 1014 "Job prolog failed", printed by srun with src/api/step_launch.c line
        # 1590 error("Task launch for %ps failed on node %s: %m", ...).
        (r"Prolog failure on node (?P<node>\S{1,200})",
         r"Task launch for \S{1,100} failed on node (?P<node>[\w.-]{1,200}): Job prolog failed"),
        92,
    ),
    Cause(
        "gres-conf-duplicate-gpus",
        "slurmd stopped: gres.conf describes the same {gres} devices twice (two lines for one device, or "
        "`AutoDetect=nvml` and explicit `File=` lines together), so the node never offers its GPUs",
        "keep one description per device in gres.conf (AutoDetect alone, or File= lines alone, each device once) "
        "and restart slurmd; `slurmd -G` prints what the node detects",
        # Slurm 21.08.8 src/common/gres.c line 1545 and 25.11.7 src/interfaces/gres.c line 1940:
        # fatal("gres.conf duplicate records for %s", gres_ctx->gres_name).
        (r"gres\.conf duplicate records for (?P<gres>\S{1,100})",),
        92,
    ),
    Cause(
        "slurm-node-memory-below-config",
        "Slurm refused {node}'s registration: the node has less memory than its RealMemory in slurm.conf (a DIMM "
        "lost, memory the kernel or a driver reserved since, or RealMemory set too high), so it drains the node",
        "set RealMemory at or below what `slurmd -C` prints on the node (leave headroom), or have the hardware "
        "checked if memory went missing; then `scontrol update nodename=NODE state=resume`",
        # Slurm 20.02.7 src/slurmctld/node_mgr.c line 2474 error("Node %s has low real_memory size (%"PRIu64" <
        # %"PRIu64")", ...) and 20.11.9 line 2585 (debug); 21.08.8 line 2822 to 25.11.7 line 3440 debug("Node %s
        # has low real_memory size (%"PRIu64" / %"PRIu64") < %.2f%%", ...) with MemSpecLimit's share.
        (r"Node (?P<node>\S{1,200}) has low real_memory size \(\d+ [</] \d+\)",),
        90,
    ),
    Cause(
        "gres-count-below-config",
        "Slurm drained a node because its slurmd found fewer {gres} devices ({found}) than slurm.conf gives it "
        "({configured}): a GPU fell off the bus or failed, the NVIDIA driver is not loaded, or gres.conf (File=, "
        "AutoDetect) and slurm.conf's Gres= disagree; jobs that need the node wait or are refused",
        "the admins: `nvidia-smi -L` on the node (every GPU there? `dmesg | grep -i xid` for one that fell off), "
        "`slurmd -G` (the GRES slurmd finds) against slurm.conf's `Gres=gpu:N`, then `scontrol update "
        "nodename=NODE state=resume`; meanwhile `--exclude=NODE`",
        # Slurm 25.11.7 src/interfaces/gres.c line 4072 xstrfmtcat(*reason_down, "%s count reported lower than
        # configured (%"PRIu64" < %"PRIu64")", ...), line 4333 "%s count too low (%"PRIu64" < %"PRIu64")" and line
        # 3775 "%s:%s count too low (%"PRIu64" < %"PRIu64")" (a typed GRES): the node's down reason, which sinfo -R,
        # scontrol show node and slurmctld's log print.
        (r"\b(?P<gres>[\w/]{1,40}) count reported lower than configured \((?P<found>\d+) < (?P<configured>\d+)\)",
         r"\b(?P<gres>(?:gres/)?gpu(?::[\w.-]{1,40})?) count too low \((?P<found>\d+) < (?P<configured>\d+)\)"),
        90,
    ),

    # --- the shells' "command not found" (bash, dash), by the program the job asked for ---------------------------
    Cause(
        "scontrol-missing-in-container",
        "the job runs a Slurm command ({command}) where Slurm's commands are not installed: inside "
        "the container image (pyxis/enroot, Apptainer), so what it should print (the master address, the node "
        "list) is empty or an error",
        "run Slurm's commands in the job script outside the container and pass the result in (`MASTER_ADDR=$(scontrol "
        "show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)` exported before srun), or read what Slurm already sets "
        "in every task (`SLURM_JOB_NODELIST`, `SLURM_NODEID`, `SLURM_PROCID`); this project's job scripts do the "
        "former",
        (_not_found(r"(?:scontrol|sinfo|squeue|sbatch|srun|salloc|sacct|sstat)"),),
        88,
    ),
    Cause(
        "orted-not-on-remote-path",
        "mpirun could not start its daemon on another node ({command} not found there): Open MPI is not "
        "on that node's PATH for the non-interactive ssh login mpirun uses (installed elsewhere there, or set up "
        "only for interactive shells)",
        "`mpirun --prefix /path/to/openmpi` (the same path on every node; Open MPI built with "
        "--enable-orterun-prefix-by-default does this itself), or set PATH and LD_LIBRARY_PATH in ~/.bashrc before "
        "its interactive-only return; under Slurm or PBS let mpirun start its daemons through the scheduler (no "
        "hostfile, no ssh); `ssh NODE which orted` checks a node",
        (_not_found(r"(?:orted|prted)"),
         # Open MPI v4.1.6 orte/mca/errmgr/base/help-errmgr-base.txt line 36 [failed-daemon-launch]: its first
         # reason is "not finding the required libraries and/or binaries on one or more nodes".
         r"ORTE was unable to reliably start one or more daemons"),
        86,
    ),
    Cause(
        "mpi-daemon-compiler-runtime-missing-noninteractive",
        "mpirun's daemon ({daemon}) was found on the other node but could not start there: the loader found no "
        "{lib}, a library it needs, on that node's library path for the non-interactive (ssh) login mpirun uses: "
        "most often the runtime of the compiler Open MPI was built with (Intel's libimf.so, libsvml.so, libirng.so; "
        "NVIDIA HPC SDK's), or Open MPI's own libraries, set up only for interactive shells (a module loaded by "
        "hand, an ~/.bashrc that returns early when not interactive)",
        "set the library path for non-interactive logins on every node: load the compiler's module (or source its "
        "environment script, e.g. Intel's setvars.sh) and Open MPI's in ~/.bashrc BEFORE its "
        "`[ -z \"$PS1\" ] && return` line (`mpirun --prefix /path/to/openmpi` covers Open MPI's own libraries, not the "
        "compiler's); `ssh NODE ldd $(which prted)` (orted before Open MPI 5) shows what is missing; under Slurm "
        "or PBS let mpirun start its daemons through the scheduler, which carries the job's environment",
        # glibc's loader, glibc-2.39 elf/dl-catch.c line 83 (fatal_error): _dl_fatal_printf ("%s: %s: %s%s%s%s%s\n",
        # RTLD_PROGNAME, occasion ?: N_("error while loading shared libraries"), objname, ...) with
        # elf/dl-load.c's "cannot open shared object file"; RTLD_PROGNAME is the daemon: Open MPI 5's PRRTE prted,
        # orted before. Open MPI's documentation (Launching apps > Troubleshooting, "Errors about missing
        # libraries"): "prted: error while loading shared libraries: libimf.so ... it is likely that the user did
        # not set up the compiler library in their environment properly on this node ... for both interactive and
        # non-interactive logins".
        (r"^(?:\S{0,200}/)?(?P<daemon>orted|prted): error while loading shared libraries: (?P<lib>[^\s:]{1,200}): "
         r"cannot open shared object file",),
        88,
    ),
    Cause(
        "mpirun-not-on-path",
        "the job calls {command}, which is not on the PATH where it runs (no MPI module loaded in the "
        "job, an environment activated only on the login node, or an MPI that names its launcher otherwise)",
        "load the MPI in the job script before the launch (`module load openmpi`), give the launcher's full path, or "
        "start the ranks with the scheduler's own launcher (`srun`, PBS' `mpiexec`); `which mpirun` in the job shows "
        "what it finds",
        (_not_found(r"(?:mpirun|mpiexec|mpiexec\.hydra|orterun|prterun)"),),
        86,
    ),
    Cause(
        "launch-script-line-continuation",
        "the shell ran an option ({command}) as a command: the line before it ended the command (a `\\` "
        "followed by a space, or no `\\`), or the command's name was a variable that expanded to nothing "
        "(`$(which mpirun)` where there is no mpirun)",
        "end every continued line of the launch command with `\\` and nothing after it (`grep -n ' $' SCRIPT` finds "
        "trailing spaces, `cat -A SCRIPT` shows them as ` $`), and check that the launcher's variable is set "
        "(`echo \"$MPIRUN\"`, or `${MPIRUN:?not set}`)",
        (_not_found(r"--?[A-Za-z][\w.=-]{0,200}"),),
        86,
    ),

    # --- Open MPI's launcher refusing its options ------------------------------------------------------------------
    Cause(
        "mpirun-run-as-root",
        "mpirun refuses to run as root (a container or a shell that runs as root)",
        "run as a normal user; where root is wanted (a container), `mpirun --allow-run-as-root`, or set both "
        "`OMPI_ALLOW_RUN_AS_ROOT=1` and `OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`",
        # Open MPI v4.1.6 orte/orted/orted_submit.c line 316 fprintf(stderr, "%s has detected an attempt to run as
        # root.\n\n", orte_basename) (mpirun, orterun; prterun in v5).
        (r"has detected an attempt to run as root",),
        90,
    ),
    Cause(
        "mpirun-conflicting-mapping",
        "mpirun was given two {policy} policies (e.g. `--map-by node` and `--bynode`, or an MCA parameter and an "
        "option), and refuses to choose",
        "give one `--map-by` (and one `--bind-to`): look for the other in the command line, `OMPI_MCA_rmaps_base_"
        "mapping_policy` / `OMPI_MCA_hwloc_base_binding_policy` in the environment and openmpi-mca-params.conf",
        # Open MPI v2.1.6 to v4.1.6 orte/mca/rmaps/base/help-orte-rmaps-base.txt line 137 [redefining-policy]
        # "Conflicting directives for %s policy are causing the policy\nto be redefined:" and
        # opal/mca/hwloc/base/help-opal-hwloc-base.txt line 32, its binding twin.
        (r"Conflicting directives for (?P<policy>\w+) policy are causing the policy",),
        90,
    ),

    # --- the C library's error strings (errno), as every program on the node prints them ----------------------------
    # glibc sysdeps/gnu/errlist.h (commit 3d7d5c1; the same words since 2.19, when ESTALE lost its "NFS"): strerror
    # and %m print these; CPython's OSError prints "[Errno %S] %S" (Objects/exceptions.c OSError_str), so a Python
    # traceback ends "OSError: [Errno 28] No space left on device". What the errno means is the cause wherever it
    # comes from; where a more specific cause explains the same line (/dev/shm, Apptainer's or pyxis' own
    # directories) it outweighs these.
    Cause(
        "hdf5-file-locking-unsupported",
        "HDF5 could not lock a file it opened (errno {errno}): the file system it is on (Lustre mounted without flock, "
        "NFS without a lock daemon, some parallel file systems) does not support the lock HDF5 1.10 and later take "
        "on every open",
        "turn HDF5's file locking off for the job: `export HDF5_USE_FILE_LOCKING=FALSE` in the job script (this "
        "project's job scripts: `EXTRA_ENV=HDF5_USE_FILE_LOCKING=FALSE`); h5py 3.5 and later also take "
        "`h5py.File(path, locking=False)`; or keep the files where locks work (node-local scratch), or ask the admins "
        "to mount the file system with flock",
        # HDF5 (1.10 and later) src/H5FDsec2.c H5FD__sec2_lock() (H5FD_sec2_lock() in 1.10), as read in a 1.14
        # copy: HSYS_GOTO_ERROR(H5E_VFL, H5E_CANTLOCKFILE, FAIL, "unable to lock file"), and src/H5Eprivate.h
        # HSYS_GOTO_ERROR's "%s, errno = %d, error message = '%s'"; h5py raises it as "OSError: Unable to open file
        # (unable to lock file, errno = 38, error message = 'Function not implemented')". The errnos of a file system
        # without the lock: ENOSYS 38, EOPNOTSUPP 95, the kernel's ENOTSUPP 524, ENOLCK 37; not EAGAIN 11, another
        # process holding the file open.
        (r"unable to lock file, errno = (?P<errno>37|38|95|524)\b",),
        74,
    ),
    Cause(
        "disk-full",
        "a write failed because its filesystem is full or the user's quota there is used up: checkpoints, logs or "
        "caches filled the disk",
        "free space or write elsewhere: `df -h PATH` and the quota (`quota -s`, Lustre `lfs quota -hu $USER PATH`) "
        "say which; put checkpoints and the run directory on project or scratch space (`RUN_DIR=`), caches "
        "(`HF_HOME`, `TORCH_HOME`, `TRITON_CACHE_DIR`) and `TMPDIR` away from $HOME and /tmp, and keep fewer "
        "checkpoints",
        # ENOSPC "No space left on device", EDQUOT "Disk quota exceeded"; CPython's "[Errno 28]" and "[Errno 122]".
        (r"No space left on device|Disk quota exceeded|\[Errno (?:28|122)\]",),
        72,
        applies=lambda log: not log.has(_ENOSPC_EXPLAINED),
    ),
    Cause(
        "open-files-limit",
        "a process reached its limit of open files (RLIMIT_NOFILE, `ulimit -n`): DataLoader workers that pass "
        "tensors through file descriptors, or many files held open at once",
        "raise the soft limit to the hard one before the launcher (`ulimit -n $(ulimit -Hn)` in the job script; "
        "the hard limit is the admins' /etc/security/limits.conf), or let DataLoader workers share tensors through "
        "files: `torch.multiprocessing.set_sharing_strategy('file_system')`; fewer `num_workers` also helps",
        # EMFILE "Too many open files", ENFILE "Too many open files in system", CPython's "[Errno 24]"; and
        # CPython's Lib/multiprocessing/reduction.py recvfds(), which torch's DataLoader workers pass tensors
        # through: raise RuntimeError('received %d items of ancdata' % len(ancdata)) when no descriptor came.
        (r"Too many open files|\[Errno 24\]|received 0 items of ancdata",),
        74,
    ),
    Cause(
        "shared-cache-nfs-stale-handle",
        "a file on a network filesystem (NFS) was deleted or replaced by another node while this one used it: a "
        "cache directory that every node's processes write at once (Triton's kernels, torch_extensions, "
        "Hugging Face's) in a shared $HOME",
        "give each node its own cache on local disk: `TRITON_CACHE_DIR`, `TORCH_EXTENSIONS_DIR`, `HF_DATASETS_CACHE` "
        "under node-local `$TMPDIR` (or build the cache once before the job), and rerun",
        # ESTALE: "Stale file handle" (glibc 2.19 and later), "Stale NFS file handle" before; CPython's "[Errno 116]".
        (r"Stale (?:NFS )?file handle|\[Errno 116\]",),
        72,
    ),
    # --- host names: a name the job was given that does not resolve, or resolves to loopback -----------------------
    Cause(
        "rendezvous-name-not-resolvable",
        "a host name the ranks had to reach did not resolve (the master or rendezvous address, NCCL's bootstrap "
        "address): a name only the login node knows, a typo, a short name the nodes' resolver does not complete, "
        "or, in containers and Kubernetes, a name whose DNS record did not exist yet when the ranks started",
        "give the ranks an address every node resolves: `MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" "
        "| head -n 1)` (PBS: the first line of `$PBS_NODEFILE`) or the head node's IP address on the fast network; "
        "`getent hosts NAME` on a compute node checks it; where the name's record appears after the pods start, "
        "make the workers wait for it (an init step that loops on `getent hosts NAME`)",
        # torch 1.x torch/lib/c10d/Utils.cpp (commit 0106cc7) tcputil::connect() throws "host not found: " +
        # gai_strerror(err). torch 2.x torch/csrc/distributed/c10d/socket.cpp SocketConnectOp::tryConnect records
        # "The {}network addresses of ({}, {}) cannot be retrieved (gai error: {} - {})." as a warning and retries
        # until its timeout: EAI_NONAME (-2), EAI_AGAIN (-3) and EAI_NODATA (-5) only, the answers for a name, not
        # for an address family the host lacks. NCCL v2.21.5-1 src/misc/socket.cc line 267 (v2.30.7-1 line 257):
        # WARN("Net : error encountered when getting address info : %s", gai_strerror(rv)). Not CPython's bare
        # socket.gaierror: a compute node without a route to the internet prints it for every download (a model
        # hub's name), which is not the ranks' address.
        (r"host not found: (?:Name or service not known|Temporary failure in name resolution|No address associated "
         r"with hostname)",
         r"network addresses of \([^,\s]{1,300}, \d+\) cannot be retrieved \(gai error: -[235] - ",
         r"Net : error encountered when getting address info : (?:Name or service not known|Temporary failure in name "
         r"resolution|No address associated with hostname)"),
        72,
        applies=lambda log: log.has(_FAILED) or log.has(_NAME_LOOKUP_GAVE_UP),
    ),
    Cause(
        "hostname-resolves-to-loopback",
        "a rank advertised a loopback address ({address}) to the others: its host name resolves to 127.0.1.1 or "
        "127.0.0.1 (the line Debian and Ubuntu put in /etc/hosts), so the other nodes' connections to it failed",
        "set `GLOO_SOCKET_IFNAME` (and `NCCL_SOCKET_IFNAME`) to the interface the nodes share (`ip -br addr` shows "
        "it, e.g. `GLOO_SOCKET_IFNAME=ib0`), or have the host name resolve to the node's network address (the "
        "127.0.1.1 line of /etc/hosts replaced by the real address); `getent hosts $(hostname)` on each node shows it",
        # Gloo 1d9e62a (2018, torch 1.0 to 1.x) gloo/transport/tcp/pair.cc line 722 GLOO_ERROR_MSG("connect ",
        # peer_.str(), ": ", strerror(optval)); Gloo cc44198 (2025) gloo/transport/tcp/error.cc line 26 SystemError
        # "<syscall>: <strerror>, remote=<peer>" and pair.h line 310 GLOO_ERROR_MSG("Connect timeout ", peer_.str()).
        # A loopback peer in a one-node job is right: 127.0.1.1 (never a fallback) or a job of several nodes.
        (r"(?:\bconnect |Connect timeout |, remote=)(?P<address>\[127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]:\d+)",),
        80,
        applies=lambda log: log.has(_DEBIAN_HOSTNAME_ADDRESS) or _multi_node(log),
    ),

    # --- OpenSSH refusing a node's host key (mpirun's and DeepSpeed's ssh launches, pdsh) ----------------------------
    Cause(
        "ssh-host-key-changed",
        "ssh refused to connect to a node because its host key is not the one in known_hosts (the node was "
        "reinstalled or its name now points to another machine) and ssh checks host keys strictly; a launcher that "
        "starts ranks over ssh (mpirun, DeepSpeed, pdsh) then fails on that node",
        "remove the stale key: `ssh-keygen -R NODE` (the line `Offending ... key in ~/.ssh/known_hosts:N` names it), "
        "then `ssh NODE true` once to record the new key; the admins can publish the nodes' keys in "
        "/etc/ssh/ssh_known_hosts so no user has to; or start the ranks with srun/PBS' mpiexec, without ssh",
        # OpenSSH V_7_4_P1 sshconnect.c line 1466 and V_9_6_P1 line 1646 error("@    WARNING: REMOTE HOST
        # IDENTIFICATION HAS CHANGED!     @"); V_7_4_P1 line 1099 "%s host key for %.200s has changed and you have
        # requested strict checking.", V_9_6_P1 line 1301 "Host key for %.200s has changed and you have requested
        # strict checking.", and the revoked key's "%s host key for %.200s was revoked and you have requested strict
        # checking." (V_9_6_P1 line 1245).
        (_SSH_HOST_KEY_CHANGED,),
        88,
    ),
    Cause(
        "ssh-host-key-unknown",
        "ssh refused to connect to a node whose host key it has never recorded: it checks host keys strictly "
        "(StrictHostKeyChecking, or BatchMode where it cannot ask), so a launcher that starts ranks over ssh "
        "(mpirun, DeepSpeed, pdsh) fails on every node not yet in known_hosts",
        "record the nodes' keys once (`ssh-keyscan NODE1 NODE2 >> ~/.ssh/known_hosts`, or `ssh NODE true` and "
        "answer yes), or have the admins publish them in /etc/ssh/ssh_known_hosts; or start the ranks with srun/PBS' "
        "mpiexec, without ssh",
        # OpenSSH V_9_6_P1 sshconnect.c line 1147 error("No %s host key is known for %.200s and you have requested
        # strict checking.") (V_7_4_P1 line 956); sshconnect2.c line 105 fatal("Host key verification failed.")
        # (V_7_4_P1 line 99), which also follows a changed key: that reading is "ssh-host-key-changed".
        # And ssh asking on a terminal, where the launcher's ssh then waits for an answer nobody gives: V_9_6_P1
        # line 1154 xasprintf(&msg1, "The authenticity of host '%.200s (%s)' can't be established", host, ip), then
        # "Are you sure you want to continue connecting (yes/no/[fingerprint])? " (V_7_4_P1 line 986, one
        # snprintf, "(yes/no)? "); not where ssh then recorded the key ("Warning: Permanently added ...") and no
        # host was refused.
        (r"No \w{1,20} host key is known for \S{1,200} and you have requested strict checking",
         r"^(?:\S{1,200}: )?Host key verification failed\.\s*$",
         r"The authenticity of host '[^'\n]{1,300}' can't be established"),
        86,
        applies=lambda log: not log.has(_SSH_HOST_KEY_CHANGED) and (
            not log.has(_SSH_HOST_KEY_ADDED) or log.has(_SSH_HOST_KEY_REFUSED)),
    ),

    # --- MPI launchers: Cray MPICH's GPU transport, an mpiexec that is not Open MPI's ------------------------------
    Cause(
        "cray-gtl-not-linked",
        "Cray MPICH was asked for GPU-aware MPI (MPICH_GPU_SUPPORT_ENABLED=1) but the program (or a Python module "
        "that loads libmpi, such as mpi4py) was built without Cray's GPU transport layer library (libmpi_gtl_cuda), "
        "so MPI_Init aborts",
        "build with the accelerator target loaded so the compiler wrappers link the GTL (`module load "
        "craype-accel-nvidia90` on GH200, `nvidia80` on A100, or `export CRAY_ACCEL_TARGET=nvidia90`) and rebuild "
        "mpi4py the same way (`MPICC=cc pip install --no-binary=mpi4py mpi4py`); or preload it "
        "(`LD_PRELOAD=$CRAY_MPICH_ROOTDIR/gtl/lib/libmpi_gtl_cuda.so`); a job that passes no GPU buffers to MPI "
        "(torch DDP over NCCL) can set `MPICH_GPU_SUPPORT_ENABLED=0`",
        # Cray MPICH 8.1 (closed source; the string as libmpi_cray prints it from MPIDI_CRAY_init, quoted in
        # HPE's and the centres' documentation); glibc's loader for the library itself.
        (r"GPU_SUPPORT_ENABLED is requested, but GTL library is not linked",
         r"libmpi_gtl_(?:cuda|hsa)\.so[.\d]{0,20}: cannot open shared object file"),
        90,
    ),
    Cause(
        "torch-mpi-backend-cuda-aware-openmpi-only",
        "torch's `mpi` process-group backend refused a CUDA tensor: it passes GPU buffers to MPI only when its MPI "
        "says so through Open MPI's extension (MPIX_Query_cuda_support in mpi-ext.h), so with any other MPI (Cray "
        "MPICH, MVAPICH, Intel MPI, Spectrum MPI), CUDA-aware or not, or with an Open MPI built without CUDA, every "
        "collective on GPU tensors fails while CPU tensors work",
        "use the `nccl` backend for GPU tensors (`dist.init_process_group(\"nccl\")`; MPI may still launch the "
        "ranks), or move the tensors to the CPU for the `mpi` backend; a torch built against a CUDA-aware Open MPI "
        "is the only way to keep `mpi` on GPU tensors (`ompi_info --parsable --all | grep "
        "mpi_built_with_cuda_support:value` says whether an Open MPI is)",
        # torch ProcessGroupMPI.cpp (commit 05083ee, line 73), checkSingleTensorHelper: if (tensor.is_cuda() &&
        # !cudaAwareMpiCheck()) TORCH_CHECK(false, "CUDA tensor detected and the MPI used doesn't have CUDA-aware
        # MPI support"); cudaAwareMpiCheck() is false unless MPIX_CUDA_AWARE_SUPPORT is defined ("currently we only
        # support CUDA aware MPI ops through Open MPI"). ALCF's Polaris PyTorch page (Cray MPICH).
        (r"CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support",),
        90,
    ),
    Cause(
        "cray-mpich-nic-policy-numa-rank-spans-numa",
        "Cray MPICH's NIC policy NUMA (the default on Frontier-like nodes, one NIC per NUMA domain) gives each rank "
        "the NIC of the NUMA domain its CPUs are in, and rank {rank}'s CPU binding spans more than one NUMA domain "
        "(too many cores per task, no or a loose --cpu-bind, a library that widened the process' affinity), so "
        "MPI_Init aborted",
        "bind each rank inside one NUMA domain (`srun --cpus-per-task=7 --cpu-bind=cores` or a --cpu-bind=mask_cpu "
        "list per NUMA domain; `srun ... grep Cpus_allowed_list /proc/self/status` shows what a rank got), or "
        "choose another policy: `export MPICH_OFI_NIC_POLICY=BLOCK` (or ROUND-ROBIN, GPU; `man intro_mpi`); a "
        "Python job that imports torch before mpi4py: import mpi4py first (OLCF's PyTorch page)",
        # Cray MPICH 8.1 (closed source), MPIDI_CRAY_ofi_nic_assign_policy, as OLCF quotes it (olcf/olcf-user-docs
        # commit 2745903, systems/frontier_user_guide.rst line 2665 "MPICH ERROR: Unable to use a NIC_POLICY of
        # 'NUMA'. Rank 0 is not confined to a single NUMA node.", software/analytics/pytorch_frontier.rst line 840
        # with "There are 4 numa_nodes detected (rc=0)." after it).
        (r"Unable to use a NIC_POLICY of 'NUMA'\. Rank (?P<rank>\d+) is not confined to a single "
         r"NUMA node",),
        92,
    ),
    Cause(
        "spectrum-mpi-cuda-hook-before-mpi-init",
        "Spectrum MPI's PAMI backend has a CUDA hook that records GPU allocations for CUDA-aware MPI, and a CUDA call "
        "came before MPI_Init (or the program, built with Spectrum MPI's wrappers, never calls MPI_Init: a serial "
        "program under jsrun), so the hook could not find PAMI's symbols",
        "without CUDA-aware MPI (a serial program, torch over NCCL) turn the hook off: "
        "`jsrun --smpiargs=\"-disable_gpu_hooks\" ...` (not with `--smpiargs=\"-gpu\"`); with CUDA-aware MPI, call "
        "MPI_Init before any CUDA call (in Python, mpi4py calls it when `from mpi4py import MPI` runs)",
        # Spectrum MPI 10.3 (closed source), PAMI's CUDA hook library, as OLCF quotes it (olcf/olcf-user-docs commit
        # 2745903, systems/summit_user_guide.rst line 3888): "CUDA Hook Library: Failed to find symbol
        # mem_find_dreg_entries, ./a.out: undefined symbol: __PAMI_Invalidate_region" ("Depending on context, this
        # error can either be harmless or it can be fatal").
        (r"CUDA Hook Library: Failed to find symbol \w{1,80}, .{0,300}undefined symbol: __PAMI_",),
        85,
    ),
    Cause(
        "openmpi-nonblocking-collectives-gpu-buffers-unsupported",
        "a rank crashed on memory the CPU may not touch (SEGV_ACCERR) inside Open MPI's non-blocking collectives "
        "(libnbc's {frame}), as it does when a GPU buffer is given to MPI_Iallreduce or another I-collective: "
        "libnbc's progress engine computes on the buffers with the CPU, so device memory is not supported there "
        "whatever the transport (CSCS' Open MPI page: MPI_Iallreduce with GPU buffers segfaults)",
        "give non-blocking collectives host buffers (copy to pinned host memory first) or use the blocking "
        "collective (MPI_Allreduce) on GPU buffers; for torch use the `nccl` backend; the osu_iallreduce benchmark "
        "with `-d cuda` reproduces it and without `-d cuda` shows the collective works on host memory",
        # glibc's backtrace_symbols_fd (glibc-2.39 debug/backtracesymsfd.c line 81, "+0x") prints the frames of Open
        # MPI's signal handler as "lib(symbol+0xoff)[addr]"; NBC_Progress (ompi/mca/coll/libnbc/nbc.c line 320 at
        # v5.0.9) and ompi_coll_libnbc_progress (coll_libnbc_component.c line 424); read where the fault is
        # SEGV_ACCERR (Open MPI's "Signal code: Invalid permissions (2)", opal/util/stacktrace.c line 420).
        (r"\((?P<frame>NBC_Progress|ompi_coll_libnbc_progress)\+0x[0-9a-f]{1,16}\)",),
        70,
        applies=lambda log: log.has(_SEGV_ACCERR),
    ),
    Cause(
        "pals-mpiexec-openmpi-options",
        "the mpiexec on the PATH is not Open MPI's (HPE Cray PALS on PBS systems, or MPICH's Hydra) and refused "
        "an Open MPI option ({option}): the launch line was written for Open MPI's mpirun",
        "give the options of the mpiexec that runs (`mpiexec --version` says which): Cray PALS `mpiexec -n N --ppn "
        "P --hosts ... --cpu-bind ...` (this project's jobscripts/gh200-pbs.sh), MPICH Hydra `-ppn P -f hostfile "
        "-bind-to core`; or load the Open MPI module so its mpirun comes first on the PATH",
        # glibc posix/getopt.c (2.26 and later) "%s: unrecognized option '%s%s'\n", the words PALS' getopt-based
        # mpiexec prints; Open MPI's own mpiexec says `Error: unknown option "--foo"` instead (opal/util/cmd_line.c),
        # so an Open MPI-only option refused in getopt's words is another launcher's.
        (r"\bmpiexec: unrecognized option '(?P<option>--?(?:map-by|bind-to|rank-by|npernode|npersocket|oversubscribe"
         r"|report-bindings|display-map|allow-run-as-root|mca|tag-output|timestamp-output|hostfile|machinefile))\b",),
        90,
    ),

    # --- enroot/pyxis and Apptainer starting a container ----------------------------------------------------------
    Cause(
        "enroot-rootfs-lock-timeout",
        "enroot waited 30 s for the lock on the container's root filesystem and gave up: many tasks started the same "
        "named container at once, or its root filesystem is on a shared filesystem where every node's tasks contend "
        "for one lock (ENROOT_DATA_PATH on NFS/Lustre)",
        "keep enroot's data off the shared filesystem (`ENROOT_DATA_PATH` and `ENROOT_RUNTIME_PATH` on node-local "
        "disk or /tmp, the admins' enroot.conf), and with pyxis let each node create its own container "
        "(`--container-image` without a shared `--container-name`, or one task per node creating it first)",
        # enroot v3.4.1 to v4.1.2 src/runtime.sh (line 250 at v4.1.2): flock -w 30 "${_lock}" ... || common::err
        # "Could not acquire rootfs lock"; common::err logs it as "[ERROR] %s" (src/common.sh line 61).
        (r"\[ERROR\] Could not acquire rootfs lock",),
        90,
    ),
    Cause(
        "image-no-shell",
        "the container image has no shell ({shell} not found in it): enroot starts every container through a shell, "
        "so an image built FROM scratch or distroless cannot run under enroot/pyxis",
        "use an image with /bin/sh (a slim distribution base rather than scratch/distroless), or add a static shell "
        "(busybox) to the image; `enroot export`/`unsquashfs -l` lists what the image holds",
        # enroot v4.1.2 bin/enroot-switchroot.c line 726: err(EXIT_FAILURE, "failed to execute: %s", shell), which
        # err(3) prints as "enroot-switchroot: failed to execute: /bin/sh: No such file or directory".
        (r"enroot-switchroot: failed to execute: (?P<shell>/\S{1,200}): No such file or directory",),
        90,
    ),
    Cause(
        "pyxis-seccomp-flag-unsupported",
        "pyxis could not install its seccomp filter (the one that lets root inside the container run package "
        "managers): the node's kernel refused it with EINVAL, a pyxis older than 0.8 asking for a flag the kernel "
        "predates (Linux before 4.17) or a kernel built without seccomp filters",
        "the admins: update pyxis (0.8 and later retry without the flag) or the kernel; meanwhile run without "
        "`--container-remap-root` where the job does not need root in the container",
        # pyxis v0.21.0 pyxis_slurmstepd.c line 1396 and v0.24.0 line 1670: slurm_error("pyxis: seccomp filter
        # failed: %s", strerror(errno)); v0.8.1 seccomp_filter.h line 72 retries without
        # SECCOMP_FILTER_FLAG_SPEC_ALLOW on EINVAL (NVIDIA/pyxis#17).
        (r"pyxis: seccomp filter failed: Invalid argument",),
        90,
    ),
    Cause(
        "apptainer-session-dir-missing",
        "Apptainer's session directory ({path}) does not exist: the installation's state directory was never "
        "created (an install under another prefix, a package manager's store, a relocated unprivileged install), "
        "so no container can start",
        "create it as the installation expects (`sudo mkdir -p PATH`, the path in the message), or use an "
        "installation whose `localstatedir` exists (the distribution's package, or the admins' module); "
        "`apptainer buildcfg | grep SESSIONDIR` shows the path compiled in",
        # Apptainer v1.4.5 internal/pkg/runtime/engine/apptainer/container_linux.go line 417: fmt.Errorf("failed to
        # resolve session directory %s: %s", buildcfg.SESSIONDIR, err), after "container creation failed: "
        # (internal/app/starter/master_linux.go line 53).
        (r"failed to resolve session directory (?P<path>/\S{1,300}): lstat \S{1,300}: no such file or directory",),
        90,
    ),

    # --- the adapter and the driver: resources exhausted, a driver left in a bad state -----------------------------
    Cause(
        "hca-resources-exhausted",
        "the InfiniBand/RoCE adapter ran out of a per-function resource ({command} refused: limits exceeded): "
        "too many processes per node opened it (each takes user access regions, queue pairs and memory keys), so "
        "opening the device or creating queues failed with ENOMEM",
        "run fewer processes per node that open the adapter (one rank per GPU, DataLoader workers that do not "
        "touch MPI/UCX), or have the admins raise the adapter's limits (mlxconfig's `LOG_MAX_QUEUE`, more UARs per "
        "function; open-mpi/ompi#6854); UCX can share resources across ranks (`UCX_IB_NUM_PATHS`, fewer "
        "transports via `UCX_TLS`)",
        # Linux 5.x drivers/net/ethernet/mellanox/mlx5/core/cmd.c mlx5_cmd_check(): mlx5_core_err_rl(dev, "%s(0x%x)
        # op_mod(0x%x) failed, status %s(0x%x), syndrome (0x%x)\n", ...); 6.x's mlx5_cmd_out_err() adds ", err(%d)"
        # and its debug twin " uid(%d)" before "failed"; cmd_status_str(MLX5_CMD_STAT_LIM_ERR, 0x8) is "limits
        # exceeded".
        (r"\b(?P<command>[A-Z][A-Z_]{1,60})\(0x[0-9a-f]{1,8}\) op_mod\(0x[0-9a-f]{1,8}\) (?:uid\(\d{1,10}\) )?failed, "
         r"status limits exceeded\(0x8\)",),
        88,
    ),
    Cause(
        "driver-broken-after-suspend",
        "the CUDA driver failed to initialise with an unknown error (CUDA_ERROR_UNKNOWN, 999) although the GPU is "
        "there: the NVIDIA kernel modules are in a bad state, most often nvidia_uvm after a suspend and resume, or "
        "a driver updated under running processes",
        "reload the unified-memory module (`sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm`) or reboot the node; "
        "on a cluster, report the node to the admins and resubmit excluding it (`--exclude=NODE`); `nvidia-smi` and "
        "`dmesg | grep -i nvrm` show the driver's state",
        # cuInit's CUDA_ERROR_UNKNOWN (999) by name, as XLA's stream executor logs it ("failed call to cuInit: ");
        # torch c10/cuda/CUDAFunctions.cpp (2.x) device_count_impl's TORCH_CHECK for cudaErrorUnknown, "CUDA unknown
        # error - this may be due to an incorrectly set up environment, ...", which torch/cuda/__init__.py turns
        # into the warning "CUDA initialization: ...".
        (r"failed call to cuInit: CUDA_ERROR_UNKNOWN",
         r"CUDA unknown error - this may be due to an incorrectly set up environment"),
        82,
    ),
    Cause(
        "nccl-too-old-for-gpu",
        "this NCCL is older than the GPU (architecture {arch}): its kernels ask for more shared memory than the GPU "
        "gives them, so NCCL's kernels cannot start (a container or wheel whose NCCL predates the GPU)",
        "use an NCCL that supports the GPU (2.26.2 or newer for Blackwell's consumer GPUs; each NCCL release note "
        "lists the architectures it adds): a newer container image or torch wheel, or `LD_LIBRARY_PATH`/`LD_PRELOAD` "
        "pointing at a newer libnccl.so.2; `python -c 'import torch; print(torch.cuda.nccl.version())'` shows the "
        "one in use",
        # NCCL v2.26.2-1 src/enqueue.cc line 50 WARN("cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem
        # %zu", ...) and v2.30.7-1 line 81 WARN("cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d", ...)
        # fail with ncclSystemError; v2.25.1-1 line 52 INFO(NCCL_INIT, "ncclMaxSharedMem %d exceeds device/fn
        # maxSharedMem %zu", ...) shrinks the request and goes on, so its line is read only in a failed run (an
        # nccl-tests run whose first collective never ended is one).
        (r"cudaArch (?P<arch>\d+) (?:ncclMaxSharedMem|dynamic smem) \d+ exceeds device/fn maxSharedMem \d+",
         r"ncclMaxSharedMem \d+ exceeds device/fn maxSharedMem \d+"),
        84,
        applies=lambda log: log.has(_FAILED) or log.has(_NCCL_SMEM_REFUSED) or _nccl_tests_gave_no_result(log),
    ),

    # --- a launch that asked for more than the allocation or the launcher reads -----------------------------------
    Cause(
        "srun-step-exceeds-allocation",
        "srun refused the step: it asks for more than the job's allocation holds ({why}), e.g. a program that "
        "starts more srun tasks or more CPUs or memory per task than the job requested",
        "ask for the step's size in the job (`--ntasks`, `--cpus-per-task`, `--mem-per-cpu`/`--mem` in #SBATCH), or "
        "start the step within it (`srun -n` no more than `$SLURM_NTASKS`, `--cpus-per-task` no more than "
        "`$SLURM_CPUS_PER_TASK`, GPUs no more than the job's `--gres`/`--gpus`); `scontrol show job $SLURM_JOB_ID` "
        "shows what the job holds",
        # Slurm 25.11.7 src/srun/launch.c line 1258 error("Unable to create step for job %u: %m", ...) with
        # src/common/slurm_errno.c line 204 ESLURM_TOO_MANY_REQUESTED_CPUS "More processors requested than
        # permitted", line 370 ESLURM_INVALID_TASK_MEMORY "Memory required by task is not available" and line 714
        # ESLURM_INSUFFICIENT_GRES "Insufficient GRES available in allocation" (a step asking more GPUs than the job
        # holds); older srun words its prefix "unable to create step".
        # The job id as \S: logs quoted in threads often mask it ("for job NNNNN").
        # Each message also as its first words alone at the end of the line: a terminal or a web page wraps
        # srun's line ("More processors requested" / "than permitted").
        (r"(?:Unable to create step for job [^:\s]{1,40}|[Uu]nable to create step): (?P<why>More processors "
         r"requested than permitted|Memory required by task is not available|Insufficient GRES available in "
         r"allocation|(?:More processors(?: requested)?|Memory required(?: by task)?|Insufficient GRES(?: available)?)"
         r" ?$)",),
        84,
    ),
    Cause(
        "sbatch-environment-srun-switch-plugin-unloadable",
        "srun could not load Slurm's {plugin} plugin: a library it needs ({lib}) is not where srun runs, because srun "
        "itself ran inside a container image (at CSCS: `--environment` given to sbatch, `#SBATCH --environment=`, "
        "puts the whole batch script, srun included, in the container), so the step never started",
        "give the container to the step, not the job: `srun --environment=my_edf.toml ...` (CSCS), "
        "`srun --container-image=...` (pyxis), and drop `#SBATCH --environment` / the container from sbatch; run "
        "srun on the host, where Slurm's plugins find their libraries",
        # Slurm 25.11.7 src/common/plugin.c line 158 error("plugin_load_from_file: dlopen(%s): %s", fq_path,
        # dlerror()), then line 374 "Couldn't load specified plugin name for %s: %s" and src/interfaces/switch.c
        # line 205 fatal("Can't find plugin for %s", ...). A missing library of a plugin of srun's own (not the MPI
        # plugins: slurm-mpi-plugin-missing reads those). CSCS Alps Extended Images documentation.
        (r"srun: error: plugin_load_from_file: dlopen\((?P<plugin>\S{0,200}/(?!mpi_)\w{1,80}\.so)\): "
         r"(?P<lib>\S{1,200}): cannot open shared object file",),
        90,
        context=(r"Can't find plugin for ", r"Couldn't load specified plugin name for "),
    ),
    Cause(
        "slurm-ntasks-not-matching-trainer-devices",
        "Slurm's tasks do not match the Lightning Trainer's processes ({what}): Lightning takes its ranks from Slurm "
        "(SLURM_NTASKS, SLURM_PROCID), so its devices per node must equal the job's --ntasks-per-node",
        "submit one task per GPU: `#SBATCH --ntasks-per-node=` equal to the Trainer's `devices` (and `--nodes` equal "
        "to `num_nodes`), start the script with `srun python train.py`; SLURM_NTASKS must be num_nodes x devices",
        # Lightning 2.1.0 to 2.6.5 src/lightning/fabric/plugins/environments/slurm.py line 163 raise ValueError(
        # f"You set `devices={num_devices}` in Lightning, but the number of tasks per node configured in SLURM"
        # f" `--ntasks-per-node={ntasks_per_node}` does not match. ..."), line 221 raise RuntimeError(f"You set
        # `--ntasks={ntasks}` in your SLURM bash script, but this variable is not supported. ...").
        (r"(?P<what>You set `devices=\d+` in Lightning, but the number of tasks per node configured in SLURM "
         r"`--ntasks-per-node=\d+` does not match)",
         r"(?P<what>You set `--ntasks=\d+` in your SLURM bash script, but this variable is not supported)"),
        88,
    ),
    Cause(
        "lightning-num-nodes-not-set",
        "the Lightning Trainer's num_nodes is not the job's node count ({what}): each node's ranks and the world size "
        "are computed from num_nodes, so the processes disagree and the run fails or hangs",
        "give the Trainer the job's node count: `Trainer(num_nodes=N, devices=GPUS_PER_NODE)` with N = `--nodes` "
        "(under Slurm `int(os.environ['SLURM_NNODES'])`, under torchrun its `--nnodes`)",
        # Lightning 2.1.0 to 2.6.5 src/lightning/fabric/plugins/environments/slurm.py line 169 raise ValueError(
        # f"You set `num_nodes={num_nodes}` in Lightning, but the number of nodes configured in SLURM"
        # f" `--nodes={nnodes}` does not match. HINT: Set `num_nodes={nnodes}`.").
        (r"(?P<what>You set `num_nodes=\d+` in Lightning, but the number of nodes configured in SLURM "
         r"`--nodes=\d+` does not match)",),
        88,
    ),
    Cause(
        "openmpi-host-slots-unsupported",
        "ssh was asked for a host named {host}: the MPI launcher took a `host:slots` entry for a host name (an "
        "Open MPI too old for the `-H host:N` form, or another MPI's launcher), so it tried to reach a host that "
        "does not exist",
        "give the slots the way the launcher reads them: a hostfile with `NODE slots=N` (Open MPI) or `NODE:N` "
        "(MPICH's Hydra) and `--hostfile FILE`, or update Open MPI (4.x reads `-H NODE:N`); `mpirun --version` "
        "says which launcher runs; under Slurm or PBS `srun` or PBS' `mpiexec` need no host list",
        # OpenSSH V_9_6_P1 ssh.c line 277 do_log2(loglevel, "%s: Could not resolve hostname %.100s: %s", __progname,
        # host, ssh_gai_strerror(gaierr)); a name that ends in ":N" is a slot count (horovod's `-H host:4`).
        (r"ssh: Could not resolve hostname (?P<host>[^\s:]{1,100}:\d{1,5}): ",),
        86,
    ),

    # --- a container's bind mounts and image reference, as the runtimes check them --------------------------------
    Cause(
        "mount-source-missing",
        "a bind mount's source ({source}) does not exist on the node where the task started: a path only the login "
        "node has, a node-local directory not yet created, or a typo in --container-mounts / --bind",
        "bind paths every compute node has (the shared filesystems: `/gpfs/...`, `$SCRATCH`), create node-local "
        "ones in the job before the launch (`srun --ntasks-per-node=1 mkdir -p DIR`), and check the spelling; "
        "`srun ls -d PATH` shows what the nodes see",
        # pyxis v0.24.0 pyxis_slurmstepd.c line 984 slurm_error("pyxis: --container-mounts: source path does not
        # exist: %s", source); Apptainer v1.4.5 internal/pkg/runtime/engine/apptainer/container_linux.go line 715
        # fmt.Errorf("mount source %s doesn't exist", source) (a --bind or bind path's source).
        (r"pyxis: --container-mounts: source path does not exist: (?P<source>\S{1,300})",
         r"mount source (?P<source>/\S{0,300}) doesn't exist"),
        90,
    ),
    Cause(
        "enroot-image-reference-invalid",
        "enroot could not read the image reference {uri}: enroot (and pyxis' --container-image) name a registry "
        "with `#`, not `/` (`nvcr.io#nvidia/pytorch:24.05-py3`), and take lower-case names and one tag",
        "write the image as `[USER@][REGISTRY#]IMAGE[:TAG]`: `--container-image=nvcr.io#nvidia/pytorch:24.05-py3`, "
        "`enroot import docker://nvcr.io#nvidia/pytorch:24.05-py3`; an image on Docker Hub needs no registry "
        "(`ubuntu:24.04`)",
        # enroot v4.1.2 src/docker.sh lines 291 and 570 (v3.4.1 lines 271 and 359): common::err "Invalid image
        # reference: ${uri}" when the reference does not match docker://[USER@][REGISTRY#]IMAGE[:TAG].
        (r"\[ERROR\] Invalid image reference: (?P<uri>\S{1,300})",),
        90,
    ),

    # --- Open MPI's daemons that never called back to mpirun -------------------------------------------------------
    Cause(
        "mpirun-daemon-callback-failed",
        "Open MPI's daemon on another node started but never connected back to mpirun: no TCP route between the "
        "nodes on the interfaces Open MPI chose (a firewall, a virtual interface such as docker0 or virbr0 taken "
        "for the nodes' network, different subnets), or the daemon died as it started",
        "name the interface the nodes share: `mpirun --mca oob_tcp_if_include ib0 --mca btl_tcp_if_include ib0` (or "
        "its subnet, `10.0.0.0/16`; `ip -br addr` lists them), ask the admins whether a firewall blocks the nodes' "
        "ports; under Slurm or PBS let mpirun start its daemons through the scheduler, or start the ranks with "
        "srun/PBS' mpiexec",
        # Open MPI orte/mca/errmgr/base/help-errmgr-base.txt (read at commit 097df599, v4.x) line 55 [failed-daemon]
        # "An ORTE daemon has unexpectedly failed after launch and before\ncommunicating back to mpirun. This could
        # be caused by a number\nof factors, including an inability to create a connection back\nto mpirun due to a
        # lack of common network interfaces and/or no\nroute found between them."
        # PRRTE (Open MPI 5's runtime) src/mca/errmgr/base/help-errmgr-base.txt (commit 0f79f3a) line 54
        # [failed-daemon] "An PRTE daemon has unexpectedly failed after launch and before\ncommunicating back to
        # mpirun. ...", the same text with PRTE for ORTE.
        (r"An [OP]RTE daemon has unexpectedly failed after launch and before",),
        80,
    ),
    Cause(
        "openmpi-tcp-btl-wrong-interfaces",
        "Open MPI's TCP transport (the tcp BTL) dialled a peer over an interface the nodes do not share as a route "
        "between them: left to use every interface, it took one such as a docker0, virbr0 or other bridge whose "
        "address repeats on every node, or a second subnet, so connect() found no route to the peer (No route to "
        "host) or reached another process than the one it dialled, and the ranks hung or aborted",
        "restrict the BTL (and mpirun's own wire-up) to the network the nodes share: `mpirun --mca "
        "btl_tcp_if_include ib0 --mca oob_tcp_if_include ib0` (or the subnet, `--mca btl_tcp_if_include "
        "192.168.1.0/24`; `ip -br addr` on each node lists them), or exclude the virtual ones (`--mca "
        "btl_tcp_if_exclude lo,docker0,virbr0`); the same settings go in the environment as "
        "`OMPI_MCA_btl_tcp_if_include=ib0`",
        # Open MPI v4.1.6 opal/mca/btl/tcp/btl_tcp_endpoint.c line 625 (the same at v2.1.0 line 648, v3.1.0 line
        # 625), in mca_btl_tcp_endpoint_recv_connect_ack when the peer's name in the handshake is not the one
        # this endpoint was opened for: BTL_ERROR(("received unexpected process identifier %s",
        # OPAL_NAME_PRINT(guid))); v5.0.10 line 667 BTL_ERROR(("received unexpected process identifier: got %s
        # expected %s", ...)). BTL_ERROR (opal/mca/btl/base/btl_base_error.h) prefixes "[node][[job,vpid]...]
        # [file:line:function] ". horovod/horovod#1516 (ib0 beside docker interfaces) and
        # jbornschein/mpi4py-examples#12 (Raspberry Pi nodes): fixed by btl_tcp_if_include.
        # A connect() that found no route (EHOSTUNREACH, 113): Open MPI's documentation (docs.open-mpi.org, Tuning >
        # Networking > TCP, "No route to host: These errors usually mean that there are multiple IP interfaces
        # available and they do not obey Open MPI's assumptions about routability"). Its wordings, in
        # mca_btl_tcp_endpoint_complete_connect: v1.2.9 ompi/mca/btl/tcp/btl_tcp_endpoint.c line 572
        # BTL_ERROR(("connect() failed with errno=%d", so_error)); v1.4.5 (line 636) to v2.1.6
        # (opal/mca/btl/tcp/btl_tcp_endpoint.c line 801) BTL_ERROR(("connect() to %s failed: %s (%d)", ...,
        # strerror(so_error), so_error)); v4.1.6 and v5.0.6 opal_show_help("help-mpi-btl-tcp.txt", "client
        # connect fail", ...), whose text (v5.0.6 line 160) "WARNING: Open MPI failed to TCP connect to a peer MPI
        # process via\nTCP. ..." ends "  Error:      %s (%d)" (read where the log shows that warning).
        (r"\bbtl_tcp_endpoint\.c:\d+:mca_btl_tcp_endpoint_recv_connect_ack\] received unexpected process "
         r"identifier\b",
         r"\bbtl_tcp_endpoint\.c:\d+:mca_btl_tcp_endpoint_complete_connect\]?:? connect\(\) (?:failed with "
         r"errno=113\b|to \S{1,300} failed: No route to host \(113\))",
         r"^ {0,4}Error: {1,12}No route to host \(113\)"),
        82,
        applies=lambda log: log.has(_OMPI_TCP_BTL),
    ),
    Cause(
        "conda-env-mpi-shadows-site-mpi",
        "mpirun could not start the conda environment's Python on another node: most often the mpirun that ran is "
        "the environment's own MPI (conda-forge's Open MPI or MPICH, which installing mpi4py pulls in), built "
        "without the cluster's scheduler and network support, not the site's MPI",
        "`which mpirun` after activating the environment tells: a path inside the environment is its own MPI; "
        "load the site's MPI module after `conda activate` (so its mpirun comes first), or make the environment "
        "use it (conda-forge's `external_` build of the MPI package at the module's version, e.g. `conda install "
        "\"openmpi=4.1.6=external_*\"`, or `pip install mpi4py` built against the module); if "
        "mpirun is the site's, the path is missing on that node (mpirun-executable-not-found)",
        # PRRTE v3.0.6 src/docs/show-help-files/help-prun.rst line 678 [prun:exe-not-found] "%s was unable to find
        # the specified executable file, and therefore" (Open MPI 5's prterun; Open MPI v4.1.6 orterun's the same
        # words), with its "Executable: %s" row (line 687) naming a Python inside a conda environment.
        (r"\bwas unable to find the specified executable file, and therefore",),
        87,
        applies=lambda log: log.has(_MPI_LAUNCHED) and log.has(_CONDA_ENV_EXECUTABLE),
        context=(r"^\s{0,8}(?:Node|Executable): +\S",),
    ),
    Cause(
        "mpirun-executable-not-found",
        "mpirun could not start the program on a node: the executable (or the script Python was to run) is not at "
        "that path there (a file on the login node's or the first node's local disk such as /tmp, not on a "
        "filesystem every node mounts; a relative path resolved in another directory), is not executable, or a "
        "mistyped mpirun option was taken as the program",
        "give the program by an absolute path on a filesystem every node mounts (`ls -l PATH` on the node the "
        "message names), make it executable (`chmod +x`), and check the options before it (mpirun takes the first "
        "word it does not know as the program); for a Python program run `python3 /abs/path/train.py`",
        # Open MPI v4.1.6 orte/tools/orterun/help-orterun.txt line 268 [orterun:exe-not-found] "%s was unable to
        # find the specified executable file, and therefore\ndid not launch the job." and line 280
        # [orterun:exe-not-accessible] "%s was unable to launch the specified application as it could not access\nor
        # execute an executable:" (%s: mpirun, mpiexec or orterun).
        (r"\bwas unable to find the specified executable file, and therefore",
         r"\bwas unable to launch the specified application as it could not access$",
         # MPICH v4.3.2 src/pm/hydra/lib/utils/launch.c line 73 (v3.2 utils/launch/launch.c line 74), in the
         # process a proxy forked for a rank: HYDU_error_printf("execvp error on file %s (%s)\n", client_arg[0],
         # MPL_strerror(errno)); on a "[proxy:...]" line only (mpiexec's own is its bootstrap, ssh).
         r"^\[proxy:\S{1,300}\] (?:\w{1,100} \(\S{1,300}\): )?execvp error on file \S.{0,4096} "
         r"\((?:No such file or directory|Permission denied)\)$",
         # CPython (3.11.7's libpython; Modules/main.c pymain_run_file_obj) PySys_FormatStderr("%S: can't open file
         # %R: [Errno %d] %s\n", ...): the script a rank's python was given is not there; under mpirun only.
         r": can't open file '[^']{1,4096}': \[Errno 2\] No such file or directory"),
        86,
        applies=lambda log: log.has(_MPI_LAUNCHED),
        context=(r"^\s{0,8}(?:Node|Executable): +\S",),
    ),
    Cause(
        "mpirun-workdir-missing",
        "mpirun could not start a rank on a node because the working directory does not exist there (the "
        "directory mpirun ran in, or `-wdir`, is on a disk that node does not mount)",
        "run mpirun from a directory every node mounts (the shared home or scratch), or give `-wdir` such a "
        "directory; `ls -ld DIR` on the node the message names",
        # Open MPI v4.1.6 orte/tools/orterun/help-orterun.txt line 259 [orterun:wdir-not-found] "%s was unable to
        # launch the specified application as it could not\nchange to the specified working directory:".
        (r"\bwas unable to launch the specified application as it could not$", _HYDRA_WDIR_MISSING),
        86,
        applies=lambda log: log.has(_OMPI_WDIR_LINE) or log.has(_HYDRA_WDIR_MISSING),
        context=(r"^\s{0,8}(?:Working directory|Node): +\S",),
    ),

    # --- GPUDirect: peer-to-peer between GPUs and between GPUs and the network card, and what turns it off ---------
    Cause(
        "gpudirect-rdma-disabled",
        "NCCL runs over InfiniBand without GPUDirect RDMA on {hca}: it found neither the GPU peer-memory kernel "
        "module (nvidia-peermem, nv_peer_mem) nor DMA-BUF support, so every transfer between nodes is staged "
        "through host memory (several times slower, and more so on the nodes without it)",
        "load the module on every node (`modprobe nvidia-peermem`; `lsmod | grep -e nvidia_peermem -e nv_peer_mem` "
        "shows it) or use a driver and kernel with DMA-BUF; NCCL before 2.23 does not see the nvidia-peermem "
        "module (it looks for nv_peer_mem's files), so also use NCCL 2.23 or newer; with `NCCL_DEBUG=INFO "
        "NCCL_DEBUG_SUBSYS=INIT,NET` NCCL then says `GPU Direct RDMA Enabled` and its channels `via NET/IB/N/GDRDMA`",
        # NCCL v2.18.5-1 src/graph/topo.cc line 643 and v2.30.7-1 line 1653: INFO(NCCL_NET, "NET/%s : GPU Direct
        # RDMA %s for HCA %d '%s'", name, gdrSupport ? "Enabled" : "Disabled", n, props.name): Disabled when the
        # net's ptrSupport lacks NCCL_PTR_CUDA (src/transport/net_ib.cc ncclIbGdrSupport(): v2.19 to v2.22.3 check
        # /sys/kernel/mm/memory_peers/nv_mem{,_nc}/version only, v2.23.4-1 also /sys/module/nvidia_peermem) and
        # DMA-BUF is unsupported. Not NET/Socket, which never has it.
        (r"NET/IB(?:ext\w{0,12})? : GPU Direct RDMA Disabled for HCA \d+ '(?P<hca>[^']{1,64})'",),
        45,
        # A reading of a slow run: it makes transfers slower, never fails them, so a failed run's cause is elsewhere
        # (the layer verdicts then say where to look).
        applies=lambda log: not log.has(_FAILED) and not log.has(_NCCL_FAILED),
    ),
    Cause(
        "p2p-disabled-by-env",
        "the job's environment turned NCCL's peer-to-peer transport off ({setting}): the GPUs of a node exchange "
        "data through host shared memory instead of NVLink or PCIe peer access, several times slower (and NVLink "
        "SHARP, which needs it, is off too)",
        "unset `NCCL_P2P_DISABLE` and `NCCL_P2P_LEVEL` (look in the job script, the modules it loads, the image's "
        "environment and /etc/nccl.conf); if it was set to get around a hang or wrong results, fix that cause "
        "instead (PCIe ACS or the IOMMU: see `p2p-acs-iommu`); `nvidia-smi topo -m` shows the links NCCL could use",
        # NCCL src/graph/paths.cc ncclGetLevel(): v2.21.5-1 line 244 INFO(NCCL_ALL, "%s set by environment to %s",
        # levelEnv, topoPathTypeStr[l]), NCCL_P2P_DISABLE=1 also printed as "NCCL_P2P_LEVEL ... LOC" (level 0);
        # v2.30.7-1 line 252 INFO(NCCL_ALL, "%s set by environment to %d", disableEnv, disable) and line 274 for
        # the level.
        (r"(?P<setting>NCCL_P2P_LEVEL set by environment to LOC|NCCL_P2P_DISABLE set by environment to 1)\b",),
        44,
        # A slow run's reading, as gpudirect-rdma-disabled: never a failed run's cause.
        applies=lambda log: not log.has(_FAILED) and not log.has(_NCCL_FAILED),
    ),
    Cause(
        "peermem-module-unloadable",
        "the GPU peer-memory kernel module ({module}) cannot be loaded: it was built against another InfiniBand "
        "stack than the one running (MLNX_OFED or the kernel's rdma modules changed under it), so the kernel "
        "lacks a symbol it needs and GPUDirect RDMA is off",
        "the admins rebuild it against the running InfiniBand stack: reinstall MLNX_OFED (or DOCA-OFED) and then "
        "the nv_peer_mem package, or use the NVIDIA driver's own nvidia-peermem (built with the driver after OFED "
        "is installed); `modprobe nvidia-peermem` and `dmesg | grep -i peer` show whether it loads",
        # Linux v6.8 kernel/module/main.c simplify_symbols(): pr_warn("%s: Unknown symbol %s (err %d)\n",
        # mod->name, name, ret) (kernel/module.c before 5.19); kmod's tools/modprobe.c insmod_insert() (a stored
        # copy) for ENOENT: ERR("could not insert '%s': Unknown symbol in module, or unknown parameter (see
        # dmesg)\n", ...).
        (r"(?P<module>nv_peer_mem|nvidia_peermem): Unknown symbol (?P<symbol>\w{1,80})",
         r"could not insert '(?P<module>nv_peer_mem|nvidia[_-]peermem)': Unknown symbol in module"),
        85,
    ),

    # --- a bind mount whose two ends are not the same kind ------------------------------------------------------
    Cause(
        "bind-kind-mismatch",
        "Apptainer could not bind {path} into the container: one end is a file and the other a directory (a "
        "file bound onto a directory, or the reverse, often through a symlink in the image such as "
        "/etc/localtime pointing at a directory)",
        "bind a file onto a file and a directory onto a directory (`--bind SRC:DST`, `APPTAINER_BINDPATH`); for a "
        "path Apptainer binds by itself (/etc/localtime, /etc/hosts) leave it out with `--no-mount "
        "/etc/localtime`, or fix the path in the image; `ls -ld` of both ends (in the image: `apptainer exec IMAGE "
        "ls -ld DST`) shows their kinds",
        # Apptainer v1.4.5 internal/pkg/runtime/engine/apptainer/container_linux.go line 895 fmt.Errorf("could not
        # mount %s: %s", mnt.Source, err) with mount(2)'s ENOTDIR, "not a directory" (line 891 words the same as a
        # warning for a mount marked skip-on-error: not read).
        (r"^(?!\s{0,8}WARNING).{0,400}?could not mount (?P<path>/\S{0,300}): not a directory",),
        88,
    ),

    # --- PMIx's security component under srun --mpi=pmix -----------------------------------------------------------
    Cause(
        "pmix-munge-unavailable",
        "the PMIx library in the job (the image's, or a conda MPI's) could not open its munge security component, "
        "which Slurm's PMIx server asks for: munge's library is not where the program runs, or that PMIx was "
        "built without it",
        "run with the site's MPI (its module, built against Slurm's PMIx) instead of a generic conda or pip MPI "
        "(conda-forge's `openmpi=X.Y.*=external_*`), or install munge's library in the image (`libmunge2` / "
        "`munge-libs`), or tell PMIx to use another component (`export PMIX_MCA_psec=^munge`); `srun --mpi=list` "
        "shows the PMIx Slurm offers",
        # PMIx v4.2.9 and v5.0.8 src/mca/base/help-pmix-mca-base.txt [find-available:not-valid] line 25 "A requested
        # component was not found, or was unable to be opened. ..." with "Framework: %s" (line 32) and
        # "Component: %s" (line 33): the psec framework's munge component (openpmix issues, open-mpi/ompi#12571).
        # Alone the report is a warning: a PMIx that finds another security component goes on (EESSI/
        # compatibility-layer#216, every rank ran), so it counts where PMIx or MPI then failed to start.
        (r"^\s{0,8}Component: +munge\b",),
        88,
        applies=lambda log: log.has(_PSEC_FRAMEWORK) and log.has(_MPI_FAILED),
    ),

    # --- the InfiniBand card's own events, as NCCL reports them ----------------------------------------------------
    Cause(
        "ib-port-down",
        "an InfiniBand port the job used went down while it ran ({port}): a cable, a switch port or the fabric's "
        "subnet manager took the link away, and the connections over it failed",
        "`ibstat` / `ibv_devinfo` on the node show the port's state (`PORT_ACTIVE` when up) and `ibdiagnet` or the "
        "switch's logs why it went down; resubmit without the node (`--exclude=NODE`) and tell the admins which "
        "node and port; the job scripts' resume (`RUN_DIR=runs/<jobid>`) continues from the last snapshot",
        # NCCL's async event thread with rdma-core's ibv_event_type_str() (libibverbs/enum_strs.c, IBV_EVENT_PORT_ERR
        # "port error"): v2.18.5-1 src/transport/net_ib.cc line 95 WARN("NET/IB : Got async event : %s", str),
        # v2.21.5-1 line 101 WARN("NET/IB : %s:%d Got async event : %s", ...), v2.23.4-1 line 171 "NET/IB : %s:%d Got
        # async error event: %s", v2.30.7-1 src/transport/net_ib/common.cc line 179 "NET/IB : %s:%d Got non-fatal
        # async event: %s(%d)".
        (r"NET/IB : (?:(?P<port>[\w.-]{1,64}:\d+) )?Got (?:async event :|async error event:|non-fatal async "
         r"event:) port error",),
        84,
    ),
    Cause(
        "hca-fatal-error",
        "the network card (HCA) {device} hit a fatal error (IBV_EVENT_DEVICE_FATAL): its firmware or driver "
        "stopped it, and every connection on it failed",
        "the node needs its card reset or a reboot (the admins: `mlxfwreset`, or a reboot, and `dmesg` for the "
        "mlx5_core messages that explain it); resubmit without the node (`--exclude=NODE`)",
        # IBV_EVENT_DEVICE_FATAL, "local catastrophic error" (rdma-core libibverbs/enum_strs.c): NCCL v2.18.5-1 and
        # v2.21.5-1 print it as any async event (above), v2.23.4-1 src/transport/net_ib.cc line 140 and v2.30.7-1
        # src/transport/net_ib/common.cc line 123 WARN("NET/IB : %s:%d async fatal event: %s", ...).
        (r"NET/IB : (?:(?P<device>[\w.-]{1,64}:\d+) )?(?:Got async event :|async fatal event:) local catastrophic "
         r"error",),
        86,
    ),

    # --- the scheduler ended the job for another's sake ------------------------------------------------------------
    Cause(
        "slurm-preempted",
        "Slurm ended the job to give its nodes to another job ({why}): a preemptible partition or QOS, not a "
        "failure of the job",
        "submit to a partition or QOS that is not preemptible, or make the job resumable and let Slurm requeue it "
        "(`--requeue`; the job scripts resume from `RUN_DIR=runs/<jobid>`); `sacct -j JOBID -o JobID,State,Reason` "
        "says PREEMPTED",
        # Slurm 25.11.7 src/slurmd/slurmstepd/req.c line 929 error("*** %s ON %s CANCELLED AT %s DUE TO PREEMPTION
        # ***", ...) and line 938 "... DUE TO JOB REQUEUE ***".
        (r"CANCELLED AT \S+ DUE TO (?P<why>PREEMPTION|JOB REQUEUE) \*\*\*",),
        58,
    ),

    # --- Gloo's TCP device: the address each rank binds and advertises -------------------------------------------
    # Gloo (pytorch/gloo, torch's third_party/gloo) gloo/common/logging.cc EnforceNotMet: "[enforce fail at
    # FILE:LINE] CONDITION. MESSAGE"; GLOO_ENFORCE_EQ adds "X vs Y" (gloo/common/logging.h). The lines are those of
    # gloo/transport/tcp/device.cc at commit 70dc360 (2026); commit 1d9e62a (2018, torch 1.x) prints the same words.
    Cause(
        "gloo-socket-ifname-invalid",
        "torch's Gloo backend found no interface called {iface} with an address on this node: GLOO_SOCKET_IFNAME "
        "names an interface the node lacks (another machine's name, a typo) or is written in NCCL's syntax "
        "(`^lo,docker`, prefixes), which Gloo does not take: it wants exact interface names",
        "set `GLOO_SOCKET_IFNAME` to the exact name of the interface with the node's address on every node "
        "(`ip -br addr` lists them, e.g. `GLOO_SOCKET_IFNAME=ib0`; several are comma-separated, never `^` "
        "exclusions), or unset it so Gloo binds the host name's address",
        # device.cc line 84 (lookupAddrForIface) GLOO_ENFORCE(ifa != nullptr, "Unable to find address for: ",
        # attr.iface); gloo/transport/uv/device.cc line 165 GLOO_ENFORCE(false, "Unable to find address for: ",
        # attr.iface) on the uv transport (Windows, macOS).
        (r"\b(?:ifa != nullptr|false)\. Unable to find address for: (?P<iface>\S{1,100})",),
        86,
    ),
    Cause(
        "gloo-hostname-unresolved",
        "torch's Gloo backend could not bind an address of this host's name ({host}): the name does not resolve "
        "on the node (no DNS or /etc/hosts entry, a container's own host name), or resolves to an address that "
        "is not on the node; Gloo binds the host name's address when GLOO_SOCKET_IFNAME is not set",
        "set `GLOO_SOCKET_IFNAME` to the interface with the node's address (`ip -br addr`, e.g. "
        "`GLOO_SOCKET_IFNAME=ib0`): Gloo then uses that interface's address, not the host name's; or make the name "
        "resolve to the node's address (`getent hosts $(hostname)` on the node shows what it resolves to)",
        # device.cc (lookupAddrForHostname) line 99 GLOO_ENFORCE_EQ(rv, 0) on getaddrinfo's result ("rv == 0. -2 vs
        # 0": EAI_NONAME; -3 EAI_AGAIN, -5 EAI_NODATA), line 128 GLOO_ENFORCE(bind_rv == 0, "Unable to find address
        # for ", attr.hostname, "; bind(2) for ", bind_addr, " failed with: ", strerror(bind_errno)), line 138
        # GLOO_ENFORCE(rp != nullptr, "Unable to find address for: ", attr.hostname) (1d9e62a line 124, the same
        # words; gloo/transport/uv/device.cc line 154 too).
        (r"\brp != nullptr\. Unable to find address for: (?P<host>\S{1,255})",
         r"\bbind_rv == 0\. Unable to find address for (?P<host>[^;\s]{1,255}); bind\(2\) for \S{1,100} failed with: ",
         r"/device\.cc:\d{1,5}\] rv == 0\. -(?:2|3|5) vs 0\b"),
        86,
    ),
    Cause(
        "gloo-address-family-mismatch",
        "torch's Gloo backend paired an IPv4 address (family 2) with an IPv6 one (family 10): on hosts with both "
        "families the ranks bound addresses of different families (their host names or interfaces resolve "
        "differently), and Gloo connects a pair only within one family",
        "give every rank the same family: set `GLOO_SOCKET_IFNAME` to an interface that has an IPv4 address on "
        "every node (`ip -br addr`), or have every node's host name resolve to its IPv4 address first (/etc/hosts, "
        "or `precedence ::ffff:0:0/96 100` in /etc/gai.conf); `getent ahosts $(hostname)` on each node shows the "
        "order",
        # device.cc line 288 (Device::isInitiator) GLOO_ENFORCE_EQ(ss1.ss_family, ss2.ss_family): "ss1.ss_family ==
        # ss2.ss_family. 2 vs 10" (AF_INET 2, AF_INET6 10; the uv transport's device.cc line 261 the same).
        (r"\bss1\.ss_family == ss2\.ss_family\. (?:2 vs 10|10 vs 2)\b",),
        86,
    ),

    # --- PMIx's rendezvous: the socket and the contact file its server writes --------------------------------------
    Cause(
        "pmix-socket-path-too-long",
        "the PMIx server's rendezvous socket would be longer than a Unix-domain socket's path may be (108 bytes on "
        "Linux, 104 on macOS): it is made under the temporary directory (TMPDIR, or Open MPI's session directory "
        "under it), which is too deep, so MPI could not start",
        "point TMPDIR at a short path before the launch (`export TMPDIR=/tmp`; inside a container too), or give "
        "Open MPI a short session directory (`--mca orte_tmpdir_base /tmp`, Open MPI 5: `--prtemca "
        "prte_tmpdir_base /tmp`)",
        # PMIx 1.1.2 (Open MPI v2.1.6 opal/mca/pmix/pmix112/pmix/src/server/pmix_server.c line 238) fprintf(stderr,
        # "PMIx has detected a temporary directory name that results\n"); PMIx v3.2.5 and v4.2.9
        # src/server/help-pmix-server.txt line 11 [rnd-path-too-long] "The PMIx server was unable to setup a
        # rendezvous file due to your\nsystem's restriction for Unix's socket's path-length."
        (r"PMIx has detected a temporary directory name that results",
         r"The PMIx server was unable to setup a rendezvous file due to your"),
        88,
        context=(r"^\s{0,8}Temp(?:orary)? dir(?:ectory)?: ",),
    ),
    Cause(
        "pmix-rendezvous-file-unusable",
        "the PMIx server could not create its rendezvous (contact) file{path}: a file of that name is already "
        "there, left by an earlier job or owned by another user (a fixed path in a directory every job shares, "
        "such as /tmp), or the directory is not writable; the server did not start, so MPI could not start",
        "remove the stale file if it is yours (`ls -l` the path named), and give each job its own directory: a "
        "per-job TMPDIR (`export TMPDIR=$(mktemp -d)` or the job's scratch), or an Open MPI/PMIx "
        "release that puts the contact file in the job's session directory",
        # PMIx v4.2.9 src/mca/ptl/base/ptl_base_listener.c line 217 (the rendezvous files) and line 597 (the URI
        # report file) pmix_output(0, "Impossible to open the file %s in write mode\n", ...);
        # src/server/help-pmix-server.txt line 20 [listener-failed-start] "The PMIx server was unable to setup a
        # rendezvous point. This is\nusually due to a conflicting stale named pipe from a prior failed\njob, ...".
        # Line 205: the directory for it, pmix_output(0, "System tmpdir %s could not be created\n", dirname).
        (r"Impossible to open the file(?P<path> \S{1,300}) in write mode",
         r"The PMIx server was unable to setup a rendezvous point\. This is",
         r"System tmpdir(?P<path> \S{1,300}) could not be created"),
        86,
    ),

    # --- Slurm's munge authentication between the nodes and the controller -----------------------------------------
    Cause(
        "munge-credential-invalid",
        "Slurm's daemons rejected a munge credential as invalid: the hosts do not share the same munge key "
        "(/etc/munge/munge.key differs, or munged was restarted on one host with a new key), so messages between "
        "them fail authentication",
        "the admins: the same /etc/munge/munge.key on every host (controller, login and compute nodes; owned by "
        "munge, mode 0400), then restart munged and the Slurm daemons; `munge -n | ssh NODE unmunge` tests a pair "
        "of hosts",
        # Slurm 25.11.7 src/plugins/auth/munge/auth_munge.c line 552 error("Munge decode failed: %s",
        # munge_ctx_strerror(ctx)); munge-0.5.18 src/libmunge/strerror.c line 68 EMUNGE_CRED_INVALID "Invalid
        # credential" (the MAC check failed: another key).
        (r"\bMunge decode failed: Invalid credential\b",),
        84,
    ),
    Cause(
        "slurm-job-credential-refused",
        "slurmd on {node} refused the job's credential when Slurm launched the tasks ({why}): an expired or "
        "revoked credential is a node whose clock is ahead of the controller's (or a launch that took longer than "
        "the credential lives), an invalid one a node that does not share the controller's credential key (munge "
        "key, or slurm.key with auth/slurm)",
        "the admins: synchronise the node's clock with the controller's (chrony/ntpd; `date` on both), and give "
        "every host the same key (/etc/munge/munge.key or slurm.key), then restart slurmd; meanwhile resubmit with "
        "`--exclude=NODE`",
        # Slurm 25.11.7 src/api/step_launch.c error("Task launch for %ps failed on node %s: %m", ...) with
        # src/common/slurm_errno.c line 978 ESLURMD_INVALID_JOB_CREDENTIAL "Invalid job credential", line 982
        # "Job credential revoked", line 986 "Job credential expired".
        (r"Task launch for \S{1,100} failed on node (?P<node>[\w.-]{1,100}): (?P<why>Invalid job credential|Job "
         r"credential revoked|Job credential expired)",),
        84,
    ),
    Cause(
        "slurm-user-uid-differs-across-nodes",
        "slurmd refused the controller's own requests (ping, health check, job kill) as a security violation: the "
        "uid they came with (uid {uid}, the controller's SlurmUser) is neither root nor the SlurmUser of this "
        "node, so the Slurm user's uid (or slurm.conf's SlurmUser) differs between the controller and the node",
        "the admins: give the Slurm user one uid and gid on every host (controller, backup and compute nodes: "
        "`id slurm` on each; a cluster manager's uid override must be set on every node group), keep slurm.conf's "
        "SlurmUser the same everywhere, then restart slurmd and slurmctld; the node comes back once its pings "
        "are accepted",
        # Slurm 22.05 to 25.05 src/slurmd/slurmd/req.c (25.05.5 lines 3418, 3469, 5333) error("Security violation,
        # ping RPC from uid %u", ...), "Security violation, health check RPC from uid %u", "Security violation:
        # kill_job(%u) from uid %u"; 25.11.7 checks every RPC the controller sends in one place, line 5203
        # error("Security violation: %s req from uid %u", rpc_num2string(msg->msg_type), ...) for the slurmd_rpcs
        # marked from_slurmctld (ping, health check, terminate, launch, prolog, registration, ...), whose sender
        # _slurm_authorized_user() (line 4668) takes only as uid 0 or slurm_conf.slurm_user_id. Not the RPCs
        # users send (a step's own, with the job's uid): those are "%s from uid %u" for other reasons.
        (r"Security violation, (?:ping|health check) RPC from uid (?P<uid>\d+)",
         r"Security violation: kill_job\(\d+\) from uid (?P<uid>\d+)",
         r"Security violation: REQUEST_(?:PING|HEALTH_CHECK|TERMINATE_JOB|KILL_TIMELIMIT|KILL_PREEMPTED|ABORT_JOB"
         r"|LAUNCH_PROLOG|BATCH_JOB_LAUNCH|NODE_REGISTRATION_STATUS|ACCT_GATHER_UPDATE) req from uid (?P<uid>\d+)"),
        84,
    ),
    Cause(
        "munge-clock-skew",
        "Slurm's daemons rejected a munge credential as {why}: the hosts' clocks disagree (a credential is valid "
        "for a few minutes from when it was made), so messages between them fail authentication",
        "the admins: synchronise the hosts' clocks (chrony/ntpd on every node; `date` on the controller and the "
        "node shows the gap), then retry",
        # Slurm 25.11.7 auth_munge.c line 552 "Munge decode failed: %s" and, for a rewound credential, line 556
        # error("Check for out of sync clocks"); munge-0.5.18 strerror.c line 70 "Expired credential", line 72
        # "Rewound credential".
        (r"\bMunge decode failed: (?P<why>Expired credential|Rewound credential)\b",),
        84,
    ),
    Cause(
        "munged-unreachable",
        "Slurm could not reach the munge daemon on this host to sign or check a credential ({why}): munged is not "
        "running there, or its socket is elsewhere than Slurm looks (a container without /run/munge)",
        "the admins: start munged on the host (`systemctl status munge`); in a container that runs Slurm commands, "
        "bind the host's socket (`--bind /run/munge`) or use Slurm's commands outside it",
        # Slurm 25.11.7 auth_munge.c line 246 error("Munge encode failed: %s", ...) and line 552 (decode);
        # munge-0.5.18 src/libmunge/m_msg_client.c line 183 strdupf("Failed to access \"%s\": %s (%s)", ...) and
        # strerror.c "Socket communication error" (EMUNGE_SOCKET).
        (r"\bMunge (?:en|de)code failed: (?P<why>Failed to access \"[^\"]{1,200}\": [^\n]{1,100}|Socket "
         r"communication error)",),
        84,
    ),

    # --- Slurm's gres.conf that slurmd cannot map onto the node ------------------------------------------------------
    Cause(
        "gres-conf-invalid-cores-spec",
        "Slurm could not read the cores gres.conf gives a {gres} device ({cores}) on {node}: the list is not core "
        "indices of that node (CPU ids of hyperthreads, the old CPUs= values, cores beyond the node's count), so "
        "the node's GPUs are not registered as configured",
        "the admins: give each GPU's cores with `Cores=` as core indices of the node (0 to cores-1; `slurmd -C` "
        "and `nvidia-smi topo -m` show the layout), or let Slurm find them (`AutoDetect=nvml`), then restart slurmd",
        # Slurm 25.11.7 src/interfaces/gres.c line 3881 error("%s: %s: invalid GRES core specification (%s) on node
        # %s", __func__, gres_ctx->gres_type, gres_slurmd_conf->cpus, rebuild_topo->node_name).
        (r"\b(?P<gres>gres/\w{1,40}): invalid GRES core specification \((?P<cores>[^)\n]{1,200})\) on node "
         r"(?P<node>\S{1,100})",),
        84,
    ),

    # --- Slurm's GPU core affinity against the node's sockets ----------------------------------------------------
    Cause(
        "gres-autodetect-affinity-not-socket-aligned",
        "slurmd refused the cores Slurm has for a {gres} device ({cores}): the GPU's core affinity (autodetected from "
        "the driver's topology with AutoDetect=nvml, or given with Cores= in gres.conf) does not fall on the socket "
        "boundaries the node's definition in slurm.conf gives (on CPUs with several L3 caches or NUMA nodes per "
        "package a GPU is close to part of a socket), so the node's GPUs are not registered and the node is set down",
        "the admins: make Slurm's sockets match the hardware: `slurmd -C --parameters=l3cache_as_socket` (or "
        "`numa_node_as_socket`) prints the node line to use; put `Parameters=l3cache_as_socket` with the "
        "SocketsPerBoard and CoresPerSocket it gives on the node's line in slurm.conf (or SlurmdParameters= for all "
        "nodes), then restart slurmd; or give each GPU whole sockets' cores with `Cores=` in gres.conf",
        # Slurm 25.11.7 src/interfaces/gres.c line 3838 xstrdup_printf("%s GRES autodetected core affinity %s on node
        # %s doesn't match socket boundaries. (Socket %d is cores %d-%d). " "Consider setting
        # Parameters=l3cache_as_socket as part of the Node configuration.", ...) (25.05 words its advice
        # "SlurmdParameters=l3cache_as_socket"), line 3844 "%s GRES core specification %s for node %s doesn't match
        # socket boundaries. (Socket %d is cores %d-%d)" for Cores= from gres.conf, both logged with
        # error("%s: %s", __func__, tmp) from _check_core_range_matches_sock; 24.11 (gres.c line 3720) "%s GRES core
        # specification %s doesn't match socket boundaries. (Socket %d is cores %d-%d)" for either. Slurm's
        # gres.shtml ("GPU core affinity") gives the fix.
        (r"(?P<gres>gres/\w{1,40}) GRES autodetected core affinity (?P<cores>\S{1,200}) on node (?P<node>\S{1,100}) "
         r"doesn't match socket boundaries",
         r"(?P<gres>gres/\w{1,40}) GRES core specification (?P<cores>\S{1,200}) for node (?P<node>\S{1,100}) "
         r"doesn't match socket boundaries",
         r"(?P<gres>gres/\w{1,40}) GRES core specification (?P<cores>\S{1,200}) doesn't match socket "
         r"boundaries"),
        84,
    ),

    # --- Slurm's auth/slurm plugin without its key ---------------------------------------------------------------
    Cause(
        "slurm-auth-key-missing",
        "a Slurm daemon or command could not read the key of Slurm's own authentication (auth/slurm, {path}): the "
        "file is not on this host or not readable, so the auth plugin does not start and the daemon exits (and "
        "restarts over and over under systemd); a cluster switched from munge to auth/slurm in place never had the "
        "key made and copied if its deployment makes it only when a node is first set up",
        "the admins: make the key once (`dd if=/dev/random of=/etc/slurm/slurm.key bs=1024 count=1`), copy the "
        "same file to every host (controller, login and compute nodes; `chown slurm:slurm`, `chmod 600`), then "
        "restart the daemons; a Google Cloud Cluster Toolkit cluster makes the key only at a node's first boot: "
        "redeploy it (`gcluster destroy`, then deploy) rather than updating it in place",
        # Slurm 25.11.7 src/plugins/auth/slurm/internal.c line 76 fatal("%s: cannot stat '%s': %m", plugin_type,
        # path) (the same since 23.11, line 66) and line 228 fatal("%s: Could not load key file (%s)", ...), with
        # plugin_type "auth/slurm" (auth_slurm.c line 82); 24.05 line 187 "Could not load keys file (%s)" for
        # slurm.jwks. Slurm's authentication.shtml gives the key's making and its owner and mode.
        (r"auth/slurm: cannot stat '(?P<path>[^'\n]{1,200})': (?:No such file or directory|Permission denied)",
         r"auth/slurm: Could not load keys? file \((?P<path>[^)\n]{1,200})\)"),
        84,
    ),

    # --- slurmd's cgroup/v2 plugin in a cgroup that lacks the controllers it needs -------------------------------
    Cause(
        "slurmd-manual-start-cgroup-controllers-disabled",
        "slurmd's cgroup/v2 plugin found the {ctl} controller not enabled in the cgroup slurmd runs in, so it could "
        "not initialise and slurmd exited: Slurm checks this only when INVOCATION_ID is set (it takes that as "
        "started by systemd), which a slurmd started by hand from a terminal of a systemd session inherits "
        "(user.slice, whose cgroup enables no cpu or cpuset), or slurmd ran under a unit without Delegate=yes",
        "the admins: start slurmd through its unit (`systemctl start slurmd`; the unit Slurm ships has "
        "`Delegate=yes`); to run it by hand for debugging, drop the variable first (`env -u INVOCATION_ID slurmd "
        "-Dvvv`); `cat /proc/$(pgrep -o slurmd)/cgroup` and that cgroup's cgroup.controllers show where it runs and "
        "what is enabled there",
        # Slurm 25.11.7 src/plugins/cgroup/v2/cgroup_v2.c line 551 error("Controller %s is not enabled!", ...),
        # printed only when getenv("INVOCATION_ID") (line 1640) is set, for a controller missing from the cgroup's
        # cgroup.controllers; then line 1838 error("%s cgroup controller is not available.", ...) and
        # src/plugins/jobacct_gather/cgroup/jobacct_gather_cgroup.c line 163 error("There's an issue initializing
        # memory or cpu controller"). Slurm's cgroup_v2.shtml: "start slurmd through a unit file, or unset the
        # INVOCATION_ID environment variable".
        (r"\bController (?P<ctl>cpuset|cpu|memory|pids|io) is not enabled!",
         r"\b(?P<ctl>cpuset|cpu|memory|pids|io) cgroup controller is not available(?: for \S{1,200})?\."),
        84,
        applies=lambda log: log.has(_SLURMD_CGROUP_INIT_FAILED),
        context=(r"There's an issue initializing memory or cpu controller", r"Unable to initialize jobacct_gather"),
    ),

    Cause(
        "slurmd-cgroup-fs-read-only",
        "slurmd could not create its cgroup ({path}): the cgroup filesystem is mounted read-only where slurmd runs "
        "(a container or Kubernetes pod started without privileges, which gets /sys/fs/cgroup read-only), so its "
        "cgroup plugins cannot confine or account for jobs",
        "the admins: run slurmd where it may write the cgroup tree: a privileged container or pod (`privileged: "
        "true`, or the cgroup mounted read-write with its own cgroup namespace), or slurmd on the host; "
        "`grep cgroup /proc/mounts` inside shows `ro`; a slurmd that must stay unprivileged needs a "
        "cgroup.conf without cgroup plugins (`CgroupPlugin=disabled`, with task/cgroup and proctrack/cgroup out of "
        "slurm.conf)",
        # Slurm 25.11.7 src/plugins/cgroup/common/cgroup_common.c line 371 (common_cgroup_instantiate) error("%s:
        # unable to create cgroup '%s' : %m", __func__, file_path) when mkdir() fails other than EEXIST (22.05.11
        # line 486; 20.11 src/slurmd/common/xcgroup.c line 444): strerror(EROFS) "Read-only file system".
        (r"unable to create cgroup '(?P<path>/[^'\n]{1,300})' : Read-only file system",),
        84,
    ),

    # --- Slurm's network topology that cannot place the job ------------------------------------------------------
    Cause(
        "slurm-topology-missing-node",
        "Slurm's topology plugin could not place the job ({what}): the nodes it may use are not all under one "
        "switch (or block) of the cluster's topology (topology.conf, topology.yaml), most often because a node was "
        "added to the partition but not to the topology file, so it sits on no switch; or the job asked for a "
        "topology that is not active",
        "`scontrol show topology` lists the switches and their nodes: a node of the partition that no switch lists "
        "must be added to the topology (the admins edit topology.conf or rerun the site's generator, e.g. OCI HPC's "
        "`generate_slurm_topology.py`, then `scontrol reconfigure`); meanwhile submit without `--switches` or "
        "`--topology=` and exclude the node (`--exclude=NODE`)",
        # Slurm 25.11.7 src/common/slurm_errno.c line 882 ESLURM_REQUESTED_TOPO_CONFIG_UNAVAILABLE "Requested
        # topology configuration is not available", returned by src/plugins/topology/tree/eval_nodes_tree.c (lines
        # 347, 355: "unable to identify top level switch", "requires nodes that do not have shared network"), the
        # block plugin's eval_nodes_block.c and src/interfaces/topology.c line 650 ("topology %s not active"); the
        # controller's warning at reading the file: src/plugins/topology/tree/switch_record.c line 552
        # warning("switches lack access to %d nodes: %s", ...), block_record.c line 338 "Blocks lack access to %d
        # nodes: %s".
        (r"(?P<what>Requested topology configuration is not available)",
         r"(?P<what>(?:switches|Blocks) lack access to \d{1,6} nodes: \S{1,200})"),
        82,
    ),
    # --- Slurm's SPANK plugin stack, read by srun and by every step's slurmstepd ------------------------------------
    Cause(
        "slurm-spank-plugin-failed",
        "Slurm could not load its SPANK plugin stack ({what}): plugstack.conf (or a file in its include directory) "
        "that cannot be read or parsed, or a plugin that does not load (built for another Slurm, a missing "
        "library), so srun or the step stopped before any task ran",
        "the admins: every file plugstack.conf includes (`include /etc/slurm/plugstack.conf.d/*`) must be a "
        "readable plugin line (no editor or `sed -i` temporary files left there), and every plugin built for this "
        "Slurm version; `srun -N1 true` on a node shows the same error; `scontrol show config | grep -i plugstack` "
        "names the file",
        # Slurm 25.11.7 src/common/spank.c line 570 error("spank: Failed to open %s: %m", path) (line 572 in 23.11,
        # src/common/plugstack.c line 569 in 20.11), line 342 error("spank: %s: %s", path, slurm_strerror(e)) for a
        # required plugin that did not load, line 349 error("spank: \"%s\" exports 0 symbols", path); srun's
        # src/srun/srun_job.c line 699 error("Plug-in initialization failed") when spank_init() failed.
        # A plugin's load error stops the stack only for a required plugin (an optional one's is logged and
        # skipped): read where the stack did fail (srun's line, slurmstepd's src/slurmd/slurmstepd/task.c line 438
        # "Failed to invoke spank plugin stack", or the unreadable file itself).
        (r"spank: (?P<what>Failed to open \S{1,300}: [^\n]{1,100})",
         r"spank: (?P<what>\S{1,300}\.so: [^\n]{1,100})",
         r"spank: (?P<what>\"\S{1,300}\" exports 0 symbols)",
         r"(?:^|\s)srun: error: (?P<what>Plug-in initialization failed)"),
        83,
        applies=lambda log: log.has(_SPANK_STACK_FAILED),
    ),

    # --- torch's rendezvous given an address it cannot read -------------------------------------------------------
    Cause(
        "rendezvous-endpoint-malformed",
        "torch could not read the rendezvous address it was given ({what}): an endpoint built from an empty or "
        "wrong variable (`--rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT` with one of them unset), a port that is not a "
        "number, or a tcp:// init_method without its port",
        "give the launcher `HOST:PORT` with both set, e.g. `--rdzv_endpoint=$(scontrol show hostnames "
        "\"$SLURM_JOB_NODELIST\" | head -n 1):29500` (PBS: the first line of `$PBS_NODEFILE`), or "
        "`init_method='tcp://HOST:29500'`; print the command line in the job script (`set -x`) to see what "
        "torchrun received",
        # torch v2.13.0 torch/distributed/elastic/rendezvous/utils.py (parse_rendezvous_endpoint) line 102
        # f"The port number of the rendezvous endpoint '{endpoint}' must be an integer " "between 0 and 65536." and
        # line 110 f"The hostname of the rendezvous endpoint '{endpoint}' must be a dot-separated list of "
        # "labels, an IPv4 address, or an IPv6 address."; torch/distributed/rendezvous.py line 218
        # _error("port number missing") as "Error initializing torch.distributed using tcp:// rendezvous: port
        # number missing".
        (r"(?P<what>The port number of the rendezvous endpoint '[^'\n]{0,300}' must be an integer)",
         r"(?P<what>The hostname of the rendezvous endpoint '[^'\n]{0,300}' must be a dot-separated list of labels)",
         r"(?P<what>tcp:// rendezvous: port number missing)"),
        90,
    ),

    # --- squashfs images: the tools on the node that write and mount them ---------------------------------------------
    Cause(
        "mksquashfs-not-on-batch-path",
        "Apptainer/Singularity could not find mksquashfs, which writes the SIF image (`pull`, `build`, `run "
        "docker://...`): the job's PATH lacks the directory it is installed in (/usr/sbin, which a batch job's PATH "
        "often leaves out while the login shell has it), or squashfs-tools is not installed on that node",
        "add its directory to the job's PATH before the pull: `export PATH=\"$PATH:/usr/sbin\"` (`ls "
        "/usr/sbin/mksquashfs /usr/bin/mksquashfs` on the node finds it), or build the image once on the login node "
        "and run the .sif in the job; where it is not installed the admins add squashfs-tools",
        # Apptainer v1.0.0 (line 197) to v1.4.5 internal/pkg/build/build.go line 196: return nil,
        # fmt.Errorf("while searching for mksquashfs: %v", err), with Go's exec.LookPath error `exec: "mksquashfs":
        # executable file not found in $PATH` (Singularity 3.x the same); ABCI's FAQ (batch jobs lack /usr/sbin).
        # Its siblings "while searching for mksquashfs processor limits" and "mem limits" are not this.
        (r"\bwhile searching for mksquashfs: ",),
        88,
    ),
    Cause(
        "squashfs-compression-unsupported",
        "the squashfs tools on the node cannot handle the image's compression ({what}): enroot compresses with lzo "
        "by default (ENROOT_SQUASH_OPTIONS `-comp lzo`), Apptainer with gzip unless told otherwise, and a "
        "mksquashfs or squashfuse built without that compressor refuses it",
        "use a compression both the node's mksquashfs and squashfuse support (the error lists them): for enroot "
        "`ENROOT_SQUASH_OPTIONS='-comp zstd -noD'` (or `-comp gzip`) in enroot.conf or the environment, then import "
        "again; for Apptainer `apptainer build --mksquashfs-args '-comp gzip' ...`; or `enroot create` the image "
        "and start the unpacked container",
        # squashfs-tools 4.6.1 squashfs-tools/mksquashfs.c line 6881 (4.4 line 5416) ERROR("%s: Compressor \"%s\" is
        # not supported!\n", argv[0], argv[i]) (enroot's own build prints it as enroot-mksquashovlfs); squashfuse
        # v0.5.1 util.c line 103 (v0.1 squashfuse.c line 446) fprintf(stderr, "Squashfs image uses %s compression,
        # this version supports only ", ...), which enroot relays as a [WARN] before "Failed to mount" and
        # Apptainer's squashfuse_ll in its "container creation failed".
        (r"(?P<what>Compressor \"\w{1,20}\" is not supported)!",
         r"(?P<what>Squashfs image uses \S{1,20} compression), this version supports only"),
        83,
    ),
    Cause(
        "enroot-fuse-tools-unsupported",
        "enroot could not mount the squashfs image ({what}): it mounts it with squashfuse and fuse-overlayfs, which "
        "must be FUSE 3 builds, and the node has FUSE 2 ones that refuse the mount options enroot passes",
        "the admins install the FUSE 3 builds (the distribution's `squashfuse` and `fuse-overlayfs` built against "
        "libfuse 3, `fuse3`), as enroot's requirements list them; meanwhile `enroot create IMAGE.sqsh` unpacks "
        "the image and `enroot start NAME` runs it without FUSE",
        # libfuse fuse-2.9.9 lib/fuse_lowlevel.c line 2545 fprintf(stderr, "fuse: unknown option `%s'\n", arg) for
        # the uid=/gid= enroot v4.1.2 src/runtime.sh line 149 passes (`squashfuse -f -o "uid=${euid},gid=${egid}"`);
        # enroot relays it as a [WARN] before line 207 common::err "Failed to mount: ${image}".
        (r"fuse: unknown option `(?P<what>[ug]id=\d+)'",),
        82,
        applies=lambda log: log.has(_ENROOT_MOUNT_FAILED),
    ),

    # --- file systems without POSIX locks ------------------------------------------------------------------------
    Cause(
        "file-locks-unsupported",
        "a lock on a file was refused because its file system does not implement POSIX locks ({why}): Lustre "
        "mounted without `flock`, an NFS mount with `nolock` or no lock daemon; programs that guard a shared "
        "cache or download with fcntl/flock (filelock, HF datasets, torch.compile and Triton caches) and MPI-IO's "
        "data sieving stop there",
        "point the lock's directory at a file system that has locks: caches on node-local disk (`TRITON_CACHE_DIR`, "
        "`HF_HOME`, `TORCHINDUCTOR_CACHE_DIR` under `$TMPDIR`), or ask the admins for `-o flock` (Lustre) or a "
        "working lockd (NFS); `python3 -c \"import fcntl; fcntl.lockf(open('PATH/x','w'), fcntl.LOCK_EX)\"` shows "
        "whether a directory allows them; MPI-IO (ROMIO) takes them for data sieving: a hints file with "
        "`romio_ds_write disable` and `romio_ds_read disable`, named by `ROMIO_HINTS=PATH`, turns that off",
        # CPython's fcntl module (Modules/fcntlmodule.c, 3.6 to 3.13: fcntl.lockf and fcntl.flock raise OSError
        # from errno) printed as "OSError: [Errno %d] %s": ENOLCK 37 "No locks available" (NFS without lockd),
        # ENOSYS 38 "Function not implemented" (Lustre's noflock), EOPNOTSUPP 95 "Operation not supported"; read
        # only where the log shows a lock call (the traceback's fcntl line, the filelock package).
        (r"OSError: \[Errno (?P<why>37\] No locks available|38\] Function not implemented"
         r"|95\] Operation not supported)",
         # ROMIO, MPI-IO's file layer (MPICH v3.3 src/mpi/romio/adio/common/lock.c line 180, v4.2.0 line 141):
         # FPRINTF(stderr, "This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH
         # Message: File locking failed in ADIOI_Set_lock(fd %X,cmd %s/%X,...) ..." (ADIOI_GEN_SetLock from 3.4),
         # printed when fcntl fails with any errno but EBADF, then perror("ADIOI_Set_lock:") and MPI_Abort: its
         # data-sieving writes lock byte ranges (GEOS-DEV/GEOS#1482, Lustre without flock).
         r"This requires fcntl\(2\) to be implemented\. As of 8/25/2011 it is not\. Generic MPICH Message: "
         r"(?P<why>File locking failed in ADIOI_\w{1,20})\(",
         r"\bADIOI_(?:Set_lock|GEN_SetLock):: (?P<why>No locks available|Function not implemented"
         r"|Operation not supported)"),
        73,
        applies=lambda log: log.has(_LOCK_CALL),
    ),

    # --- Slurm's GRES core bitmap of another size than the node's cores ------------------------------------------
    Cause(
        "slurm-gres-core-bitmap-stale-at-startup",
        "Slurm's controller holds a GPU (GRES) core bitmap for node {node} whose size is not the node's core count, "
        "so it finds no cores for the GPUs and no job asking for them can run there: Slurm 23.02.0 to 23.02.5 did "
        "not rebuild the bitmap when slurmctld started (fixed in 23.02.6); on later releases the node's cores in "
        "slurm.conf (Sockets, CoresPerSocket) differ from gres.conf's Cores= or from what slurmd found",
        "for the admins: on Slurm 23.02 before 23.02.6 upgrade (or restart slurmctld after every slurmd has "
        "registered); otherwise make the node's line in slurm.conf match `slurmd -C` on the node and gres.conf's "
        "`Cores=` fit inside it, then `scontrol reconfigure`; the job can go to other nodes meanwhile "
        "(`--exclude={node}`)",
        # Slurm 25.11.7 src/plugins/select/cons_tres/gres_sock_list.c line 333 error("%s: Core bitmaps size mismatch
        # on node %s", __func__, node_name), where the node's sockets x cores differ from the job's or the GRES'
        # topo_core_bitmap; CHANGELOG/slurm-23.02.md (23.02.6): "gres - Rebuild GRES core bitmap for nodes at
        # startup. This fixes error: "Core bitmaps size mismatch on node [HOSTNAME]", which causes jobs to enter
        # state "Requested node configuration is not available"".
        (r"Core bitmaps size mismatch on node (?P<node>\S{1,100})",),
        101,
    ),

    # --- torch.load's weights-only unpickler, the default since torch 2.6 ------------------------------------------
    Cause(
        "torch-load-weights-only-default",
        "torch.load refused a checkpoint because it unpickles with weights_only=True (the default since torch 2.6) "
        "and the file holds a Python object that is not on its allowlist (the lines below name it): a checkpoint "
        "saved with extra objects (argparse.Namespace, numpy scalars, a whole model) by code written for torch "
        "before 2.6, or a library that calls torch.load itself",
        "for a file you or a source you trust wrote: allowlist the class it names, `torch.serialization."
        "add_safe_globals([argparse.Namespace])` (or `with torch.serialization.safe_globals([...]):` around the "
        "load), or pass `torch.load(path, weights_only=False)`; where a library makes the call, upgrade it to a "
        "release that passes weights_only or allowlists its classes, or set `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1` "
        "(only where the call did not pass weights_only, and only for trusted files: it allows arbitrary code); "
        "better, save plain state_dicts and plain numbers (`float(x)`, `vars(args)`)",
        # torch v2.13.0 torch/_weights_only_unpickler.py line 378 raise UnpicklingError(f"Unsupported global: GLOBAL
        # {full_path} was not an allowed global by default. Please use `torch.serialization.add_safe_globals(...)`
        # ..."), which torch/serialization.py _get_wo_message() (lines 1446 to 1473) wraps as "Weights only load
        # failed. ...\n\tWeightsUnpickler error: " + message, or line 1465 f"Weights only load failed.
        # {UNSAFE_MESSAGE}\n" for the unpickler's other refusals (UNSAFE_MESSAGE, line 76: "In PyTorch 2.6, we
        # changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. ...").
        (r"Unsupported global: GLOBAL \S{1,300} was not an allowed global by default", r"Weights only load failed\."),
        83,
    ),

    # --- DeepSpeed's fp16 dynamic loss scaler at its floor ---------------------------------------------------------
    Cause(
        "deepspeed-fp16-loss-scale-exhausted",
        "DeepSpeed's fp16 dynamic loss scaler reached its minimum and the gradients still overflow, so every step "
        "is skipped (or the run stops): the model's values do not fit fp16, most often a model trained in bf16 "
        "run in fp16, or a learning rate or initial loss scale that makes the loss diverge",
        "train in bf16 where the GPUs have it (`\"bf16\": {\"enabled\": true}` instead of the `fp16` section; A100, "
        "H100 and GH200 do) or in fp32; if fp16 must stay: lower the learning rate, raise `initial_scale_power` "
        "(e.g. 16), or `loss_scale_window`/`hysteresis` in the `fp16` section, and check the data for NaN/inf",
        # DeepSpeed v0.16.4 deepspeed/runtime/fp16/loss_scaler.py line 175 (v0.14.0 the same): DynamicLossScaler.
        # update_scale() raise Exception("Current loss scale already at minimum - cannot decrease scale anymore.
        # Exiting run.") with raise_error_at_min_scale; otherwise line 182 logs f" Attempted loss scale:
        # {int(self.cur_scale)}, reducing to {int(next_scale)}" after "[deepspeed] OVERFLOW! Rank {rank} Skipping
        # step." (line 180), min_scale 1 by default (FP16_MIN_LOSS_SCALE_DEFAULT, runtime/constants.py line 181);
        # before 0.8 ZeRO's optimizers (v0.5.10 deepspeed/runtime/zero/stage_1_and_2.py line 1644) "[deepscale]
        # OVERFLOW! Rank {} Skipping step. Attempted loss scale: {}, reducing to {}". A scale of 1 reduced to 1 is
        # the floor; overflows at higher scales are the scaler working.
        (r"Current loss scale already at minimum - cannot decrease scale anymore",
         r"\[deep(?:speed|scale)\] OVERFLOW! Rank \d{1,6} Skipping step\. Attempted loss scale: 1(?:\.0)?, reducing "
         r"to 1(?:\.0)?\s{0,8}$"),
        82,
    ),

    # --- UCX's own messages (Open MPI's, Cray MPICH's and HPC-X's transport), v1.12 to v1.19 ----------------------
    Cause(
        "ucx-ib-memory-registration-enomem-reg-methods",
        "UCX could not register a buffer with the InfiniBand card (ibv_reg_mr: Cannot allocate memory) although the "
        "locked-memory limit is unlimited (UCX adds \"Please set max locked memory\" to this line whenever the limit "
        "is finite): the registration path ran out elsewhere, its registration cache or on-demand paging, or the "
        "card's registration tables, so the send that needed the buffer failed",
        "register buffers directly, without UCX's registration cache and on-demand paging: UCX up to 1.15 "
        "`export UCX_IB_REG_METHODS=direct` before srun/mpirun (ARCHER2's documented workaround; `mpirun -x "
        "UCX_IB_REG_METHODS=direct`), later UCX `export UCX_RCACHE_ENABLE=n`; if it persists, fewer ranks per "
        "node or smaller messages keep less memory registered at once, and the admins check the HCA driver's "
        "limits (mlx5's log_num_mtt on older cards); where the line does say \"Please set max locked memory\" "
        "see memlock-too-low",
        (_UCX_REG_MR_ENOMEM_UNLIMITED,),
        84,
        # UCX logs a registration it could not make and may go on with another memory domain: a cause only where
        # the send or the MPI run failed on it.
        applies=lambda log: log.has(_UCX_REG_FAILED_RUN),
        context=(r"failed to register user buffer datatype", r"failed to register address 0x[0-9a-f]+"),
    ),
    Cause(
        "ucx-posix-shm-proc-link-permission-denied",
        "UCX's shared-memory transport (posix) could not open another rank's segment through its /proc/<pid>/fd "
        "link ({why}): UCX shares the segment that way by default (UCX_POSIX_USE_PROC_LINK=y) and the kernel "
        "refuses the open where the ranks of a node run as different users, in different containers or user "
        "namespaces, or a security module denies it, so the ranks' shared-memory endpoints could not connect",
        "tell UCX to share the segment by its file path instead: `export UCX_POSIX_USE_PROC_LINK=n` (Open MPI: "
        "`mpirun -x UCX_POSIX_USE_PROC_LINK=n ...`), or run the ranks of a node as one user in one container; "
        "leaving the posix transport out (`UCX_TLS=^posix`, UCX then uses sysv or cma) also avoids it",
        # UCX v1.12.0 src/uct/sm/mm/posix/mm_posix.c line 218 (v1.19.0 line 238) ucs_error("%s(file_name=%s
        # flags=0x%x) failed: %m", func, file_name, open_flags) from uct_posix_procfs_open with the path
        # UCT_POSIX_PROCFS_FILE_FMT "/proc/%d/fd/%d"; its consequence, mm_ep.c's "mm ep failed to connect to remote
        # FIFO id 0x%"PRIx64": %s" (v1.12.0 src/uct/sm/mm/base/mm_ep.c line 171). openucx/ucx#4224.
        (r"\bopen\(file_name=/proc/\d{1,10}/fd/\d{1,10} flags=0x[0-9a-f]{1,8}\) failed: "
         r"(?P<why>Permission denied|Operation not permitted)",),
        86,
        context=(r"mm ep failed to connect to remote FIFO id",),
    ),
    Cause(
        "hpcx-ucx-rc-verbs-remote-access-error-large-sends",
        "a send on UCX's rc_verbs transport (rc_v) completed with a remote access error (the peer's card refused "
        "the RDMA access): HPC-X 2.23 and 2.24 list this for relatively large sends on rc_v (NVIDIA's known issue "
        "4422894); a program that frees or reuses a buffer before its transfer completed gives the same status",
        "leave rc_v out of UCX's transports: `export UCX_TLS=^rc_v` (Open MPI: `mpirun -x UCX_TLS=^rc_v`), so UCX "
        "uses rc_mlx5 or dc for the same link, the workaround HPC-X's release notes give; if the error stays on "
        "those transports too, look at the program's buffers (freed or reused before the transfer completed)",
        # UCX v1.19.0 src/uct/ib/rc/verbs/rc_verbs_iface.c line 124 (v1.12.0 line 121) ucs_log(log_lvl, "send
        # completion with error: %s [qpn 0x%x wrid 0x%lx vendor_err 0x%x]\n%s", ibv_wc_status_str(wc->status), ...):
        # rdma-core's string for IBV_WC_REM_ACCESS_ERR is "remote access error" (libibverbs/enum_strs.c); the file
        # and line are UCX's log prefix ("%13s:%-4u").
        (r"\brc_verbs_iface\.c:\d{1,5}\b.{0,60}send completion with error: remote access error",),
        80,
    ),
    Cause(
        "ucx-cuda-ipc-gdrcopy-same-buffer-registration-conflict",
        "UCX's cuda_ipc transport failed its check that a remote offset lies inside the peer's registered GPU "
        "buffer: NVIDIA lists this for HPC-X 2.17 (known issue 3606732), intra-node transfers of CUDA buffers "
        "where cuda_ipc and gdrcopy register the same buffer and conflict (it may print \"gdr_map failed\" instead)",
        "upgrade HPC-X/UCX past 2.17 (NVIDIA lists no workaround for 2.17); to keep the two transports from "
        "registering the same buffer, leave gdrcopy out of UCX: `export UCX_TLS=^gdr_copy` (intra-node GPU "
        "transfers then go through cuda_ipc and cuda_copy)",
        # UCX v1.16.0 src/uct/cuda/cuda_ipc/cuda_ipc_ep.c line 98 (v1.12.0 line 78, v1.18.0 line 97)
        # ucs_assert(offset <= key->b_len), printed by src/ucs/debug/assert.h line 27 ucs_fatal_error_format(...,
        # "Assertion `%s' failed", #_expression) in builds with assertions (HPC-X's debug UCX); the release notes
        # quote it as "assertion `offset <= key->b_len' failed in cuda_ipc". gdrcopy's "gdr_map failed. length :%lu
        # ret:%d" (v1.16.0 src/uct/cuda/gdr_copy/gdr_copy_md.c) has other causes too and is only context.
        (r"[Aa]ssertion `offset <= key->b_len' failed",),
        85,
        context=(r"\bgdr_map failed",),
    ),

    # --- RCCL's and NCCL's own words for the node under them ----------------------------------------------------
    Cause(
        "amd-iommu-not-passthrough",
        "the node's kernel command line does not put the IOMMU in passthrough mode (RCCL warned: no iommu=pt in "
        "/proc/cmdline), and RCCL's hipIpcGetMemHandle, which shares GPU memory between the ranks of the node, "
        "failed ({why})",
        "for the admins: boot the node with the IOMMU in passthrough, `amd_iommu=on iommu=pt` (AMD CPUs) or "
        "`intel_iommu=on iommu=pt` (Intel CPUs) on the kernel command line (GRUB_CMDLINE_LINUX, then update-grub "
        "and a reboot); `cat /proc/cmdline` on the node shows it, per AMD's GPU cluster networking guide; "
        "meanwhile resubmit without the node (`--exclude=NODE`)",
        # RCCL rocm-5.7.0 src/init.cc line 124 (rocm-6.2.0 line 136) WARN("Missing \"iommu=pt\" from kernel command
        # line which can lead to system instablity or hang!") when strstr(/proc/cmdline, "iommu=pt") is NULL (not on
        # Cray kernels or Hyper-V); src/transport/p2p.cc (rocm-5.7.0 line 462, rocm-6.2.0 line 235)
        # WARN("cudaIpcGetMemHandle failed : %s", cudaGetErrorString(res)), hipIpcGetMemHandle once the build has
        # hipified it. The warning alone is printed by healthy runs too; the IPC failure without it is another cause.
        (r"\b(?:hip|cuda)IpcGetMemHandle failed : (?P<why>[^\n]{1,80})",),
        86,
        applies=lambda log: log.has(_RCCL_NO_IOMMU_PT),
        context=(_RCCL_NO_IOMMU_PT,),
    ),
    Cause(
        "rccl-ib-socket-port-exhaustion-large-alltoall",
        "NCCL (RCCL) could not bind one of its sockets ({why}): it binds them to any free port, so the node ran out "
        "of local ports; every connection of its IB and socket transports holds one, and large AlltoAll jobs open "
        "that many (RCCL's changelog: 64 or more MI200 nodes)",
        "RCCL 2.12.10 to ROCm 6.1: let NET/IB reuse ports, `export NCCL_IB_SOCK_CLIENT_PORT_REUSE=1` and/or "
        "`export NCCL_IB_SOCK_SERVER_PORT_REUSE=1` (not the server one with NCCL_NCHANNELS_PER_NET_PEER above 1); "
        "on any version the admins can widen the node's port range (`sysctl -w net.ipv4.ip_local_port_range=\"1024 "
        "65535\"`), and fewer connections per peer need fewer ports (`NCCL_NCHANNELS_PER_NET_PEER=1`); `ss -s` on "
        "the node during the run shows how many sockets are open",
        # NCCL v2.21.5-1 src/include/checks.h line 49 WARN("Call to " name " failed : %s", strerror(errno)) (v2.27.3-1
        # line 45 "... failed: %s") from src/misc/socket.cc line 380 SYSCHECK(bind(...), "bind") in ncclSocketListen,
        # whose address has port 0 ("addr port should be 0 (Any port)"); a port pinned by NCCL_COMM_ID is bound with
        # SO_REUSEADDR | SO_REUSEPORT first. RCCL the same, and rocm-5.4.0 src/misc/socket.cc line 457
        # SYSCHECK(bind(...), "bind_client_port") for its reused client ports; RCCL's CHANGELOG (RCCL-2.12.10 for
        # ROCm 5.2.3): "When \"Call to bind failed : Address already in use\" error happens in large-scale AlltoAll
        # (e.g., >=64 MI200 nodes), users are suggested to opt-in either one or both of the options".
        (r"\bCall to bind(?:_client_port)? failed ?: (?P<why>Address already in use)",),
        75,
    ),

    # --- CUDA IPC between the ranks of a node under Slurm's per-task GPU binding -------------------------------
    Cause(
        "cray-mpich-gpu-ipc-broken-by-slurm-gpu-binding",
        "Cray MPICH's GPU transport (GTL) could not open another rank's CUDA IPC handle ({why}): the peer's GPU "
        "buffer lives on a GPU this rank cannot see, as under Slurm's per-task GPU binding (--gpus-per-task, "
        "--gpu-bind=map_gpu or closest), which gives each task only its own GPU",
        "let the ranks of a node see each other's GPUs: request the GPUs per node or job and bind in the program "
        "(`srun --gpus-per-node=4 --gpu-bind=none`, each rank selecting its GPU from SLURM_LOCALID; E3SM's fix was "
        "`--gpus-per-task=0 --gpu-bind=none --gpus=N`), or keep the binding and add `--gres-flags=allow-task-sharing` "
        "(srun, Slurm 23.11 and later: tasks may access every GPU of the job on their node); turning the GTL's IPC "
        "off (`export MPICH_GPU_IPC_ENABLED=0`) also avoids it, at the cost of intra-node GPU transfers",
        # Cray MPICH's libmpi_gtl_cuda (closed source): "(GTL DEBUG: %d) cuIpcOpenMemHandle: %s, %s, line no %d" as
        # its ranks print it (E3SM-Project/E3SM#4834 on Perlmutter, fixed by requesting the GPUs without per-task
        # binding); the CUDA driver's CUDA_ERROR_INVALID_VALUE for a handle from a device the process cannot see.
        (r"\(GTL DEBUG: \d{1,6}\) (?:cu|hip)IpcOpenMemHandle: (?P<why>invalid argument)\b",),
        84,
        context=(_GPUS_PER_TASK, r"--gpu-bind"),
    ),

    # --- NVIDIA Fabric Manager's start on the node --------------------------------------------------------------
    Cause(
        "fabric-manager-started-before-local-fm-ready",
        "NVIDIA Fabric Manager gave up configuring the node's NVLink fabric because the GPUs' local Fabric Manager "
        "instances had not finished their configuration when it waited for them: it was started before they were "
        "ready (from a node-setup script or cloud-init right after the driver loaded), so the GPUs and NVSwitches "
        "were left unconfigured",
        "for the admins: start Fabric Manager through its systemd unit after the driver and its devices are up "
        "(`systemctl enable nvidia-fabricmanager`, not from cloud-init or the node-setup script), and on a node "
        "where it already failed run `systemctl restart nvidia-fabricmanager` (then `nvidia-smi -q | grep -A2 "
        "Fabric` shows State Completed); resubmit without the node (`--exclude=NODE`) meanwhile",
        # Fabric Manager's own log (closed source; pytorch/ci-infra#552, H100/B200 nodes set up from cloud-init):
        # "not all local fabric manager instances finished their configuration", then "fabric manager error handler
        # is called for unhandled config error type %d" and "failed to configure all the available GPUs or
        # NVSwitches".
        (r"\bnot all local fabric manager instances finished their configuration",),
        95,
        context=(r"failed to configure all the available GPUs or NVSwitches",
                 r"fabric manager error handler is called for unhandled config error"),
    ),
    Cause(
        "fabric-manager-start-timeout-node-bootstrap",
        "the node's bootstrap (AWS ParallelCluster's Chef cookbook) timed out waiting for the nvidia-fabricmanager "
        "service to start, so the compute node failed to bootstrap and the jobs sent to its queue failed (after "
        "repeated failures ParallelCluster puts the cluster in protected mode)",
        "for the admins: find why Fabric Manager starts slowly or not at all on that image (`journalctl -u "
        "nvidia-fabricmanager` on a node; its version must equal the driver's), use an AMI/driver combination "
        "where it starts (for ParallelCluster 3.11 on Amazon Linux 2023 and p4 nodes, the release that fixes it or "
        "a custom AMI), then reactivate the compute fleet (`pcluster update-compute-fleet --status START_REQUESTED`)",
        # Chef's resource error, lib/chef/resource.rb custom_exception_message: "#{self} (#{defined_at}) had an
        # error: #{e.class.name}: #{e.message}", with mixlib-shellout's CommandTimeout ("Command timed out after
        # %ds") for the service resource (aws/aws-parallelcluster#6571, 900 s).
        (r"\bservice\[nvidia-fabricmanager\] \([^)]{0,200}\) had an error: Mixlib::ShellOut::CommandTimeout\b",),
        94,
    ),

    # --- GPU memory registration with the Slingshot NIC under a CUDA forward-compatibility driver ---------------
    Cause(
        "cuda-forward-compat-driver-breaks-nic-memory-registration",
        "aws-ofi-nccl could not register GPU memory with the Slingshot NIC (EINVAL) on an HPE Cray EX node, so "
        "NCCL's network connections failed: the EFA installer's cause does not apply there; the case on record is "
        "the CUDA forward-compatibility driver (cuda-compat's libcuda) loaded in place of the node's own driver, "
        "whose GPU memory the NIC's driver cannot register",
        "make the process load the node's own driver library: drop the forward-compatibility libcuda from the "
        "library path (`/usr/local/cuda/compat` or a container's compat directory in LD_LIBRARY_PATH; Julia's "
        "CUDA.jl: `export JULIA_CUDA_USE_COMPAT=false`, prontolab/GB25#152); `grep libcuda /proc/PID/maps` on a "
        "running rank shows which one it loaded. If it is the node's own, the site's libfabric/aws-ofi-nccl "
        "modules for GPU memory registration are the next suspects (ask the site which to load)",
        # aws-ofi-nccl v1.18.0 src/nccl_ofi_sendrecv.cpp line 606 "Unable to register memory (type = %d) for device
        # %d. RC: %d, Error: %s" with type 2 (NCCL_PTR_CUDA) and -22 (EINVAL) on nidNNNNNN nodes (Perlmutter,
        # prontolab/GB25#152: fixed by JULIA_CUDA_USE_COMPAT=false).
        (_OFI_GPU_MR_EINVAL,),
        83,
        applies=lambda log: (log.has(_SLINGSHOT) or log.has(_CRAY_NODE)) and not log.has(_EFA_NODE),
    ),

    # --- Accelerate's launcher and DeepSpeed's own config file ----------------------------------------------------
    Cause(
        "accelerate-config-conflicts-with-deepspeed-config-file",
        "accelerate refused the configuration before training started: the accelerate config (or `accelerate "
        "launch` options) sets `deepspeed_config_file` together with DeepSpeed settings of its own (gradient "
        "accumulation, clipping, ZeRO stage, offload, mixed precision, the list it prints), which the DeepSpeed "
        "JSON is meant to own",
        "keep those settings in the DeepSpeed JSON only: remove `gradient_accumulation_steps`, `gradient_clipping`, "
        "`zero_stage`, `offload_optimizer_device`, `offload_param_device`, their `*_nvme_path`s, "
        "`zero3_save_16bit_model` and `mixed_precision` from the accelerate config (or the launch command), or "
        "write a new one with `accelerate config` (it asks only what `deepspeed_config_file` needs)",
        # Accelerate v1.10.0 src/accelerate/utils/dataclasses.py line 1475 (v0.34.0 line 1230) raise ValueError(
        # f"When using `deepspeed_config_file`, the following accelerate config variables will be ignored:
        # {env_variable_names_to_ignore}.\n" "Please specify them appropriately in the DeepSpeed config file.\n" ...),
        # when ACCELERATE_CONFIG_DS_FIELDS names one of them.
        (r"When using `deepspeed_config_file`, the following accelerate config variables will be ignored",),
        85,
    ),

    # --- PBS' MoM ended the job for CPU it did not ask for ---------------------------------------------------------
    Cause(
        "pbs-cpu-over-limit",
        "PBS killed the job for its CPU use: it kept more CPUs busy than its `ncpus` (the MoM's burst or average "
        "check), or used more CPU time than its `cput`, which counts every thread of every rank",
        "ask for the CPUs the ranks use (`-l select=2:ncpus=72:ngpus=4`) and keep the threads within them "
        "(`OMP_NUM_THREADS`, the DataLoader's `num_workers`, `torch.set_num_threads`); ask for CPU time for all "
        "of them (`-l cput=`) or leave `cput` out where the queue allows (`qstat -Qf QUEUE` shows its "
        "resources_max and resources_default)",
        # OpenPBS v23.06.06 src/resmom/mom_main.c, each written to the job's stderr as "=>> PBS: job killed: %s\n"
        # (line 8780): mom_over_limit() line 5895 "ncpus %.1f exceeded limit %lu (burst)" (the MoM's cpuburst),
        # line 5924 "ncpus %.2f exceeded limit %lu (sum)" (cpuaverage), line 5999 "cput %lu exceeded limit %lu";
        # job_over_limit() line 6185 "%s job total %lu %s exceeded limit %lu %s" with cput and secs, the sum over
        # a multi-node job's nodes. The same words since v18.1.4.
        (r"PBS: job killed: ncpus \d+\.\d+ exceeded limit \d+ \((?:burst|sum)\)",
         r"PBS: job killed: cput (?:job total )?\d+ (?:secs )?exceeded limit \d+"),
        78,
    ),

    # --- PBS' launchers and the MoM's task manager they start tasks through ------------------------------------------
    Cause(
        "pbs-task-manager-unreachable",
        "a PBS launcher (pbsdsh, pbs_tmrsh as MPI's remote shell, pbs_attach) could not reach the PBS MoM's task "
        "manager: it ran without the job's PBS variables (inside a container started with a clean environment, "
        "in a shell reached by ssh, or outside a job), or the MoM on its node did not answer",
        "run the launcher from the job script on the host, where pbs_mom set PBS_ENVIRONMENT, PBS_JOBID, "
        "PBS_JOBCOOKIE, PBS_NODENUM, PBS_TASKNUM and PBS_MOMPORT (`env | grep ^PBS_` in the job shows them), and "
        "start the container under it (`pbsdsh -n 1 -- apptainer exec app.sif ...`), not the launcher inside "
        "`apptainer exec --cleanenv` or over ssh; if the variables are there, the node's pbs_mom is down "
        "(`pbsnodes NODE` says its state)",
        # OpenPBS v23.06.06 (same words at v20.0.1): tm_init() (src/lib/Libifl/tm.c line 583) returns
        # TM_EBADENVIRONMENT when one of those variables is unset and TM_ESYSTEM when the MoM cannot be reached;
        # get_ecname() (line 136) prints them as "bad environment (17005)" and "system error - MOM cannot be
        # contacted (17000)". src/cmds/pbsdsh.c line 273 "%s: tm_init failed, rc = %s (%d)\n", line 265 "%s: not
        # executing under PBS\n" (no PBS_ENVIRONMENT); src/cmds/pbs_tmrsh.c line 259 the same words, line 271
        # "%s: tm_init: %s\n"; src/cmds/pbs_attach_sup.c line 134 "%s: tm_attach: %s\n".
        (r"\b(?:pbsdsh|pbs_tmrsh): (?:tm_init failed, rc = |tm_init: )?(?:bad environment|system error - MOM cannot be "
         r"contacted) \(170\d\d\)",
         r"\b(?:pbsdsh|pbs_tmrsh): not executing under PBS$",
         r"\bpbs_attach: tm_attach(?: parent)?: (?:bad environment|system error - MOM cannot be contacted) \(170"),
        72,
    ),
    Cause(
        "pbs-launch-host-outside-job",
        "the MPI launcher asked PBS (through pbs_tmrsh, its remote shell under PBS) to start processes where the "
        "job has no node: its host list names hosts the job was not given, or spells them unlike PBS_NODEFILE, or "
        "PBS_NODEFILE itself was replaced by a longer list",
        "give the launcher the job's own nodes as PBS spells them (`cat $PBS_NODEFILE`): MPICH and Intel MPI "
        "`mpiexec -f $PBS_NODEFILE`, Open MPI `mpirun --hostfile $PBS_NODEFILE`, not a hostfile written for "
        "another job or by hand, and leave `PBS_NODEFILE` as PBS sets it",
        # OpenPBS v23.06.06 src/cmds/pbs_tmrsh.c line 298 "%s: host \"%s\" is not a node in job <%s>\n" (the
        # host matches no PBS_NODEFILE line, by name or address) and line 303 "%s: PBS_NODEFILE contains %d
        # entries, only %d nodes in job\n"; the first quoted in intel/mlsl#14, where the walltime kill followed.
        (r"\bpbs_tmrsh: host \"(?P<host>[^\"\s]{1,256})\" is not a node in job <",
         r"\bpbs_tmrsh: PBS_NODEFILE contains \d+ entries, only \d+ nodes in job"),
        76,
    ),

    # --- PBS' limits on the jobs a user, group or project may have queued ------------------------------------------
    Cause(
        "pbs-queued-jobs-limit",
        "PBS refused the job because the queue's or the server's limit on queued jobs would be exceeded: the "
        "number of jobs you (or your group or project) may have queued, or the resources they may ask for together",
        "`qstat -u $USER` shows what you have queued: wait for some to finish or `qdel` those you no longer need, "
        "submit many similar runs as one array job (`qsub -J 1-N`), or ask for less; `qstat -Qf QUEUE` and "
        "`qstat -Bf` show the limits (max_queued, max_queued_res, queued_jobs_threshold)",
        # OpenPBS v23.06.06 src/lib/Liblog/pbs_messages.c: msg_maxqueued "Maximum number of jobs already in queue"
        # (PBSE_MAXQUED); the entity limits src/server/svr_func.c puts in the job's reply, msg_et_qct "Maximum
        # number of jobs already in queue %s", msg_et_suq "Maximum number of jobs for user %s already in queue %s"
        # (and for group, project, complex, and "in 'Q' state"), msg_et_guq_q "would exceed queue %s's per-user
        # limit of jobs in 'Q' state", msg_et_rsuq "would exceed user %s's limit on resource %s in queue %s" (and
        # per-group, per-project, complex); qsub prints them after "qsub: " (src/cmds/qsub.c line 2932).
        (r"qsub: Maximum number of jobs (?:in 'Q' state )?(?:for (?:user|group|project) \S{1,256} )?already in ",
         r"qsub: would exceed (?:queue \S{1,256}'s |complex's )?(?:per-(?:user|group|project) )?limit",
         r"qsub: would exceed (?:user|group|project) \S{1,256}'s limit on resource "),
        100,
    ),

    # --- the Slingshot NIC's hardware event queue overflowed -----------------------------------------------------
    Cause(
        "cxi-event-queue-overflow",
        "the Slingshot NIC's hardware event queue filled up and dropped events, and libfabric's CXI provider "
        "aborted the process: the queue, sized from the completion queue, was too small for the transfers in flight",
        "give the completion queues more entries (the provider sizes each hardware event queue to at least its "
        "completion queue's size): NCCL through aws-ofi-nccl sets its own size, `OFI_NCCL_CQ_SIZE` (default "
        "12288), e.g. `export OFI_NCCL_CQ_SIZE=131072`; MPI and other callers that take the provider's default "
        f"(1024 entries) `{policy.export_line('slingshot', 'FI_CXI_DEFAULT_CQ_SIZE')}` (this project's policy sets "
        "it); then rerun `python -m app.check` across the same nodes",
        # libfabric v1.22.0 prov/cxi/src/cxip_evtq.c line 406 CXIP_WARN("EQ %d dropped event, rsvd slots %u, free "
        # slots %u\n", ...) and line 410 CXIP_FATAL("H/W Event Queue overflow detected.\n") (abort()) when
        # cxi_eq_get_drops() reports drops; cxip_evtq_get_queue_size() (line 453) takes MAX(slots, cq->attr.size);
        # cxip_cq.c line 314 uses FI_CXI_DEFAULT_CQ_SIZE (CXIP_CQ_DEF_SZ 1024, prov/cxi/include/cxip.h) only where
        # the caller asks for size 0. aws-ofi-nccl v1.18.0 src/nccl_ofi_rdma.cpp line 6429 and
        # src/nccl_ofi_sendrecv.cpp line 2161 cq_attr.size = ofi_nccl_cq_size(), OFI_NCCL_CQ_SIZE default 12288
        # (include/nccl_ofi_param.h line 131).
        (r"H/W Event Queue overflow detected", r"\bEQ \d+ dropped event, rsvd slots \d+, free slots \d+"),
        88,
    ),

    # --- FI_PROVIDER names a provider the loaded libfabric lacks ----------------------------------------------------
    Cause(
        "fi-provider-not-in-libfabric",
        "FI_PROVIDER names `{prov}`, a provider the libfabric this process loaded does not have (built without it, "
        "or a provider library it did not find), so libfabric offered no provider and the network could not start",
        "load a libfabric that has the provider: on Slingshot the site's, which has `cxi` (`HOST_LIBFABRIC_DIR="
        "/opt/cray/libfabric/<ver>`, first on LD_LIBRARY_PATH; in a container bind it in), not the image's own "
        "build; `fi_info -l` in the job lists the providers the loaded libfabric has and `fi_info -p cxi` on the "
        "node shows whether cxi opens; or correct the name in FI_PROVIDER (libfabric's `you may want: ...` names "
        "the provider it has)",
        # libfabric v1.22.0 src/fabric.c line 613 FI_WARN("provider %s is unknown, misspelled or DL provider?\n")
        # for each FI_PROVIDER name no built-in or loaded provider has (verify_filter_names), and line 227
        # FI_WARN("Instead misspelled provider: %s, you may want: %s?\n") for a name another provider's starts
        # with. Also printed for an excluded name (`^psm3`), FI_LOG_PROV's, or one of several FI_PROVIDER names: a
        # cause only where no provider was then found. Outranks no-fabric-provider, the consequence;
        # efa-on-slingshot (FI_PROVIDER=efa) outranks it.
        (r"\bprovider (?P<prov>[\w;.-]{1,64}) is unknown, misspelled or DL provider\?",
         r"\bInstead misspelled provider: (?P<prov>[\w;.-]{1,64}), you may want: [\w;.-]{1,64}\?"),
        84,
        applies=lambda log: (log.has(_NO_PROVIDER_FOUND) and not log.has(_FI_PROVIDER_EXCLUDES)
                             and not log.has(_OFI_PROVIDER_CHOSEN)),
        context=(_NO_PROVIDER_FOUND,),
    ),

    # --- the Slingshot NIC had no more of a hardware resource for the job's CXI service ----------------------------
    Cause(
        "cxi-nic-resources-exhausted",
        "the Slingshot NIC refused libfabric's CXI provider a hardware resource ({res}) with ENOSPC: the job's CXI "
        "service had used up its share (event queues, command queues, portal table entries, counters), because "
        "too many processes or endpoints share the NIC, or processes of an earlier job still hold theirs",
        "look on the node for processes of earlier runs (`ps -u $USER -o pid,etime,cmd`; end them or ask the "
        "admins to drain the node) and run fewer ranks per NIC (one per GPU, each on its own NIC); `cxi_service "
        "list` on the node shows each service's Resource Limits, `fi_info -p cxi` whether the provider still "
        "opens; if the limits are too small for the job, the admins raise them for its service",
        # libfabric v1.22.0 prov/cxi/src: cxip_evtq.c line 566 CXIP_WARN("Failed to allocated EQ: %d\n", ret),
        # cxip_cmdq.c line 202 CXIP_WARN("Failed to allocate %s, ret: %d\n", ... "TXQ" : "TGQ", ret),
        # cxip_pte.c line 210 (and cxip_mr.c lines 290, 485) CXIP_WARN("Failed to allocate PTE: %d\n", ret),
        # cxip_cntr.c line 668 CXIP_WARN("Failed to allocate CT, ret: %d\n", ret), each printing what libcxi
        # returned: -errno of the driver's write (HewlettPackard/shs-libcxi c147b9e src/libcxi.c device_write),
        # -ENOSPC (-28) when the service's resource group is at its limit (HewlettPackard/shs-cxi-driver 9ce667e
        # drivers/net/ethernet/hpe/ss1/cass_rgroup.c line 268, cass_alloc_resource(), for PTLTE, TXQ, TGQ, EQ,
        # CT, LE, TLE, AC); `cxi_service list` prints "Resource Limits" (shs-libcxi utils/cxi_service.c).
        (r"Failed to allocated? (?P<res>EQ|PTE|TXQ|TGQ|CT)(?:, ret)?: -28\b",),
        86,
    ),

    # --- aws-ofi-nccl refused OFI_NCCL_NIC_DUP_CONNS on a provider with GPUDirect RDMA ------------------------------
    Cause(
        "ofi-nccl-nic-dup-conns-with-gdr",
        "OFI_NCCL_NIC_DUP_CONNS is set (the plugin's message calls it NCCL_OFI_NIC_DUP_CONNS), and aws-ofi-nccl "
        "refuses it where the provider it chose does GPUDirect RDMA: the plugin failed to "
        "start, so NCCL had no network plugin",
        "unset it: `unset OFI_NCCL_NIC_DUP_CONNS` in the job script, and drop it from the image's or module's "
        "environment (`env | grep NIC_DUP_CONNS` in the job shows whether it is still set); it only serves "
        "providers without GPUDirect RDMA",
        # aws-ofi-nccl v1.18.0 src/nccl_ofi_net.cpp line 334 NCCL_OFI_WARN("NCCL_OFI_NIC_DUP_CONNS set on platform
        # that supports GPUDirect RDMA.  This configuration is not supported.") and -ENOTSUP from the plugin's
        # init, when ofi_nccl_nic_dup_conns > 0 and support_gdr != GDR_UNSUPPORTED; the variable read is
        # OFI_NCCL_PARAM_INT(nic_dup_conns, "NIC_DUP_CONNS", 0) with the "OFI_NCCL_" prefix
        # (include/nccl_ofi_param.h lines 41 and 79).
        (r"NCCL_OFI_NIC_DUP_CONNS set on platform that supports GPUDirect RDMA",),
        90,
    ),
)

BY_KEY = {cause.key: cause for cause in CAUSES}
