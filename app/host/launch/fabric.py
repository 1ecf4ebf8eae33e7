"""Which network NCCL must use, checked on the head node before any step (standard library only). The settings
themselves live in the fabric policy (app/host/common/fabric_policy.env), which each node's wrapper sources; the
policy also detects the fabric for FABRIC=auto. Here: bad input stops the job, and a fabric the head node lacks is
a warning in the job log, since NCCL would otherwise stop on every rank with a less telling line."""

import glob
import os
import platform
import subprocess
from typing import List, Mapping, NamedTuple, Tuple

from app.host.common.errors import UsageError

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
                         "FABRIC=none (plain Ethernet: NCCL's TCP sockets), or FABRIC=infiniband")
    return Fabric(name=fabric, said=said)


def _policy(policy_file: str, script: str, env: Mapping[str, str]) -> str:
    """What `sh -c SCRIPT policy POLICY_FILE` prints (stdout and stderr) under ENV."""
    if not os.access(policy_file, os.R_OK):
        raise UsageError(f"the fabric policy {policy_file} is missing; run the job script from a checkout of the "
                         "project (DDP_JOBSCRIPTS=/path/to/checkout/jobscripts)")
    return subprocess.run(["sh", "-c", script, "policy", policy_file], env=dict(env), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False).stdout.decode(
        "utf-8", "surrogateescape")


def detect_fabric(policy_file: str, probe_root: str) -> str:
    """FABRIC=auto: the policy's own detection on this, the head node (Slingshot, InfiniBand or RoCE by link layer,
    none)."""
    env = dict(os.environ, APP_FABRIC="auto", APP_PROBE_ROOT=probe_root, APP_FABRIC_LOG="0")
    return _policy(policy_file, '. "$1" >/dev/null 2>&1; echo "$APP_FABRIC_DETECTED"', env).strip()


def preview_policy(policy_file: str, env: Mapping[str, str]) -> List[str]:
    """The job log's preview: the policy each node's wrapper sources, run here under ENV: what it will set, what it
    keeps because you set it."""
    return _policy(policy_file, '. "$1"', dict(env, APP_FABRIC_LOG="1")).splitlines()


def flight_recorder_defaults(run_dir: str) -> List[Tuple[str, str, str]]:
    """PyTorch's NCCL flight recorder: the last collectives of every rank, dumped into the run directory when a
    collective times out, to show which rank and which collective hung (read by ProcessGroupNCCL only; the trainer
    names a rank that stops answering before that, see dist.hang_timeout_s). Its buffer is on by default (2000
    entries since torch 2.6, pytorch#142260; torch 2.13 reads TORCH_FR_BUFFER_SIZE and warns on every rank about the
    old TORCH_NCCL_TRACE_BUFFER_SIZE), so only the dump is asked for."""
    return [("TORCH_NCCL_DUMP_ON_TIMEOUT", "1", "dump the flight recorder when a collective times out"),
            ("TORCH_FR_DUMP_TEMP_FILE", run_dir + "/nccl-flight-recorder-rank", "where the dumps go (one per rank)")]
