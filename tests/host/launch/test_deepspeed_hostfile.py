"""app/host/launch/deepspeed_hostfile.py: the hostfile DeepSpeed's launcher reads, and the launch that needs no SSH."""

from __future__ import annotations

import os
import stat

import pytest

from app.host.launch.deepspeed_hostfile import hostfile_text, launch_line, write_hostfile


@pytest.mark.parametrize(("group_readable", "mode"), [(False, 0o600), (True, 0o640)])
def test_the_hostfile_is_replaced_whole_and_private_whatever_the_umask(tmp_path, group_readable, mode):
    path = str(tmp_path / "hostfile")
    write_hostfile(path, "old slots=1\n", group_readable)
    old = os.umask(0)
    try:
        write_hostfile(path, hostfile_text(["gpu01", "gpu02"], 4), group_readable)
    finally:
        os.umask(old)
    assert (tmp_path / "hostfile").read_text() == "gpu01 slots=4\ngpu02 slots=4\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == mode and os.listdir(tmp_path) == ["hostfile"]


def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("theirs\n")
    (tmp_path / "hostfile.tmp").symlink_to(target)
    with pytest.raises(OSError):
        write_hostfile(str(tmp_path / "hostfile"), "gpu01 slots=4\n", False)
    assert target.read_text() == "theirs\n"


@pytest.mark.parametrize(("scheduler", "rank", "launcher"), [
    ("slurm", "--node_rank=$SLURM_NODEID", "(srun --ntasks-per-node=1)"),
    ("pbs", "--node_rank=$PALS_NODEID", "(mpiexec -n 2 --ppn 1)"),
])
def test_the_launch_names_the_master_and_each_nodes_rank(scheduler, rank, launcher):
    line = launch_line("/runs/7/hostfile", scheduler, 2, "gpu01", "29400")
    assert rank in line and launcher in line and "--no_ssh" in line
    assert line.endswith("--master_addr=gpu01 --master_port=29400 SCRIPT.py")
