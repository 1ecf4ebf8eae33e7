"""app/host/common/rendezvous_port.py: the rendezvous port, free and at random, and the one a job id derives."""

from __future__ import annotations

import random
from pathlib import Path

from app.host.common.rendezvous_port import (
    DEFAULT_PORT,
    PORT_HIGH,
    PORT_LOW,
    derive_port,
    free_port,
    launcher_port,
    listening_ports,
)

HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"


def proc(root: Path, listening: range, first_ephemeral: int | None = None) -> str:
    net = root / "proc" / "net"
    net.mkdir(parents=True)
    rows = [f"   0: 00000000:{port:04X} 00000000:0000 0A 0 0 0 0 0 0 0 0" for port in listening]
    (net / "tcp").write_text(HEADER + "\n".join(rows) + "\n")
    (net / "tcp6").write_text(HEADER + "   0: 00000000000000000000000000000000:1F90 00000000:0000 06 0\n")
    if first_ephemeral is not None:
        sys_dir = root / "proc" / "sys" / "net" / "ipv4"
        sys_dir.mkdir(parents=True)
        (sys_dir / "ip_local_port_range").write_text(f"{first_ephemeral}\t60999\n")
    return str(root)


def test_the_port_is_one_nothing_listens_on(tmp_path):
    root = proc(tmp_path, range(PORT_LOW, 23456))
    assert listening_ports(root) >= {PORT_LOW, 23455} and 8080 not in listening_ports(root)  # 06: TIME_WAIT
    assert {free_port(root, random.Random(seed)) for seed in range(20)} - set(range(23456, PORT_HIGH)) == set()


def test_the_port_stays_below_a_lower_ephemeral_range(tmp_path):
    root = proc(tmp_path, range(0), first_ephemeral=25000)
    assert all(PORT_LOW <= free_port(root, random.Random(seed)) < 25000 for seed in range(50))


def test_the_port_is_random_from_one_job_start_to_the_next(tmp_path):
    root = proc(tmp_path, range(0))
    assert len({free_port(root) for _ in range(8)}) > 1


def test_a_derived_port_depends_on_the_whole_job_id():
    one, other = "1234567.aurora-pbs-0001", "1234568.aurora-pbs-0001"
    assert derive_port(one) == derive_port(one) != derive_port(other)
    assert all(PORT_LOW <= derive_port(job) < PORT_HIGH for job in (one, other, ""))


def test_a_launch_without_a_chosen_port_derives_it_from_the_job_id_else_takes_torchs_default():
    assert launcher_port("4242.pbs01") == derive_port("4242.pbs01")
    assert launcher_port(None) == DEFAULT_PORT == 29500
