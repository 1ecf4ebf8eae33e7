"""What to do about each failure the check's stages find: the remedy texts of the run-wide verdicts, in
one place. (A node check's remedy stays beside the check that finds the problem, in app/check/node/.)
Every NCCL/libfabric value a remedy recommends comes from the fabric policy (app/host/common/fabric_policy.env)."""

from app.host.common import fabric_policy as policy

WRONG_RESULTS = (
    f"exclude the named node(s) and rerun; on GH200+Slingshot "
    f"{policy.export_line('slingshot', 'NCCL_PROTO')}; report the node to the admins"
)
SLOW = (
    "see the transport and network lines: TCP instead of IB/Slingshot, a down HCA port, or the wrong "
    "NCCL_SOCKET_IFNAME/NCCL_IB_HCA"
)
PROCESS_GROUP = (
    "see the network checks above; for gloo set GLOO_SOCKET_IFNAME, for NCCL NCCL_SOCKET_IFNAME, to an "
    "interface every node has"
)
STORE = "start the launcher on every node and make MASTER_ADDR rank 0's address on a network all nodes share"
TIMEOUT = (
    "look at the named rank's node: its log, `py-spy dump` of the process, nvidia-smi, its network; "
    "rerun excluding it (srun --exclude=NODE)"
)
