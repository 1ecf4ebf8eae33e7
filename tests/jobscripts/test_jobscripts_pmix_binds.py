"""The container of an MPI rank that srun (--mpi=pmix) or PALS (--pmi=pmix) starts sees its PMIx server's files.

Slurm's mpi/pmix plugin keeps the server's directory under SlurmdSpoolDir/pmix.JOB.STEP, announced to each task as
PMIX_SERVER_TMPDIR, and the client's under TmpFS/spmix_appdir_UID_JOB.STEP (src/plugins/mpi/pmix/pmixp_info.c,
pmixp_client.c, slurm-25-11-7-1; the task's PMIx library reads PMIX_SERVER_TMPDIR and PMIX_SYSTEM_TMPDIR). Apptainer
binds /tmp but not /var/spool: on a real node the rank inside the container finds no server. NVIDIA enroot's
50-slurm-pmi.sh hook binds them; the job scripts do the same, per task, from what the task is given.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.host.launch.job_parts import job_parts


def rank_container(tmp_path: Path, task_env: dict[str, str], tmpfs: str = "") -> list[str]:
    """What `apptainer` prints when the job's container command starts nccl-tests in one task: its argv
    ("argv:ARG" lines) and the PMIx settings it was given ("env:NAME=VALUE" lines; Apptainer passes the
    task's environment into the container)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "apptainer"
    stub.write_text('#!/bin/sh\n[ "$1" = inspect ] && exit 0\nprintf "argv:%s\\n" "$@"\n'
                    "env | grep '^PMIX_MCA_' | sed 's/^/env:/'\n")
    stub.chmod(0o755)
    (tmp_path / "app.sif").touch()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "IMAGE": str(tmp_path / "app.sif"),
           "RUN_DIR": str(tmp_path / "run"), "DDP_PMIX_TMPFS": tmpfs, "FABRIC": "none"}
    ran = job_parts(["container"], env, kind="nccl-tests")
    assert ran.returncode == 0, ran.stderr
    result = subprocess.run(["env", *(f"{k}={v}" for k, v in task_env.items()), *ran.found["container"]["argv"],
                             "all_reduce_perf", "-g", "1"], env=ran.env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def rank_container_argv(tmp_path: Path, task_env: dict[str, str], tmpfs: str = "") -> list[str]:
    """The argv `apptainer` gets when the job's container command starts nccl-tests in one task."""
    return [line[len("argv:"):] for line in rank_container(tmp_path, task_env, tmpfs) if line.startswith("argv:")]


def rank_container_pmix_settings(tmp_path: Path, task_env: dict[str, str]) -> dict[str, str]:
    """The PMIX_MCA_* variables the container of one nccl-tests task gets."""
    lines = [line[len("env:"):] for line in rank_container(tmp_path, task_env) if line.startswith("env:")]
    return dict(line.split("=", 1) for line in lines)


def binds(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--bind"]


def test_an_mpi_ranks_container_binds_the_pmix_server_and_client_directories_of_its_step(tmp_path: Path) -> None:
    spool, tmpfs = tmp_path / "var/spool/slurmd", tmp_path / "local/tmp"
    server = spool / "pmix.7.0"
    client = tmpfs / f"spmix_appdir_{os.getuid()}_7.0"
    server.mkdir(parents=True)
    client.mkdir(parents=True)
    task = {"PMIX_SERVER_TMPDIR": f"{server}/", "PMIX_SYSTEM_TMPDIR": "/tmp", "SLURM_JOB_ID": "7",
            "SLURM_STEP_ID": "0"}
    argv = rank_container_argv(tmp_path, task, tmpfs=str(tmpfs))
    assert argv[0] == "exec" and argv[-4:] == [str(tmp_path / "app.sif"), "all_reduce_perf", "-g", "1"]
    assert str(server) in binds(argv) and str(client) in binds(argv)
    assert "/tmp" not in binds(argv)  # Apptainer binds /tmp itself


def test_a_task_without_a_pmix_server_gets_no_extra_binds(tmp_path: Path) -> None:
    argv = rank_container_argv(tmp_path, {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0"}, tmpfs=str(tmp_path))
    assert binds(argv) == [str(tmp_path / "run")]


def test_a_directory_the_task_names_but_this_node_lacks_is_not_bound(tmp_path: Path) -> None:
    argv = rank_container_argv(tmp_path, {"PMIX_SERVER_TMPDIR": str(tmp_path / "gone")})
    assert str(tmp_path / "gone") not in binds(argv)


def test_a_tmpfs_per_node_name_is_expanded_in_each_task(tmp_path: Path) -> None:
    """slurm.conf may name each node's TmpFS by %n, which `scontrol show config` shows unexpanded (the test
    cluster's TmpFS=BASE/%n/tmp); slurmd expands it with the node's name (slurm_conf_expand_slurmd_path)."""
    client = tmp_path / "node2" / "tmp" / f"spmix_appdir_{os.getuid()}_7.1"
    client.mkdir(parents=True)
    task = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "1", "SLURMD_NODENAME": "node2"}
    assert str(client) in binds(rank_container_argv(tmp_path, task, tmpfs=f"{tmp_path}/%n/tmp"))


#: What Slurm's PMIx server (PMIx_server_setup_fork) announces to each task: the security and storage modules its
#: clients may use (Slurm 25.11 with PMIx 4.2.2 on the test cluster, `srun --mpi=pmix env`)
ANNOUNCED = {"PMIX_SECURITY_MODE": "munge,native", "PMIX_GDS_MODULE": "ds21,ds12,hash"}
#: Older PMIx servers also announce their transports (PMIX_PTL_MODULE; PMIx 4.2 announces none)
ANNOUNCED_V3 = {**ANNOUNCED, "PMIX_PTL_MODULE": "tcp,usock"}


@pytest.mark.parametrize(("task", "expected"), [
    pytest.param(ANNOUNCED, {"PMIX_MCA_psec": "munge,native", "PMIX_MCA_gds": "ds21,ds12,hash"},
                 id="the-servers-modules"),
    pytest.param(ANNOUNCED_V3, {"PMIX_MCA_psec": "munge,native", "PMIX_MCA_ptl": "tcp,usock",
                                "PMIX_MCA_gds": "ds21,ds12,hash"}, id="an-older-servers-transports"),
    pytest.param({**ANNOUNCED_V3, "PMIX_MCA_psec": "native", "PMIX_MCA_gds": "hash"},
                 {"PMIX_MCA_psec": "native", "PMIX_MCA_ptl": "tcp,usock", "PMIX_MCA_gds": "hash"}, id="yours-kept"),
    pytest.param({"SLURM_JOB_ID": "7"}, {}, id="no-pmix-server"),
])
def test_the_container_uses_the_pmix_modules_its_server_announces_unless_you_chose(
        tmp_path: Path, task: dict[str, str], expected: dict[str, str]) -> None:
    """The image's PMIx library may hold modules the host's server lacks or cannot serve into a container
    (psec/munge without the host's munge socket, a shared-memory store in a directory not bound): each task's
    container is held to the modules its server announced, as enroot's 50-slurm-pmi.sh hook does."""
    assert rank_container_pmix_settings(tmp_path, task) == expected


def test_a_tmpfs_per_host_name_is_expanded_in_each_task(tmp_path: Path) -> None:
    """TmpFS may also hold %h, the node's host name, which slurmd expands beside %n (slurm_conf_expand_slurmd_path,
    src/common/read_config.c, slurm-25-11-7-1)."""
    client = tmp_path / os.uname().nodename / "tmp" / f"spmix_appdir_{os.getuid()}_7.1"
    client.mkdir(parents=True)
    task = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "1", "SLURMD_NODENAME": "node2"}
    assert str(client) in binds(rank_container_argv(tmp_path, task, tmpfs=f"{tmp_path}/%h/tmp"))


def test_the_steps_slurm_pmix_tmpdir_moves_the_client_directory(tmp_path: Path) -> None:
    """mpi/pmix takes the client's base from the step's SLURM_PMIX_TMPDIR before mpi.conf and TmpFS
    (src/plugins/mpi/pmix/pmixp_info.c, PMIXP_TMPDIR_CLI)."""
    mine = tmp_path / "mine"
    client = mine / f"spmix_appdir_{os.getuid()}_7.2"
    client.mkdir(parents=True)
    task = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "2", "SLURM_PMIX_TMPDIR": str(mine)}
    assert str(client) in binds(rank_container_argv(tmp_path, task, tmpfs=str(tmp_path / "local")))
