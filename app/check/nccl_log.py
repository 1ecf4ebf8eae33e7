"""NCCL's INFO log, captured to files (not the user's terminal), read back into the transports and
the network NCCL chose.

Lines look like `host:pid:tid [dev] NCCL INFO <message>`. The messages that matter:

- `Using network IB` / `Using network Socket` / `Using network AWS Libfabric` (or `Libfabric`): the
  inter-node network;
- `Channel 00/0 : 0[0] -> 1[1] via P2P/IPC` (or `P2P/CUMEM`, `SHM/direct/direct`, `NET/IB/0/GDRDMA`,
  `NET/Socket/0`, `NET/AWS Libfabric/0`): how each peer pair is connected;
- `NVLS multicast support is available`, `Connected NVLS`: NVLink SHARP;
- `NET/OFI Initializing aws-ofi-nccl 1.14.0`, `NET/OFI Selected provider is cxi`: the plugin and provider;
- failure signatures: `NET/IB : No device found`, `NET/Plugin: Could not find: ... libnccl-net...`,
  `Error: network AWS Libfabric not found` (NCCL 2.26 and older), `Failed to initialize any NET plugin` (2.27
  and later), `fi_getinfo: -61`.
"""

from __future__ import annotations

import atexit
import glob
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from app.check.report import FAIL, OK, WARN, Check
from app.host.common import fabric_policy as policy

LOG_DIR_DEFAULT = "/tmp"
#: What is read of a log: the transports and the network are logged as the communicators connect, within the
#: first few hundred KB even at thousands of ranks; a bound keeps a runaway log from costing the check its budget.
MAX_LOG_BYTES = 16 << 20
_CAPTURED: set[str] = set()  # the directories capture_to_files made in this process (deleted once read)
_USING_NETWORK = re.compile(r"Using network (.+?)\s*$")
# `Channel 00/0 : 0[0] -> 1[1] via P2P/IPC`; older NCCL: `Channel 01 : 2[c7000] -> 0[87000] [send] via ...`
_VIA = re.compile(r"Channel \d+(?:/\d+)? : \d+\[\w+\] -> \d+\[\w+\](?: \[\w+\])? via (.+?)\s*$")
_OFI_VERSION = re.compile(r"NET/OFI Initializing aws-ofi-nccl (\S+)")
_OFI_PROVIDER = re.compile(r"NET/OFI Selected provider is (\w+)")
# (text in the log, what it means, on which nodes it matters). NCCL probes the net plugin and InfiniBand at
# every start and logs each miss at INFO level, on healthy nodes too (NCCL 2.28.9 on a one-GPU H200,
# tests/data/check/nccl/h200-one-gpu-2.28.9.log): a missing plugin matters only where Slingshot needs
# aws-ofi-nccl ("cxi"), a missing IB device only where the node has RDMA devices ("rdma").
_PROBLEMS = (
    (
        "NET/IB : No device found",
        "NCCL found no InfiniBand device (libibverbs/libmlx5 missing, or /dev/infiniband not visible)",
        "rdma",
    ),
    # NCCL 2.21: "NET/Plugin: No plugin found (%s)" (src/net.cc); 2.22 and later "NET/Plugin: Could not find:%s"
    # (src/net.cc, src/plugin/plugin_open.cc from 2.26).
    ("NET/Plugin: Could not find", "NCCL could not load a network plugin (libnccl-net*.so)", "cxi"),
    ("NET/Plugin: No plugin found", "NCCL could not load a network plugin (libnccl-net*.so)", "cxi"),
    # NCCL to 2.26: "Error: network %s not found." (src/plugin/net.cc, v2.26.6-1); 2.27 and later: "Failed to
    # initialize any NET plugin" (src/plugin/net.cc, v2.27.3-1 to v2.30.7-1), which does not name the network.
    ("not found", "NCCL could not find the requested network (NCCL_NET)", "always"),
    ("Failed to initialize any NET plugin", "NCCL could not find the requested network (NCCL_NET)", "always"),
    ("fi_getinfo", "libfabric found no usable provider", "always"),
    ("no userspace device-specific driver", "libibverbs has no provider for the HCA (install libmlx5)", "always"),
)
_MATTERS_ON = {meaning: where for _, meaning, where in _PROBLEMS}


def capture_to_files(env: MutableMapping[str, str], log_dir: str | None = None) -> str:
    """Send NCCL's INFO log to one file per process, unless the user already chose NCCL_DEBUG.

    The files go to a directory of this process's own (`mkdtemp`: 0700, an unpredictable name) under
    `log_dir` (default $TMPDIR, else /tmp): in a directory everyone can write, another user could plant a
    file named like this rank's log. Removed when read (`summarize_own_log`) or at exit.
    Returns the file pattern (NCCL expands %h to the host, %p to the pid) or '' when left alone.
    """
    if env.get("NCCL_DEBUG") or env.get("NCCL_DEBUG_FILE"):
        return ""
    directory = tempfile.mkdtemp(prefix="app-check-nccl.", dir=log_dir or env.get("TMPDIR") or LOG_DIR_DEFAULT)
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    _CAPTURED.add(directory)
    pattern = os.path.join(directory, "nccl.%h.%p.log")
    # INFO is what names the transports; the file keeps it off the user's terminal.
    env["NCCL_DEBUG"] = "INFO"
    env["NCCL_DEBUG_FILE"] = pattern
    return pattern


def own_log_pattern(env: Mapping[str, str]) -> str:
    """A glob for this process's log file: NCCL writes %h as the host name cut at the first dot."""
    pattern = env.get("NCCL_DEBUG_FILE", "")
    return pattern.replace("%h", "*").replace("%p", str(os.getpid())) if pattern else ""


def _head_lines(path: str) -> list[str]:
    """The first `MAX_LOG_BYTES` of a log, as lines: what names the transports is logged at NCCL's start."""
    with open(path, "rb") as file:
        return file.read(MAX_LOG_BYTES).decode(errors="replace").splitlines()


def parse(lines: Sequence[str]) -> dict[str, Any]:
    """Summary of one process's NCCL log: network, intra-/inter-node transports, plugin, problems."""
    networks: list[str] = []
    intra: set[str] = set()
    inter: set[str] = set()
    problems: list[str] = []
    plugin = provider = ""
    nvls = False
    for line in lines:
        for needle, meaning, _ in _PROBLEMS:
            # libibverbs prints its own warnings (no "NCCL" in the line); "not found" only counts in a WARN.
            if needle in line and (needle != "not found" or "NCCL WARN" in line) and meaning not in problems:
                problems.append(meaning)
        if "NCCL" not in line:
            continue
        if (m := _USING_NETWORK.search(line)) and m.group(1) not in networks:
            networks.append(m.group(1))
        if m := _VIA.search(line):
            transport = _transport_name(m.group(1))
            (inter if transport.startswith("NET/") else intra).add(transport)
        if m := _OFI_VERSION.search(line):
            plugin = f"aws-ofi-nccl {m.group(1)}"
        if m := _OFI_PROVIDER.search(line):
            provider = m.group(1)
        if "NVLS multicast support is available" in line or "Connected NVLS" in line:
            nvls = True
    if nvls:
        intra.add("NVLS")
    return {
        "networks": networks,
        "intra": sorted(intra),
        "inter": sorted(inter),
        "plugin": plugin,
        "provider": provider,
        "problems": problems,
    }


def _transport_name(via: str) -> str:
    """`P2P/CUMEM/read` -> P2P/CUMEM; `NET/IB/0/GDRDMA` -> NET/IB; `NET/Libfabric/0` -> NET/Libfabric."""
    parts = via.split("/")
    if parts[0] == "NET":
        return "NET/" + parts[1]
    return "/".join(parts[:2]) if parts[0] == "P2P" and len(parts) > 1 else parts[0]


def summarize_own_log(env: Mapping[str, str]) -> dict[str, Any] | None:
    """This process's log (the first `MAX_LOG_BYTES` of each file), parsed; None when it is missing. A log
    `capture_to_files` directed is deleted with its directory once read; one the user directed stays."""
    pattern = own_log_pattern(env)
    files = glob.glob(pattern) if pattern else []
    lines = [line for name in files for line in _head_lines(name)]
    if os.path.dirname(pattern) in _CAPTURED:
        shutil.rmtree(os.path.dirname(pattern), ignore_errors=True)
    if not files:
        return None
    summary = parse(lines)
    if os.path.dirname(pattern) not in _CAPTURED:
        summary["log"] = files[0]
    return summary


def judge(
    summaries: Sequence[dict[str, Any] | None], nodes: Sequence[str], facts: Sequence[Mapping[str, Any]]
) -> list[Check]:
    """FAIL when inter-node traffic uses TCP sockets on nodes that have InfiniBand or Slingshot."""
    checks = []
    multi_node = len(set(nodes)) > 1
    fast = any(f.get("fast_fabric") for f in facts)
    socket_ranks = [r for r, s in enumerate(summaries) if s and "NET/Socket" in s["inter"]]
    if multi_node and fast and socket_ranks:
        checks.append(
            Check(
                "nccl: inter-node transport",
                FAIL,
                "NCCL sends inter-node traffic over TCP sockets "
                f"(NET/Socket) on {', '.join(sorted({nodes[r] for r in socket_ranks}))}, which have "
                "InfiniBand/Slingshot",
                "InfiniBand: make libibverbs+libmlx5 available, "
                f"{policy.export_line('infiniband', 'NCCL_IB_DISABLE', 'NCCL_IB_HCA', 'NCCL_NET')}; "
                "Slingshot: aws-ofi-nccl on LD_LIBRARY_PATH, "
                f"{policy.export_line('slingshot', 'NCCL_NET', 'FI_PROVIDER')}",
                stage="bandwidth",
            )
        )
    elif multi_node:
        inter = sorted({t for s in summaries if s for t in s["inter"]})
        checks.append(
            Check("nccl: inter-node transport", OK, ", ".join(inter) or "not seen in the log", stage="bandwidth")
        )
    problems = sorted({p for rank, s in enumerate(summaries) if s for p in s["problems"]
                       if _matters(p, facts[rank] if rank < len(facts) else {})})
    if problems:
        checks.append(
            Check(
                "nccl: log warnings",
                WARN,
                "; ".join(problems),
                "to read NCCL's own words, rerun with NCCL_DEBUG=INFO NCCL_DEBUG_FILE=$HOME/nccl.%h.%p.log",
                stage="bandwidth",
            )
        )
    return checks


def _matters(problem: str, fact: Mapping[str, Any]) -> bool:
    """Whether a problem in a rank's log concerns that rank's node (facts from an older report lack
    rdma/cxi: then every problem counts)."""
    where = _MATTERS_ON[problem]
    return where == "always" or bool(fact.get(where, True))


def describe(summaries: Sequence[dict[str, Any] | None], nodes: Sequence[str]) -> str:
    lines = []
    for rank, s in enumerate(summaries):
        if not s:
            continue
        lines.append(
            f"rank {rank} ({nodes[rank]}): network {', '.join(s['networks']) or '-'}; intra-node "
            f"{', '.join(s['intra']) or '-'}; inter-node {', '.join(s['inter']) or '-'}"
            + (f"; {s['plugin']}" if s["plugin"] else "")
            + (f" provider {s['provider']}" if s["provider"] else "")
            + (f"; log {s['log']}" if s.get("log") else "")
        )
    return "\n".join(lines)
