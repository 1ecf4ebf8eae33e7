"""The job's RUN_DIR/hostfile for users of the `deepspeed` launcher (app/host/launch/job.py Job.deepspeed_hostfile).

MareNostrum 5's guide (seed 000) builds a hostfile from `scontrol show hostnames` alone; DeepSpeed's launcher
reads `NODE slots=N` lines, and refuses a line without slots=. The job scripts write it for every job, Slurm and
PBS alike; DeepSpeed's own parser is the judge here.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.host.launch.job_parts import REPO, Ran, job_parts


def write_hostfile(run_dir: Path, nodes: list[str], nproc: int, scheduler: str = "slurm", **env: str) -> Ran:
    """The job's hostfile part for NODES with NPROC processes a node (GPUS_PER_NODE) for a module of your own."""
    return job_parts(["workload", "nproc", "hostfile"], {"RUN_DIR": str(run_dir), "GPUS_PER_NODE": str(nproc), **env},
                     "-m", "my_pkg.train", cwd=run_dir, nodes=",".join(nodes), scheduler=scheduler)


def test_the_hostfile_has_one_line_per_node_with_its_processes_as_slots(tmp_path: Path) -> None:
    result = write_hostfile(tmp_path, ["gpu01", "gpu02", "gpu10"], 4)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "hostfile").read_text() == "gpu01 slots=4\ngpu02 slots=4\ngpu10 slots=4\n"
    assert f"wrote {tmp_path}/hostfile for the deepspeed launcher (3 node(s) x 4 slot(s))" in result.stdout


def test_a_pbs_job_writes_it_too_in_its_run_dir(tmp_path: Path) -> None:
    """docs/deepspeed.md says every job writes $RUN_DIR/hostfile, not only a Slurm job."""
    result = write_hostfile(tmp_path, ["x1000c0s0b0n0", "x1000c0s0b0n1"], 4, "pbs")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "hostfile").read_text() == "x1000c0s0b0n0 slots=4\nx1000c0s0b0n1 slots=4\n"


def test_deepspeeds_own_launcher_reads_it_as_the_jobs_nodes_and_slots(tmp_path: Path) -> None:
    runner = pytest.importorskip("deepspeed.launcher.runner", reason="needs deepspeed: pip install -e '.[deepspeed]'")
    assert write_hostfile(tmp_path, ["as01r1b01", "as01r1b02"], 4).returncode == 0
    assert dict(runner.fetch_hostfile(str(tmp_path / "hostfile"))) == {"as01r1b01": 4, "as01r1b02": 4}
    # The guide's `scontrol show hostnames > hostfile` (names alone) is what that launcher refuses
    with pytest.raises(ValueError, match="Hostfile contains a bad entry: as01r1b01"):
        runner._parse_hostfile(["as01r1b01\n", "as01r1b02\n"])


def test_a_requeued_job_on_other_nodes_rewrites_it(tmp_path: Path) -> None:
    write_hostfile(tmp_path, ["gpu01", "gpu02"], 4)
    assert write_hostfile(tmp_path, ["gpu01", "gpu03"], 2).returncode == 0
    assert (tmp_path / "hostfile").read_text() == "gpu01 slots=2\ngpu03 slots=2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostfile"]  # no temporary file left behind


def test_a_slurm_job_writes_it_and_a_dry_run_only_says_so(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02",
           "GPUS_PER_NODE": "4"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "train"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (f"DRY_RUN=1: would write {tmp_path}/runs/dry-run/hostfile (2 line(s) like 'gpu01 slots=4')"
            in result.stdout)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("scheduler", "node_rank"), [("slurm", "$SLURM_NODEID"), ("pbs", "$PALS_NODEID")])
def test_the_launch_it_prints_needs_no_ssh_on_any_node(tmp_path: Path, scheduler: str, node_rank: str) -> None:
    """DeepSpeed's launcher with --no_ssh still runs `ssh <first node> hostname -I` unless --master_addr is given,
    and its --launcher slurm needs `sinfo`, which the image lacks (deepspeed/launcher/runner.py and
    multinode_runner.py, v0.19.8). The printed launch, read by DeepSpeed's own parser, takes neither path."""
    runner = pytest.importorskip("deepspeed.launcher.runner", reason="needs deepspeed: pip install -e '.[deepspeed]'")
    result = write_hostfile(tmp_path, ["gpu01", "gpu02"], 4, scheduler, RDZV_PORT="29400")
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "deepspeed --hostfile" in line]
    launch = shlex.split(line[line.index("deepspeed --hostfile"):])
    assert f"--node_rank={node_rank}" in launch  # each node's own, expanded there
    args = runner.parse_args([arg.replace(node_rank, "1") for arg in launch[1:]])
    assert (args.hostfile, args.no_ssh, args.launcher) == (f"{tmp_path}/hostfile", True, "pdsh")
    assert (args.master_addr, args.master_port) == ("gpu01", 29400)
    assert (args.node_rank, args.user_script) == (1, "SCRIPT.py")
