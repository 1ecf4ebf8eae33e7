"""Network interfaces, RDMA (InfiniBand/RoCE) ports, Slingshot cxi devices, and the NCCL/gloo
interface variables checked against them.

RDMA ports are mapped to network interfaces as `ibdev2netdev` does: the netdevs under
`/sys/class/infiniband/<dev>/device/net/` share the HCA's PCI function, and a netdev's `dev_port`
(0-based) names the HCA port it belongs to.
"""

from __future__ import annotations

import fcntl
import socket
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from app.check.node.probe import HOST, Probe
from app.check.node.sysfs import entries, read
from app.check.report import FAIL, OK, WARN, Check

#: /sys/class/net/<if>/type values (ARPHRD_*): what kind of link an interface is.
ARPHRD = {"1": "ethernet", "32": "infiniband", "772": "loopback"}
#: Prefixes NCCL skips when it picks a socket interface on its own (NCCL's default "^docker,lo").
NCCL_SKIPPED = ("docker", "lo", "virbr")
#: Interfaces of the fast fabrics: InfiniBand IPoIB and Slingshot's high-speed network.
FAST_PREFIXES = ("ib", "hsn")


@dataclass
class Interface:
    name: str
    kind: str
    state: str
    mac: str
    addresses: list[str] = field(default_factory=list)

    @property
    def up(self) -> bool:
        # Loopback and some virtual links report "unknown" while working.
        return self.state in ("up", "unknown")


@dataclass
class RdmaPort:
    device: str
    port: int
    state: str
    rate: str
    link_layer: str
    netdev: str

    @property
    def active(self) -> bool:
        return self.state.endswith("ACTIVE")


@dataclass
class CxiDevice:
    name: str
    netdev: str
    dev_node: bool


@dataclass
class NetworkInventory:
    interfaces: list[Interface]
    rdma: list[RdmaPort]
    cxi: list[CxiDevice]

    def interface(self, name: str) -> Interface | None:
        return next((i for i in self.interfaces if i.name == name), None)

    def roce_ports(self) -> list[RdmaPort]:
        """Active RDMA ports whose link layer is Ethernet (RoCE), with the netdev that carries them."""
        return [p for p in self.rdma if p.active and p.link_layer.lower() == "ethernet"]

    def fast_interfaces(self) -> list[Interface]:
        """IPoIB and Slingshot interfaces, and the Ethernet netdevs of active RoCE ports (eth0, eth1)."""
        roce = {p.netdev for p in self.roce_ports() if p.netdev}
        return [i for i in self.interfaces if i.up and (i.name.startswith(FAST_PREFIXES) or i.name in roce)]


def ipv4_addresses(name: str) -> list[str]:
    """The interface's primary IPv4 address (SIOCGIFADDR), [] when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
        except OSError:
            return []
    return [socket.inet_ntoa(packed[20:24])]


def kernel_interface(name: str) -> Interface:
    """An interface as this process's network namespace has it, from ioctls: flags (SIOCGIFFLAGS) and
    hardware address with its ARPHRD type (SIOCGIFHWADDR); for when /sys shows another namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("256s", name.encode()[:15])
        try:
            flags = struct.unpack_from("H", fcntl.ioctl(sock.fileno(), 0x8913, request), 16)[0]
            family, hardware = struct.unpack_from("H6s", fcntl.ioctl(sock.fileno(), 0x8927, request), 16)
        except OSError:
            return Interface(name, "other", "unknown", "")
    running = flags & 0x1 and flags & 0x40  # IFF_UP and IFF_RUNNING
    return Interface(name, ARPHRD.get(str(family), "other"), "up" if running else "down",
                     ":".join(f"{b:02x}" for b in hardware), ipv4_addresses(name))


def scan(probe: Probe = HOST, addresses: Callable[[str], list[str]] | None = None) -> NetworkInventory:
    """Read interfaces, RDMA ports and cxi devices. `addresses` defaults to the kernel's (a live probe only)."""
    sys_path, dev_path = probe.sys, probe.dev
    if addresses is None:
        addresses = ipv4_addresses if probe.live else (lambda name: [])
    net = sys_path / "class/net"
    names = entries(net)
    # sysfs shows the interfaces of the network namespace that mounted it, NCCL and gloo those of their own
    # (getifaddrs). They differ under `nsenter --net`, in some container runtimes, on the test cluster's
    # nodes: then this namespace's own list, read through ioctls, is the one that matters.
    own = sorted(name for _, name in socket.if_nameindex()) if probe.live else names
    if own != names:
        interfaces = [kernel_interface(name) for name in own]
    else:
        interfaces = [
            Interface(
                name=name,
                kind=ARPHRD.get(read(net / name / "type"), "other"),
                state=read(net / name / "operstate", "unknown"),
                mac=read(net / name / "address"),
                addresses=addresses(name),
            )
            for name in names
        ]
    rdma = []
    ib = sys_path / "class/infiniband"
    for device in entries(ib):
        netdevs = {}
        for netdev in entries(ib / device / "device/net"):
            dev_port = read(net / netdev / "dev_port") or read(ib / device / "device/net" / netdev / "dev_port", "0")
            netdevs[int(dev_port or 0) + 1] = netdev
        for port in entries(ib / device / "ports"):
            if not port.isdigit():
                continue
            base = ib / device / "ports" / port
            rdma.append(
                RdmaPort(
                    device,
                    int(port),
                    read(base / "state", "?"),
                    read(base / "rate", "?"),
                    read(base / "link_layer", "?"),
                    netdevs.get(int(port), ""),
                )
            )
    cxi = []
    for name in entries(sys_path / "class/cxi"):
        nets = entries(sys_path / "class/cxi" / name / "device/net")
        cxi.append(CxiDevice(name, nets[0] if nets else "", (dev_path / name).exists()))
    return NetworkInventory(interfaces, rdma, cxi)


@dataclass(frozen=True)
class Selector:
    """NCCL's interface/HCA list syntax: comma-separated prefixes, `=` exact names, `^` excludes."""

    names: tuple[str, ...]
    exact: bool
    exclude: bool

    @classmethod
    def parse(cls, value: str) -> Selector:
        text = value.strip()
        exclude = text.startswith("^")
        text = text[1:] if exclude else text
        exact = text.startswith("=")
        text = text[1:] if exact else text
        # NCCL_IB_HCA items may carry a port: mlx5_0:1 -> match on the device name.
        names = tuple(item.split(":")[0].strip() for item in text.split(",") if item.strip())
        return cls(names, exact, exclude)

    def matches(self, name: str) -> bool:
        hit = any(name == n if self.exact else name.startswith(n) for n in self.names)
        return hit != self.exclude


def nccl_default_socket_interfaces(inventory: NetworkInventory) -> list[Interface]:
    """What NCCL picks without NCCL_SOCKET_IFNAME: `ib*` first, else anything but docker/lo."""
    up = [i for i in inventory.interfaces if i.up]
    ib = [i for i in up if i.name.startswith("ib")]
    return ib or [i for i in up if not i.name.startswith(NCCL_SKIPPED)]


def check_network(env: Mapping[str, str], inventory: NetworkInventory) -> list[Check]:
    checks = [_interfaces(inventory), _rdma(inventory), _roce(inventory), _cxi(inventory)]
    for var in ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"):
        if env.get(var):
            checks.append(_socket_ifname(var, env[var], inventory))
    if env.get("NCCL_IB_HCA"):
        checks.append(_ib_hca(env["NCCL_IB_HCA"], inventory))
    checks.append(_management_ethernet(env, inventory))
    return [c for c in checks if c is not None]


def _interfaces(inv: NetworkInventory) -> Check:
    shown = ", ".join(
        f"{i.name}({i.kind},{i.state}{',' + '/'.join(i.addresses) if i.addresses else ''})" for i in inv.interfaces
    )
    usable = [i for i in inv.interfaces if i.up and i.kind != "loopback"]
    if not usable:
        return Check(
            "network: interfaces",
            FAIL,
            f"no interface besides loopback is up: {shown or 'none'}",
            "run on a compute node with its network up; inside a container, do not use --net",
        )
    return Check("network: interfaces", OK, shown)


def _rdma(inv: NetworkInventory) -> Check:
    if not inv.rdma:
        return Check("network: RDMA (InfiniBand/RoCE)", OK, "no RDMA devices in /sys/class/infiniband")
    shown = ", ".join(
        f"{p.device}:{p.port} {p.state.split(':')[-1].strip()} {p.rate.split('(')[0].strip()} "
        f"{p.link_layer} -> {p.netdev or '(no netdev)'}"
        for p in inv.rdma
    )
    if not any(p.active for p in inv.rdma):
        return Check(
            "network: RDMA (InfiniBand/RoCE)",
            FAIL,
            f"no RDMA port is ACTIVE: {shown}",
            "the HCA link is down: check the cable/switch (ibstat) or ask the admins; "
            "meanwhile NCCL would fall back to TCP sockets",
        )
    if not all(p.active for p in inv.rdma):
        return Check(
            "network: RDMA (InfiniBand/RoCE)",
            WARN,
            shown,
            "some ports are not ACTIVE: exclude them, e.g. NCCL_IB_HCA="
            + ",".join(f"{p.device}:{p.port}" for p in inv.rdma if p.active),
        )
    return Check("network: RDMA (InfiniBand/RoCE)", OK, shown)


def _cxi(inv: NetworkInventory) -> Check | None:
    if not inv.cxi:
        return None
    shown = ", ".join(
        f"{d.name} -> {d.netdev or '(no netdev)'}{'' if d.dev_node else ' (no /dev node)'}" for d in inv.cxi
    )
    missing = [d.name for d in inv.cxi if not d.dev_node]
    if missing:
        binds = " ".join(f"--bind /dev/{name}" for name in missing)
        return Check(
            "network: Slingshot cxi",
            FAIL,
            f"{shown}: /dev/{missing[0]} is not visible",
            f"bind the cxi devices into the container: apptainer exec {binds} ...",
        )
    return Check("network: Slingshot cxi", OK, shown)


def _socket_ifname(var: str, value: str, inv: NetworkInventory) -> Check:
    if var == "GLOO_SOCKET_IFNAME":
        # gloo takes exact interface names, comma-separated, with no prefix rules.
        selector = Selector(tuple(n.strip() for n in value.split(",") if n.strip()), exact=True, exclude=False)
    else:
        selector = Selector.parse(value)
    matched = [i for i in inv.interfaces if selector.matches(i.name)]
    names = ", ".join(i.name for i in inv.interfaces) or "none"
    example = _suggest_interface(inv)
    if not matched:
        return Check(
            f"network: {var}",
            FAIL,
            f"{var}={value} matches no interface on this node (it has: {names})",
            f"set {var} to an interface that exists on every node, e.g. {var}={example}",
        )
    up = [i for i in matched if i.up]
    if not up:
        return Check(
            f"network: {var}",
            FAIL,
            f"{var}={value} matches only interfaces that are down: "
            + ", ".join(f"{i.name}({i.state})" for i in matched),
            f"choose an interface that is up, e.g. {var}={example}",
        )
    return Check(f"network: {var}", OK, f"{var}={value} -> " + ", ".join(i.name for i in up))


def _ib_hca(value: str, inv: NetworkInventory) -> Check:
    selector = Selector.parse(value)
    matched = [p for p in inv.rdma if selector.matches(p.device)]
    devices = ", ".join(sorted({p.device for p in inv.rdma})) or "none"
    if not matched:
        example = (
            f"NCCL_IB_HCA={inv.rdma[0].device.rstrip('0123456789').rstrip('_') or inv.rdma[0].device}"
            if inv.rdma
            else "unset NCCL_IB_HCA (this node has no RDMA devices)"
        )
        return Check(
            "network: NCCL_IB_HCA",
            FAIL,
            f"NCCL_IB_HCA={value} matches no RDMA device (this node has: {devices})",
            f"name existing HCAs, e.g. {example}",
        )
    active = [p for p in matched if p.active]
    if not active:
        return Check(
            "network: NCCL_IB_HCA",
            FAIL,
            f"NCCL_IB_HCA={value} selects only inactive ports",
            "select ACTIVE ports (see the RDMA line) or fix the links",
        )
    return Check(
        "network: NCCL_IB_HCA",
        OK,
        f"NCCL_IB_HCA={value} -> " + ", ".join(f"{p.device}:{p.port}" for p in active),
    )


def _roce(inv: NetworkInventory) -> Check | None:
    """RoCE uses NCCL's IB transport over Ethernet: say which netdev carries which port, and what is the
    site's to set (NCCL picks a RoCEv2 GID itself since 2.21; the traffic class depends on the switches)."""
    ports = inv.roce_ports()
    if not ports:
        return None
    mapping = ", ".join(f"{p.device}:{p.port}->{p.netdev or '?'}" for p in ports)
    netdev = next((p.netdev for p in ports if p.netdev), "")
    return Check(
        "network: RoCE",
        OK,
        f"{mapping}; bootstrap over the RoCE netdev (NCCL_SOCKET_IFNAME={netdev or 'its netdev'}), "
        f"NCCL_IB_HCA lists the ports to use, NCCL_IB_TC=<the lossless traffic class of your switches> "
        "(site-specific: ask the admins, e.g. 160); NCCL_IB_GID_INDEX only for NCCL < 2.21",
    )


def _suggest_interface(inv: NetworkInventory) -> str:
    fast = inv.fast_interfaces()
    if fast:
        return fast[0].name.rstrip("0123456789") if fast[0].name.startswith("hsn") else fast[0].name
    usable = [i.name for i in inv.interfaces if i.up and i.kind != "loopback"]
    return usable[0] if usable else "eth0"


def _management_ethernet(env: Mapping[str, str], inv: NetworkInventory) -> Check | None:
    fast = inv.fast_interfaces()
    has_fabric = bool(fast) or any(p.active for p in inv.rdma) or bool(inv.cxi)
    if not has_fabric:
        return None
    if env.get("NCCL_SOCKET_IFNAME"):
        selector = Selector.parse(env["NCCL_SOCKET_IFNAME"])
        chosen = [i for i in inv.interfaces if i.up and selector.matches(i.name)]
        how = f"NCCL_SOCKET_IFNAME={env['NCCL_SOCKET_IFNAME']}"
    else:
        chosen = nccl_default_socket_interfaces(inv)
        how = "NCCL's default choice"
    fast_names = {i.name for i in fast}
    slow = [i for i in chosen if i.name not in fast_names and i.kind != "infiniband"]
    name = "network: fabric vs management Ethernet"
    if env.get("NCCL_IB_DISABLE", "0") not in ("", "0") and inv.rdma:
        return Check(
            name,
            WARN,
            f"NCCL_IB_DISABLE={env['NCCL_IB_DISABLE']} on a node with InfiniBand: NCCL uses TCP",
            "unset NCCL_IB_DISABLE (or set NCCL_IB_DISABLE=0) to use the HCAs",
        )
    if slow:
        # NCCL takes the first matching interface for bootstrap (and several for its socket transport):
        # any management interface among the candidates can be the one it uses.
        example = _suggest_interface(inv)
        return Check(
            name,
            WARN,
            f"{how} can use {', '.join(i.name for i in slow)}, which looks like management "
            f"Ethernet, while {', '.join(i.name for i in fast) or 'RDMA/cxi devices'} exist",
            f"point NCCL at the fabric: NCCL_SOCKET_IFNAME={example}",
        )
    return Check(name, OK, f"{how} uses {', '.join(i.name for i in chosen) or 'no interface'}")
