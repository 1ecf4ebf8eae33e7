"""Which network NCCL must use, checked on the head node before any step (standard library only). The settings
themselves live in the fabric policy (app/common/fabric_policy.env), which each node's wrapper sources; the
policy also detects the fabric for FABRIC=auto. Here: bad input stops the job, and a fabric the head node lacks is
a warning in the job log, since NCCL would otherwise stop on every rank with a less telling line."""

import glob
import platform
from typing import List, NamedTuple

from app.common.errors import UsageError

FABRICS = ("infiniband", "roce", "slingshot", "auto", "none")
#: What NCCL says when the InfiniBand/RoCE network it was told to use is absent (NCCL 2.27 on; 2.26 and older)
NO_IB = "NCCL will stop with 'Failed to initialize any NET plugin' (NCCL 2.26 and older: 'network IB not found')"


class Fabric(NamedTuple):
    """The fabric the job uses, and what the job log says about it."""

    name: str
    said: List[str]


def check_fabric(fabric: str, detected: str, probe_root: str, fi_provider: str, host: str = "") -> Fabric:
    """FABRIC as given (`detected`: the policy's answer, for auto); a bad one raises UsageError."""
    host = host or platform.node().split(".")[0]
    said = []
    if fabric == "auto":
        fabric = detected
        said.append(f"FABRIC=auto: detected {fabric}")
    rdma = bool(glob.glob(probe_root + "/sys/class/infiniband/*"))
    if fabric == "roce" and not rdma:
        said.append(f"warning: FABRIC=roce but no RDMA device under /sys/class/infiniband on {host}: {NO_IB}; "
                    "wrong nodes, or set FABRIC=none")
    elif fabric == "infiniband" and not rdma:
        said.append(f"warning: FABRIC=infiniband but no device under /sys/class/infiniband on {host}: {NO_IB}; "
                    "wrong partition, or set FABRIC=none")
    elif fabric == "slingshot":
        if fi_provider == "efa":
            raise UsageError("FI_PROVIDER=efa is AWS's provider and does not exist on Slingshot; unset it (the fabric "
                             "policy sets FI_PROVIDER=cxi) or set FI_PROVIDER=cxi")
        if not glob.glob(probe_root + "/dev/cxi[0-9]*"):
            said.append(f"warning: FABRIC=slingshot but no {probe_root}/dev/cxi* on {host}: libfabric's cxi provider "
                        "will find no NIC; wrong nodes, or set FABRIC=none")
    elif fabric == "none":
        said.append("FABRIC=none: no NCCL network settings (single node, or TCP sockets)")
    elif fabric not in FABRICS:
        raise UsageError(f"FABRIC={fabric} is not one of infiniband, roce, slingshot, auto, none; example: "
                         "FABRIC=infiniband")
    return Fabric(name=fabric, said=said)
