"""NCCL's network plugin and libfabric: is the plugin the fabric needs findable, and do NCCL_NET,
NCCL_NET_PLUGIN and FI_PROVIDER agree with the hardware?

NCCL loads `libnccl-net-${NCCL_NET_PLUGIN}.so` when NCCL_NET_PLUGIN is set, else `libnccl-net.so`
(aws-ofi-nccl installs both that and `libnccl-net-ofi.so`). A missing plugin is not an error for NCCL:
it silently uses TCP sockets, which is why `NCCL_NET="AWS Libfabric"` is recommended on Slingshot.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.check.node.network import NetworkInventory
from app.check.node.probe import HOST, Probe
from app.check.report import FAIL, OK, WARN, Check
from app.host.common import fabric_policy as policy

#: Where the dynamic loader looks besides LD_LIBRARY_PATH (Debian/Ubuntu multiarch, RHEL, NGC images).
SYSTEM_LIBRARY_DIRS = (
    "/usr/local/lib",
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/local/cuda/lib64",
    "/opt/hpcx/nccl_rdma_sharp_plugin/lib",
    "/opt/amazon/ofi-nccl/lib",
    "/opt/aws-ofi-nccl/lib",
)
#: NCCL_NET values served by aws-ofi-nccl (older releases call the network "AWS Libfabric").
OFI_NETWORKS = ("aws libfabric", "libfabric", "ofi")
FI_INFO_TIMEOUT_S = 10.0


def library_dirs(env: Mapping[str, str]) -> list[str]:
    extra = [d for d in env.get("LD_LIBRARY_PATH", "").split(":") if d]
    return extra + [d for d in SYSTEM_LIBRARY_DIRS if d not in extra]


def find_libraries(pattern: str, dirs: Sequence[str]) -> list[str]:
    found = []
    for directory in dirs:
        found.extend(str(p) for p in sorted(Path(directory).glob(pattern)) if p not in found)
    return found


def check_fabric(
    env: Mapping[str, str],
    inventory: NetworkInventory,
    dirs: Sequence[str],
    probe: Probe = HOST,
) -> list[Check]:
    plugins = find_libraries("libnccl-net*.so*", dirs)
    checks = [_plugin(env, inventory, plugins, dirs), _verbs(inventory, dirs)]
    provider = env.get("FI_PROVIDER", "")
    if provider:
        checks.append(_fi_provider(provider, inventory, probe.dev))
        checks.append(_fi_info(provider))
    return [c for c in checks if c is not None]


def _plugin(env: Mapping[str, str], inv: NetworkInventory, plugins: list[str], dirs: Sequence[str]) -> Check:
    name = "fabric: NCCL net plugin"
    net = env.get("NCCL_NET", "")
    plugin_var = env.get("NCCL_NET_PLUGIN", "")
    shown = ", ".join(Path(p).name for p in plugins) or "none"
    if plugin_var and plugin_var != "none":
        wanted = plugin_var if plugin_var.endswith(".so") else f"libnccl-net-{plugin_var}.so"
        if not any(Path(p).name.startswith(Path(wanted).name) for p in plugins) and not Path(plugin_var).is_file():
            return Check(
                name,
                FAIL,
                f"NCCL_NET_PLUGIN={plugin_var} but {wanted} is not on the library path (found: {shown})",
                "unset NCCL_NET_PLUGIN, or add the plugin's directory to LD_LIBRARY_PATH",
            )
        if net.lower() in OFI_NETWORKS and "ofi" not in plugin_var.lower():
            return Check(
                name,
                WARN,
                f"NCCL_NET={net} with NCCL_NET_PLUGIN={plugin_var}: that plugin can make "
                "NCCL ignore NCCL_NET (NGC images set it)",
                "unset NCCL_NET_PLUGIN",
            )
    if net.lower() in OFI_NETWORKS and not plugins:
        return Check(
            name,
            FAIL,
            f'NCCL_NET="{net}" but no libnccl-net*.so on the library path',
            "install aws-ofi-nccl in the image or add its lib directory to LD_LIBRARY_PATH",
        )
    if net.lower() == "ib" and not inv.rdma:
        return Check(name, FAIL, "NCCL_NET=IB on a node without RDMA devices", "unset NCCL_NET")
    if net.lower() == "socket" and (inv.rdma or inv.cxi):
        return Check(
            name,
            WARN,
            "NCCL_NET=Socket on a node with a fast fabric: inter-node traffic goes over TCP",
            f"unset NCCL_NET (InfiniBand) or {policy.export_line('slingshot', 'NCCL_NET')} (Slingshot)",
        )
    if inv.cxi:
        if not plugins:
            return Check(
                name,
                FAIL,
                "Slingshot (cxi) node but no libnccl-net*.so (aws-ofi-nccl) on the library path: "
                "NCCL would use TCP sockets, ~20x slower",
                "use an image with aws-ofi-nccl, or add its lib directory to LD_LIBRARY_PATH",
            )
        if not net:
            return Check(
                name,
                WARN,
                f"plugin found ({shown}) but NCCL_NET is unset: a plugin that fails to load "
                "would fall back to TCP silently",
                f"{policy.export_line('slingshot', 'NCCL_NET')} for multi-node runs",
            )
    return Check(name, OK, f"plugins: {shown}; NCCL_NET={net or '(auto)'}")


def _verbs(inv: NetworkInventory, dirs: Sequence[str]) -> Check | None:
    if not inv.rdma:
        return None
    verbs = find_libraries("libibverbs.so*", dirs)
    mlx5 = find_libraries("libmlx5.so*", dirs)
    if not verbs:
        return Check(
            "fabric: verbs userspace",
            FAIL,
            "RDMA devices present but libibverbs is not in this environment: NCCL falls back to TCP sockets",
            "install rdma-core (libibverbs1, ibverbs-providers) in the image",
        )
    if not mlx5 and any(p.device.startswith("mlx5") for p in inv.rdma):
        return Check(
            "fabric: verbs userspace",
            FAIL,
            "mlx5 HCAs but no libmlx5 provider: libibverbs finds no device driver",
            "install ibverbs-providers (rdma-core) in the image",
        )
    return Check("fabric: verbs userspace", OK, f"{Path(verbs[0]).name}" + (f", {Path(mlx5[0]).name}" if mlx5 else ""))


def _fi_provider(provider: str, inv: NetworkInventory, dev: Path) -> Check:
    name = "fabric: FI_PROVIDER"
    if provider == "efa" and not any(p.device.startswith("efa") for p in inv.rdma):
        return Check(
            name,
            FAIL,
            "FI_PROVIDER=efa but this node has no AWS EFA device",
            f"on HPE Slingshot {policy.export_line('slingshot', 'FI_PROVIDER')} (efa is AWS-only)" if inv.cxi
            else "unset FI_PROVIDER",
        )
    if provider == "cxi" and not list(dev.glob("cxi*")):
        return Check(
            name,
            FAIL,
            f"FI_PROVIDER=cxi but no {dev}/cxi* device is visible",
            "run on a Slingshot node; in a container bind each /dev/cxi* (apptainer --bind /dev/cxi0)",
        )
    return Check(name, OK, f"FI_PROVIDER={provider}")


def _fi_info(provider: str) -> Check | None:
    fi_info = shutil.which("fi_info")
    if fi_info is None:
        return None
    try:
        out = subprocess.run([fi_info, "-p", provider], capture_output=True, text=True, timeout=FI_INFO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Check(
            "fabric: fi_info",
            WARN,
            f"fi_info -p {provider} did not answer in {FI_INFO_TIMEOUT_S:.0f}s",
            "check the libfabric installation (fi_info -l)",
        )
    text = out.stdout + out.stderr
    if f"provider: {provider}" in text:
        return Check("fabric: fi_info", OK, f"fi_info -p {provider} lists provider {provider}")
    first = (text.strip().splitlines() or ["no output"])[0]
    return Check(
        "fabric: fi_info",
        FAIL,
        f"fi_info -p {provider} finds no provider ({first})",
        "bind the host's libfabric (/opt/cray/libfabric) and /dev/cxi* into the container, "
        "or build libfabric with the provider",
    )
