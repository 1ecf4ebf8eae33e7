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
- PBS Pro / OpenPBS: `=>> PBS: job killed: walltime 7230 exceeded limit 7200`;
- this project: the job scripts' `<script>: error: ...` lines (jobscripts/lib.sh `ddp_die`), app.check's
  `VERDICT: FAIL (...): ... Fix: ... exit code N` (app/check/report.py), the trainer's hang verdict
  `hang: rank 1 (node2) stopped answering ...` (app/train/assemble.py, also in summary.json).

Fixes are written here once. Where the project already words one (app/check/remedies.py, the fabric policy's
values through app/common/fabric_policy.py) it is imported, not retyped. The README's symptom tables are tested
against this table (tests/diagnose/test_readme_tables.py): each README row whose symptom is a log line names,
in `readme`, the rule that must recognise it, and every command or setting the README's fix column quotes must
appear in that rule's fix. Tested rather than generated, because the README's rows are prose written per site
(MareNostrum 5, any Slurm, GH200 on PBS), while a rule's fix must also serve logs of jobs that never used this
project's scripts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from app.check import remedies
from app.common import fabric_policy as policy
from app.diagnose.logview import LineFact, LogView


@dataclass(frozen=True)
class Cause:
    key: str
    """A short name, stable for tests and scripts (`--list` shows them)."""
    cause: str
    """The cause in one sentence; `{name}` fields are filled from the first matching line's named groups."""
    fix: str
    """What to change: the setting, the command, or the job-script option."""
    patterns: tuple[str, ...]
    """Regular expressions (searched, case-sensitive) for the lines that show the cause."""
    weight: int
    """Order among the findings of one log: a root cause outranks its consequences (higher first)."""
    applies: Callable[[LogView], bool] | None = None
    """A condition on the whole log, for lines that mean this cause only in some contexts."""
    readme: tuple[str, ...] = field(default=())
    """Text of the README symptom cells (the `| symptom | cause | fix |` tables) this rule answers."""
    context: tuple[str, ...] = field(default=())
    """Patterns (case-insensitive) for lines that support the reading, quoted after the lines that show it."""


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


_NODE_COUNT = (r"--nnodes[= ](\d+)|number of nodes\D{0,20}(\d+)|\bselect=(\d+)|SLURM_(?:JOB_)?NNODES=(\d+)"
               r"|SLURM_JOB_NUM_NODES=(\d+)|\bnNodes (\d+)")


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
#: The network the job asked NCCL for: this project's policy preview (`setting NCCL_NET=IB`), an `export`, or
#: an environment dump.
_NCCL_NET_IB = r"\bNCCL_NET=[\"']?IB\b"
_NCCL_NET_OFI = r"\bNCCL_NET=[\"']?(?:AWS )?Libfabric"
#: NCCL_DEBUG=INFO lines that say which network failed: with NCCL_NET=IB NCCL probes the IB devices and finds
#: none (src/transport/net_ib); the plugin's `NET/Plugin: Could not find:` is also printed there, so it counts
#: only where no IB probe failed.
_IB_PROBE_FAILED = r"NET/IB : No device found"
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
_SOCKET_CHOSEN = r"NCCL_NET=Socket|FABRIC=none"
_EFA_REFUSED = r"FI_PROVIDER=efa is AWS's provider"


def _socket_instead_of_fabric(log: LogView) -> bool:
    inter_node = log.has(_VIA_SOCKET) or _multi_node(log)
    return inter_node and log.has(_FAST_FABRIC) and not log.has(_SOCKET_CHOSEN)


#: Every fact the conditions above ask the whole log about (LogView looks for them while reading).
FACTS = (_SLINGSHOT, _FAST_FABRIC, _per_node_launch, _NODE_COUNT_MULTI, _NO_NET, _NCCL_NET_IB, _NCCL_NET_OFI,
         _IB_PROBE_FAILED, _VIA_SOCKET, _SOCKET_CHOSEN, _EFA_REFUSED)


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

CAUSES: tuple[Cause, ...] = (
    # --- the scheduler refused the job: nothing ran -----------------------------------------------------
    Cause(
        "slurm-gres",
        "Slurm refused the GPU request: the GRES name or count is not what the partition's nodes have",
        "ask for GPUs as the site names them (`sinfo -o '%P %G'` lists each partition's GRES), e.g. "
        "`--gres=gpu:4` on MareNostrum 5 ACC, no more per node than a node has; a CPU partition takes no GRES",
        (r"Invalid generic resource \(gres\) specification",),
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
    # --- the software cannot run on this node ---------------------------------------------------------
    Cause(
        "image-arch",
        "the container image (or a binary in it) is for another CPU architecture: an x86_64 image on an aarch64 "
        "(GH200) node",
        "build or pull the image for the node: `make image ARCH=aarch64` on GH200 (`uname -m` on a compute node "
        "says which); the job scripts refuse a mismatched image before starting it",
        (r"(?i)exec format error", r"is built for (?P<image>\S{1,200}) but this node is (?P<node>\w+)"),
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
        (r"version [`'](?P<abi>FABRIC_\d+\.\d+)' not found",),
        95,
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
        "no-verbs-driver",
        "libibverbs found the HCA but no userspace driver for it (libmlx5 from rdma-core missing): NCCL cannot use "
        "InfiniBand and falls back to TCP or fails",
        "rebuild the image (`make image`: it installs rdma-core's ibverbs-providers); elsewhere install "
        "ibverbs-providers/libmlx5 in the image or environment",
        (r"libibverbs: Warning: no userspace device-specific driver found",),
        84,
        readme=("no userspace device-specific driver found",),
    ),
    Cause(
        "no-fabric-provider",
        "libfabric found no usable provider: no cxi provider in the libfabric that was loaded, or no /dev/cxi* "
        "(Slingshot) or EFA device visible",
        "bind the site's libfabric: `HOST_LIBFABRIC_DIR=/opt/cray/libfabric/<ver>`; run on Slingshot nodes; in a "
        "container bind each /dev/cxi*; `fi_info -p cxi` on the node lists the provider",
        (r"fi_getinfo: -61", r"fi_getinfo\(\) call failed: No data available"),
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
        readme=("after 10 min (the EAP tutorial)",),
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
        (r"RendezvousConnectionError", r"The client socket has timed out after \d+m?s while trying to connect to"),
        68,
    ),
    Cause(
        "nccl-connect",
        "NCCL could not open a connection to another rank: the nodes cannot reach each other on the interface "
        "NCCL chose",
        remedies.PROCESS_GROUP,
        # NCCL to 2.26: "%s: Connect to %s failed : %s" (src/misc/socket.cc); 2.27 and later "%s: connect to %s
        # failed : %s" and "...PollConnect to %s failed with error %s" (src/misc/socket.cc, src/os/linux.cc).
        (r"NCCL WARN:? .{0,200}?[Cc]onnect to \S{1,300} failed",),
        66,
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
    ),
    # --- the run died while training ------------------------------------------------------------------------
    Cause(
        "hang-named",
        "the hang watchdog named who held the job up: {who}",
        remedies.TIMEOUT + "; the job scripts leave the node out and requeue (nodes-to-exclude.txt)",
        (r"hang: (?P<who>(?>(?:(?!; no progress for).){1,2000})); no progress for",),
        88,
    ),
    Cause(
        "check-verdict",
        "app.check failed: {what}",
        "{fix}",
        (r"VERDICT: FAIL \([^)]{0,200}\): (?P<what>(?>(?:(?!\. Fix: ).){1,1000}))\. Fix: "
         r"(?P<fix>(?>(?:(?!\. exit code).){1,2000}))\. exit code \d+",),
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
        (r"CUDA out of memory", r"CUDA error: out of memory", r"torch\.(?:cuda\.)?OutOfMemoryError"),
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
        "`module load singularity` before `sbatch` (the job inherits it), or set `APPTAINER=/path/to/apptainer`",
        (r"(?:apptainer|singularity) not found in PATH",),
        75,
        readme=("singularity not found in PATH",),
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
        "`source .venv/bin/activate` before `sbatch` (the job inherits it), or use the image (`IMAGE=/path/app.sif`)",
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
        "the message gives the fix; see also the README's table for {script}",
        (r"^(?:\S{1,4096} )?(?P<script>mn5\.sh|slurm\.sh|gh200-pbs\.sh): error: (?P<message>.{1,4096})",),
        50,
    ),
)

BY_KEY = {cause.key: cause for cause in CAUSES}
