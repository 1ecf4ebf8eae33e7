"""The job's plan (app/host/launch/job.py) part by part, without a scheduler: fabric settings, binds, workload, counts,
the rendezvous, each the job's own method in a fresh process (tests/host/launch/job_parts.py), and what a node's
wrapper (app/common/node_wrapper.sh) makes of the environment the job leaves. The whole job:
tests/host/launch/test_job.py; end to end on the cluster: tests/jobscripts/test_jobscripts_slurm.py.

Fabric hardware is a fake tree under DDP_PROBE_ROOT (/dev/cxi0, /sys/class/infiniband/mlx5_0, /sys/class/net/ib0,
host libraries); `apptainer` is a stub that answers `inspect --labels`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.host.launch.checkout import module_command
from tests.host.launch.job_parts import REPO, Ran, job_parts
from tests.trainer_runs import free_port

#: The node wrapper's text as every step hands it to `sh -c` (app/host/launch/job.py, JobRun)
NODE_WRAPPER = (REPO / "app" / "common" / "node_wrapper.sh").read_text()
POLICY = str(REPO / "app" / "host" / "common" / "fabric_policy.env")


def fabric_settings(env: dict[str, str], names: tuple[str, ...] = ()) -> dict[str, str]:
    """The NCCL_*/FI_* (and NAMES) variables of ENV."""
    return {k: v for k, v in env.items() if k.startswith(("NCCL_", "FI_")) or k in names}


def planned(env: dict[str, str], names: tuple[str, ...] = ()) -> dict[str, str]:
    """The fabric part of the job under ENV; the NCCL_*/FI_* (and NAMES) variables it leaves for the steps."""
    ran = job_parts(["fabric"], env)
    assert ran.returncode == 0, ran.stderr
    return fabric_settings(ran.env, names)


def on_node(ran: Ran, *command: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """COMMAND under the node wrapper (no stop file, no store on this node, this checkout's policy) in the
    environment the job left for its steps, as a training process sees it on a node (IMAGE=none)."""
    return subprocess.run(["sh", "-c", NODE_WRAPPER, "ddp-node", "/nonexistent/no-stop", "", POLICY, *command],
                          env=ran.env, cwd=cwd, capture_output=True, text=True, timeout=30)


def on_node_settings(env: dict[str, str], nodes: str = "node1,node2") -> dict[str, str]:
    """The NCCL_*/FI_* variables a training process sees on a node of a job planned under ENV."""
    ran = job_parts(["fabric"], env, nodes=nodes)
    assert ran.returncode == 0, ran.stderr
    seen = on_node(ran, "env")
    assert seen.returncode == 0, seen.stderr
    return fabric_settings(dict(line.split("=", 1) for line in seen.stdout.splitlines() if "=" in line))


def make_tree(root: Path, *files: str) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return root


@pytest.fixture
def infiniband_node(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "ib", "sys/class/infiniband/mlx5_0/ports", "sys/class/net/ib0/address")


@pytest.fixture
def slingshot_node(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "ss", "dev/cxi0", "dev/cxi1", "opt/cray/libfabric/1.20.1/lib64/libfabric.so.1",
                     "opt/cray/libfabric/1.22.0/lib64/libfabric.so.1", "usr/lib64/libcxi.so.1",
                     "usr/lib64/libnl-3.so.200", "usr/lib64/libnl-route-3.so.200")


def batch_host_sets_no_fabric_variable(env: dict[str, str], nodes: str = "node1,node2") -> None:
    """The job previews the policy but exports nothing itself: one policy, applied on the node."""
    ran = job_parts(["fabric"], env, nodes=nodes)
    assert ran.returncode == 0, ran.stderr
    assert fabric_settings(ran.env) == fabric_settings(env)


#: The job's nodes, by how many
NODES = {"1": "node1", "2": "node1,node2"}


@pytest.mark.parametrize(("nnodes", "expected"), [
    ("2", {"NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5", "NCCL_NET": "IB", "NCCL_SOCKET_IFNAME": "ib"}),
    # One node talks over NVLink: NCCL_NET would only make a missing IB stack fatal for nothing
    ("1", {"NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "ib"}),
])
def test_infiniband_settings_name_the_hcas_and_fail_fast_multi_node(infiniband_node: Path, nnodes: str,
                                                                     expected: dict[str, str]) -> None:
    env = {"FABRIC": "infiniband", "DDP_PROBE_ROOT": str(infiniband_node)}
    assert on_node_settings(env, NODES[nnodes]) == expected
    batch_host_sets_no_fabric_variable(env, NODES[nnodes])


def test_settings_the_user_made_are_kept(infiniband_node: Path) -> None:
    env = {"FABRIC": "infiniband", "DDP_PROBE_ROOT": str(infiniband_node), "NCCL_IB_HCA": "mlx5_0:1",
           "NCCL_SOCKET_IFNAME": ""}
    ran = job_parts(["fabric"], env)
    result = on_node(ran, "env")
    assert "NCCL_IB_HCA=mlx5_0:1\n" in result.stdout and "NCCL_SOCKET_IFNAME=\n" in result.stdout
    assert "keeping NCCL_IB_HCA=mlx5_0:1 (set by you)" in ran.stdout


def test_infiniband_without_ipoib_leaves_the_socket_interface_to_nccl(tmp_path: Path) -> None:
    node = make_tree(tmp_path, "sys/class/infiniband/mlx5_0/ports")
    assert "NCCL_SOCKET_IFNAME" not in on_node_settings({"FABRIC": "infiniband", "DDP_PROBE_ROOT": str(node)})


@pytest.mark.parametrize("nnodes", ["1", "2"])
def test_slingshot_settings_use_cxi_and_require_the_plugin_only_multi_node(slingshot_node: Path,
                                                                           nnodes: str) -> None:
    env = {"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(slingshot_node)}
    batch_host_sets_no_fabric_variable(env, NODES[nnodes])
    settings = on_node_settings(env, NODES[nnodes])
    assert settings["FI_PROVIDER"] == "cxi"
    assert settings["NCCL_SOCKET_IFNAME"] == "hsn"
    assert settings["NCCL_PROTO"] == "^LL128"
    assert "FI_CXI_RDZV_THRESHOLD" not in settings  # opt-in: APP_FABRIC_OPT_IN=cxi-no-eager
    assert settings.get("NCCL_NET") == ("AWS Libfabric" if nnodes == "2" else None)


def test_an_opt_in_group_the_user_names_reaches_the_node(slingshot_node: Path) -> None:
    env = {"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(slingshot_node), "APP_FABRIC_OPT_IN": "cxi-no-eager"}
    settings = on_node_settings(env)
    assert (settings["FI_CXI_RDZV_GET_MIN"], settings["FI_CXI_RDZV_THRESHOLD"]) == ("0", "0")


def test_efa_provider_on_slingshot_is_refused_with_the_fix(slingshot_node: Path) -> None:
    result = job_parts(["fabric"], {"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(slingshot_node), "FI_PROVIDER": "efa"})
    assert result.returncode == 2
    assert "FI_PROVIDER=efa is AWS's provider" in result.stderr and "FI_PROVIDER=cxi" in result.stderr


@pytest.mark.parametrize(("tree", "detected"), [
    (("dev/cxi0",), "slingshot"),
    (("sys/class/infiniband/mlx5_0/ports",), "infiniband"),
    ((), "none"),
])
def test_auto_fabric_detects_the_node(tmp_path: Path, tree: tuple[str, ...], detected: str) -> None:
    node = make_tree(tmp_path / "node", *tree)
    node.mkdir(exist_ok=True)
    ran = job_parts(["fabric"], {"DDP_PROBE_ROOT": str(node)})
    assert ran.found["knobs"]["FABRIC"] == detected, ran.stderr


@pytest.mark.parametrize(("layers", "detected"), [(("Ethernet", "Ethernet"), "roce"),
                                                  (("Ethernet", "InfiniBand"), "infiniband")])
def test_auto_fabric_tells_roce_from_infiniband_by_the_ports_link_layer(tmp_path: Path, layers, detected) -> None:
    for i, layer in enumerate(layers):
        port = tmp_path / f"sys/class/infiniband/mlx5_{i}/ports/1"
        port.mkdir(parents=True)
        (port / "link_layer").write_text(layer + "\n")
    ran = job_parts(["fabric"], {"DDP_PROBE_ROOT": str(tmp_path)})
    assert ran.found["knobs"]["FABRIC"] == detected, ran.stderr


def test_unknown_fabric_is_refused_with_the_choices() -> None:
    result = job_parts(["fabric"], {"FABRIC": "ethernet"})
    assert result.returncode == 2 and "infiniband, roce, slingshot, auto, none" in result.stderr


def workload(cwd: Path, *args: str, env: dict[str, str] | None = None, **options: str) -> Ran:
    """The workload part of the job for the job's ARGS, run in CWD (where a SCRIPT.py is looked for)."""
    return job_parts(["workload"], env or {}, *args, cwd=cwd, **options)


def planned_argv(ran: Ran) -> list[str]:
    assert ran.returncode == 0, ran.stderr
    return ran.found["workload"]["argv"]


@pytest.mark.parametrize(("args", "expected"), [
    ([], ["-m", "app.train", "--config", "demo", "run.dir=/tmp/runs/42"]),
    (["train", "train.max_steps=5"], ["-m", "app.train", "--config", "demo", "run.dir=/tmp/runs/42",
                                      "train.max_steps=5"]),
    (["check", "--node-only"], ["-m", "app.check", "--node-only"]),
    (["check", "--site=mine.yaml"], ["-m", "app.check", "--site=mine.yaml"]),
    (["-m", "my_pkg.train", "--epochs", "5"], ["-m", "my_pkg.train", "--epochs", "5"]),
    (["my_train.py", "--epochs", "50"], ["my_train.py", "--epochs", "50"]),
])
def test_workload_is_train_check_or_your_own_script(tmp_path: Path, args: list[str], expected: list[str]) -> None:
    (tmp_path / "my_train.py").touch()
    assert planned_argv(workload(tmp_path, *args)) == expected


def test_a_script_that_does_not_exist_is_reported_with_the_usage(tmp_path: Path) -> None:
    result = workload(tmp_path, "trian")
    assert result.returncode == 2
    assert "'trian' is neither train, check, nccl-tests nor a script file" in result.stderr
    assert "usage: sbatch test.sh [train" in result.stderr


#: The PBS job's script and side
PBS_JOB = {"script": "gh200-pbs.sh", "scheduler": "pbs"}


@pytest.mark.parametrize(("args", "expected"), [
    (["trian"], 'usage: qsub -v WORKLOAD="[train [key=value ...] | check | nccl-tests [ARGS] | SCRIPT.py [ARGS] | '
                '-m MODULE [ARGS]]" gh200-pbs.sh'),
    (["-m"], 'example: qsub -v WORKLOAD="-m my_pkg.train --epochs 5" gh200-pbs.sh'),
])
def test_under_pbs_the_usage_names_qsub_and_the_workload_variable(tmp_path: Path, args, expected) -> None:
    """qsub passes a batch script no arguments: the workload goes in WORKLOAD, and no message says sbatch."""
    result = workload(tmp_path, *args, **PBS_JOB)
    assert result.returncode == 2
    assert expected in result.stderr and "sbatch" not in result.stderr, result.stderr


@pytest.mark.parametrize(("env", "gpus", "expected"), [
    ({"GPUS_PER_NODE": "3"}, "4", "3 process(es) per node (from GPUS_PER_NODE)"),
    ({"CUDA_VISIBLE_DEVICES": "0,1"}, "4", "4 process(es) per node (from the allocation)"),
    ({"CUDA_VISIBLE_DEVICES": "0,1"}, "", "2 process(es) per node (from CUDA_VISIBLE_DEVICES)"),
])
def test_processes_per_node_come_from_the_allocation(env: dict[str, str], gpus: str, expected: str) -> None:
    result = job_parts(["nproc"], {**env, "PATH": "/usr/bin:/bin"}, gpus=gpus)
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout


@pytest.mark.parametrize("env", [
    {"SLURM_GPUS_PER_TASK": "8"},  # Slurm up to 23.05
    {"SLURM_TRES_PER_TASK": "cpu=4,gres/gpu=8"},  # from 23.11 only this (srun(1), slurm-25-11-7-1)
    {"SLURM_TRES_PER_TASK": "gres/gpu:h100=8"},
])
def test_more_gpus_per_task_than_a_node_has_is_refused_before_any_rank_starts(env: dict[str, str]) -> None:
    result = job_parts(["nproc"], {"GPUS_PER_NODE": "4", **env})
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "test.sh: error: --gpus-per-task=8 but a node of this job has 4 GPU(s): no task could start; ask for at "
        "most 4 per task, e.g. sbatch --gpus-per-task=1 --ntasks-per-node=4 (LAUNCH=srun), or leave "
        "--gpus-per-task out (torchrun gives each worker one GPU)")


def test_gpus_per_task_a_node_can_give_are_accepted() -> None:
    result = job_parts(["nproc"], {"GPUS_PER_NODE": "4", "SLURM_TRES_PER_TASK": "gres/gpu=1"})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("env", "message"), [
    ({}, "request them (Slurm: --gres=gpu:4; PBS: ngpus=4) or set GPUS_PER_NODE=N"),
    ({"GPUS_PER_NODE": "four"}, "GPUS_PER_NODE=four is not a positive whole number"),
])
def test_an_allocation_without_gpus_is_reported_with_the_fix(env: dict[str, str], message: str,
                                                            tmp_path: Path) -> None:
    # A node without a GPU driver, also on a GPU host: nvidia-smi there fails like this (exit 9).
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                   "driver. Make sure that the latest NVIDIA driver is installed and running.\"\nexit 9\n")
    smi.chmod(0o755)
    result = job_parts(["nproc"], {**env, "PATH": f"{tmp_path}:/usr/bin:/bin"})
    assert result.returncode == 2 and message in result.stderr


def test_a_missing_image_says_how_to_build_it(tmp_path: Path) -> None:
    result = job_parts(["container"], {"FABRIC": "none", "IMAGE": str(tmp_path / "app.sif"),
                                       "RUN_DIR": str(tmp_path / "run")})
    assert result.returncode == 2
    assert f"image {tmp_path}/app.sif not found; build it with 'make image'" in result.stderr


@pytest.fixture
def fake_apptainer(tmp_path: Path) -> Path:
    """A stub `apptainer` whose `inspect --labels` reports an x86_64 image, and an image file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "apptainer"
    stub.write_text("#!/bin/sh\n[ \"$1\" = inspect ] && echo 'app.arch: x86_64'\nexit 0\n")
    stub.chmod(0o755)
    (tmp_path / "app.sif").touch()
    return tmp_path


def container(env: dict[str, str]) -> Ran:
    """The container part of the job under ENV (its command is found["container"]["argv"])."""
    return job_parts(["container"], env)


def test_slingshot_container_gets_the_host_fabric_stack(fake_apptainer: Path, slingshot_node: Path) -> None:
    root = str(slingshot_node)
    run_dir = fake_apptainer / "run"
    result = container({"FABRIC": "slingshot", "DDP_PROBE_ROOT": root, "DDP_NODE_ARCH": "x86_64",
                                 "IMAGE": str(fake_apptainer / "app.sif"), "BINDS": "/scratch,/data:/mnt:ro",
                                 "RUN_DIR": str(run_dir),
                                 "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.found["container"]["argv"] == [
        "apptainer", "exec", "--nv", "--bind", str(run_dir),
        "--bind", f"{root}/dev/cxi0:/dev/cxi0", "--bind", f"{root}/dev/cxi1:/dev/cxi1",
        "--bind", f"{root}/opt/cray/libfabric/1.22.0:/opt/libfabric",
        "--bind", f"{root}/usr/lib64/libcxi.so.1:/opt/host-fabric-libs/libcxi.so.1",
        "--bind", f"{root}/usr/lib64/libnl-3.so.200:/opt/host-fabric-libs/libnl-3.so.200",
        "--bind", f"{root}/usr/lib64/libnl-route-3.so.200:/opt/host-fabric-libs/libnl-route-3.so.200",
        "--bind", "/scratch", "--bind", "/data:/mnt:ro",
        str(fake_apptainer / "app.sif"),
    ]


def test_the_sites_default_libfabric_is_bound_not_merely_the_newest(fake_apptainer: Path, slingshot_node: Path) -> None:
    """`module load libfabric/1.20.1` puts the site's choice on LD_LIBRARY_PATH; 1.22.0 is also installed."""
    result = container({"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(slingshot_node),
                                 "DDP_NODE_ARCH": "x86_64", "IMAGE": str(fake_apptainer / "app.sif"),
                                 "RUN_DIR": str(fake_apptainer / "run"),
                                 "LD_LIBRARY_PATH": f"/nowhere:{slingshot_node}/opt/cray/libfabric/1.20.1/lib64",
                                 "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert f"{slingshot_node}/opt/cray/libfabric/1.20.1:/opt/libfabric" in result.found["container"]["argv"]


def test_infiniband_container_binds_the_verbs_devices(fake_apptainer: Path, tmp_path: Path) -> None:
    node = make_tree(tmp_path / "ib", "dev/infiniband/uverbs0", "sys/class/infiniband/mlx5_0/ports")
    result = container({"FABRIC": "infiniband", "DDP_PROBE_ROOT": str(node), "DDP_NODE_ARCH": "x86_64",
                                 "IMAGE": str(fake_apptainer / "app.sif"), "RUN_DIR": str(tmp_path / "run"),
                                 "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    argv = result.found["container"]["argv"]
    assert argv[argv.index(f"{node}/dev/infiniband:/dev/infiniband") - 1] == "--bind", result.stderr


@pytest.fixture
def environment_without_the_project(tmp_path: Path) -> dict[str, str]:
    """A user's own environment: a torchrun whose interpreter is the system python, which has no `app`."""
    bin_dir = tmp_path / "user-env"
    bin_dir.mkdir()
    (bin_dir / "torchrun").write_text("#!/usr/bin/python3\n# torchrun stand-in\n")
    (bin_dir / "torchrun").chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "IMAGE": "none"}


def test_image_none_in_an_environment_without_the_project_stops_train_with_the_fix(
        tmp_path: Path, environment_without_the_project: dict[str, str]) -> None:
    result = job_parts(["workload", "container"], environment_without_the_project, "train", cwd=tmp_path,
                       submit_dir=str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "test.sh: error: IMAGE=none runs /usr/bin/python3 from your environment, which cannot import this project "
        f"and its packages (app, torch, yaml, numpy); install it there (/usr/bin/python3 -m pip install -e {REPO}) "
        "or run in the image (IMAGE=/path/to/app.sif)")


def test_image_none_runs_your_own_script_without_the_project_and_without_the_preflight(
        tmp_path: Path, environment_without_the_project: dict[str, str]) -> None:
    (tmp_path / "my_train.py").touch()
    result = job_parts(["workload", "container"], environment_without_the_project, "my_train.py", "4", "2",
                       cwd=tmp_path, submit_dir=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "no preflight: your environment's /usr/bin/python3 cannot import this project" in result.stdout
    assert result.found["knobs"]["PREFLIGHT"] == "0"


def test_a_local_image_is_named_by_its_sha256_in_the_environment_the_job_leaves_its_steps(
        fake_apptainer: Path) -> None:
    """What the trainer records in manifest.json and history.jsonl (app/host/common/provenance.py)."""
    image = fake_apptainer / "app.sif"
    image.write_bytes(b"an image")
    result = container({"FABRIC": "none", "DDP_NODE_ARCH": "x86_64", "IMAGE": str(image),
                        "RUN_DIR": str(fake_apptainer / "run"), "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    digest = "sha256:" + hashlib.sha256(b"an image").hexdigest()
    assert (result.env["DDP_IMAGE_SHA256"], result.env["DDP_IMAGE_FILE"]) == (digest, str(image))
    assert f"IMAGE {image}: {digest} (hashed 0.0 GiB in " in result.stdout


def test_an_image_for_the_other_architecture_is_refused(fake_apptainer: Path) -> None:
    result = container({"FABRIC": "none", "DDP_NODE_ARCH": "aarch64", "IMAGE": str(fake_apptainer / "app.sif"),
                        "RUN_DIR": str(fake_apptainer / "run"), "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    assert result.returncode == 2
    assert "built for x86_64 but this node is aarch64; build it with 'make image ARCH=aarch64'" in result.stderr


def listening(root: Path, ports: range, free: int) -> Path:
    """A fake /proc/net/tcp under ROOT (the kernel's format: local address as hex IP:PORT, state 0A = LISTEN)
    where every port of PORTS but FREE has a listening socket, and a /proc/net/tcp6 with none."""
    net = root / "proc" / "net"
    net.mkdir(parents=True)
    rows = [f"{i:4d}: 00000000:{port:04X} 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 1 1"
            for i, port in enumerate(p for p in ports if p != free)]
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    (net / "tcp").write_text(header + "\n".join(rows) + "\n")
    (net / "tcp6").write_text(header)
    return root


@pytest.mark.parametrize("job_id", ["1234567.aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov", "42"])
def test_the_rendezvous_port_is_chosen_at_random_on_the_head_node_not_derived_from_the_job_id(job_id) -> None:
    """Job ids are public (squeue, qstat) and a port derived from their digits collides (every Aurora-style id
    gave 20001): each job start picks its own, below the kernel's ephemeral range."""
    ports = set()
    for _ in range(6):
        result = job_parts([], {}, job_id=job_id)
        assert result.returncode == 0, result.stderr
        ports.add(int(result.found["knobs"]["RDZV_PORT"]))
    assert len(ports) > 1 and all(20000 <= port < 32768 for port in ports), ports


def test_the_rendezvous_port_is_one_nothing_listens_on_and_yours_wins(tmp_path: Path) -> None:
    root = listening(tmp_path, range(20000, 32768), free=23456)
    result = job_parts([], {"DDP_PROBE_ROOT": str(root)})
    assert result.found["knobs"]["RDZV_PORT"] == "23456", result.stderr
    assert job_parts([], {"RDZV_PORT": "29500"}).found["knobs"]["RDZV_PORT"] == "29500"


def torchrun_stub(bin_dir: Path, host: str = "this-node") -> None:
    """`torchrun` that prints what it was given (the node rank, the rank switch, any rendezvous id from the
    environment, then its arguments), and `uname -n` that says HOST."""
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "torchrun").write_text(
        '#!/bin/sh\necho "PET_NODE_RANK=${PET_NODE_RANK-unset} PET_RDZV_ID=${PET_RDZV_ID-unset} '
        'TORCH_ELASTIC_WORKER_IDENTICAL=${TORCH_ELASTIC_WORKER_IDENTICAL-unset}"\nprintf "%s\\n" "$@"\n')
    (bin_dir / "uname").write_text(f'#!/bin/sh\n[ "$1" = -n ] && echo {host}\n')
    for stub in ("torchrun", "uname"):
        (bin_dir / stub).chmod(0o755)


def wrapped_torchrun(owner: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """A step's torchrun under the node wrapper as the job hands it to `sh -c` (OWNER: the node that hosts the
    store), in ENV alone."""
    return subprocess.run(["sh", "-c", NODE_WRAPPER, "ddp-node", f"{cwd}/no-stop-file", owner, "", "torchrun",
                           "--nnodes=2", "--rdzv-backend=static", "--rdzv-id=42-preflight", "--rdzv-conf=timeout=60",
                           "-m", "app.check"], env=env, cwd=cwd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(("owner", "node_id", "env_name"), [
    ("this-node", "0", "SLURM_NODEID"), ("other-node", "1", "SLURM_NODEID"), ("", "3", "PALS_NODEID"),
    ("other-node", "1", "PBS_NODENUM"), ("other-node", "1", "OMPI_COMM_WORLD_RANK")])
def test_each_nodes_wrapper_gives_torchrun_the_schedulers_node_rank_and_no_secret(
        tmp_path: Path, owner: str, node_id: str, env_name: str) -> None:
    """The static rendezvous: the node rank from the scheduler, worker ranks computed from it (nothing of torchrun's
    read from the store), the rendezvous id the public step name; the job's secret in neither argv nor PET_RDZV_ID."""
    torchrun_stub(tmp_path / "bin")
    secret = "0123456789abcdef0123456789abcdef"
    result = wrapped_torchrun(owner, {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", env_name: node_id,
                                      "DDP_STORE_SECRET": secret}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"PET_NODE_RANK={node_id} PET_RDZV_ID=unset TORCH_ELASTIC_WORKER_IDENTICAL=1", "--nnodes=2",
        "--rdzv-backend=static", "--rdzv-id=42-preflight", "--rdzv-conf=timeout=60", "-m", "app.check"]
    assert secret not in result.stdout + result.stderr


@pytest.mark.parametrize(("owner", "node_id", "wanted"), [
    ("this-node", "1", "error: node this-node is node 1 of the job but this-node owns the rendezvous address"),
    ("other-node", "0", "error: node this-node is node 0 of the job but other-node owns the rendezvous address"),
    ("other-node", "", "error: this launcher gives no node index (SLURM_NODEID, PALS_NODEID, PBS_NODENUM")])
def test_a_node_rank_that_would_leave_no_node_serving_the_store_is_refused_in_one_line(
        tmp_path: Path, owner: str, node_id: str, wanted: str) -> None:
    torchrun_stub(tmp_path / "bin")
    env = {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin"}
    if node_id:
        env["SLURM_NODEID"] = node_id
    result = wrapped_torchrun(owner, env, tmp_path)
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr.startswith(wanted) and len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.fixture
def head_node_bin(tmp_path: Path) -> Path:
    """Stubs of a head node: `ip` reports ib0 (10.1.2.3) beside lo and the management eth0 (10.0.0.5),
    `uname -n` and `hostname` say nid001000, which is not what the scheduler calls it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ip").write_text(
        '#!/bin/sh\n'
        'all="1: lo    inet 127.0.0.1/8 scope host lo\n2: eth0    inet 10.0.0.5/24 scope global eth0\n'
        '3: ib0    inet 10.1.2.3/16 brd 10.1.255.255 scope global ib0"\n'
        'if [ "$5" = dev ]; then printf "$all\\n" | grep " $6 " || exit 1; else printf "$all\\n"; fi\n')
    (bin_dir / "hostname").write_text("#!/bin/sh\necho nid001000\n")
    (bin_dir / "uname").write_text('#!/bin/sh\n[ "$1" = -n ] && echo nid001000\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    return bin_dir


def rdzv(bin_dir: Path, head: str = "node1", cwd: Path | None = None, **env: str) -> Ran:
    """Where torchrun meets and the node that hosts the store (the job's meet), on a head node of BIN_DIR's
    stubs that the job's node list calls HEAD; stdout ends in "host=HOST owner=OWNER"."""
    ran = job_parts(["meet"], {"PATH": f"{bin_dir}:/usr/bin:/bin", "RDZV_IFACES": "hsn0 ib0", **env},
                    nodes=f"{head},node2", cwd=cwd)
    if ran.returncode:
        return ran
    host, owner = ran.found["meet"]
    return ran._replace(stdout=ran.stdout + f"host={host} owner={owner}\n")


@pytest.mark.parametrize("head", ["node1", "x1000c0s0b0n0", "nid001000.hpc.example.org"])
def test_the_head_nodes_fast_interface_is_the_rendezvous_address_whatever_the_node_file_calls_it(
        head_node_bin: Path, head: str) -> None:
    """The batch script runs on the head node: its ib0 address is used and it owns the store, whether the
    node file names it as its hostname says or not (an xname, an FQDN)."""
    result = rdzv(head_node_bin, head)
    assert "host=10.1.2.3 owner=nid001000\n" in result.stdout, result.stdout + result.stderr
    assert f"(ib0 of head node {head};" in result.stdout


@pytest.mark.parametrize("given", ["10.1.2.3", "localhost"])
def test_an_rdzv_host_of_the_head_node_is_hosted_there(head_node_bin: Path, given: str) -> None:
    """docs/job-scripts.md's remedy RDZV_HOST=<address>: the head node still hosts the store (node 0 there)."""
    result = rdzv(head_node_bin, RDZV_HOST=given)
    assert f"host={given} owner=nid001000\n" in result.stdout, result.stdout + result.stderr


def test_an_rdzv_host_no_node_owns_is_refused_before_any_rank_starts(head_node_bin: Path) -> None:
    result = rdzv(head_node_bin, RDZV_HOST="10.9.9.9")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "test.sh: error: RDZV_HOST=10.9.9.9 is not an address of the head node nid001000, where rank 0 and the "
        "rendezvous store run (its addresses: 127.0.0.1 10.0.0.5 10.1.2.3 ); give one of them, e.g. "
        "RDZV_HOST=10.0.0.5, or unset RDZV_HOST to use its address on the first of RDZV_IFACES (hsn0 ib0)")


def test_the_node_wrapper_file_turns_the_stop_file_into_sigterm_for_its_command_alone(tmp_path: Path) -> None:
    """app/common/node_wrapper.sh run as a file, as shellcheck reads it (the job scripts hand its text to sh -c)."""
    stop = tmp_path / "stop"
    child = ("trap 'echo got TERM; exit 143' TERM; touch \"$1\"; while :; do sleep 0.1; done")
    wrapper = subprocess.Popen(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"), str(stop), "", "",
                                "sh", "-c", child, "child", str(tmp_path / "started")],
                               stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (tmp_path / "started").exists():
        assert wrapper.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    stop.touch()
    out, _ = wrapper.communicate(timeout=30)
    assert (wrapper.returncode, out) == (143, "got TERM\n")


# A worker that handles SIGTERM as the trainer does: finish, write (here: sleep), exit 75 (PREEMPTED).
SLOW_SNAPSHOT_WORKER = """
import os, pathlib, signal, sys, time
out = pathlib.Path(sys.argv[1])
def snapshot_then_exit(*_):
    time.sleep(float(sys.argv[2]))
    (out / f"saved-{os.environ['LOCAL_RANK']}").touch()
    sys.exit(75)
signal.signal(signal.SIGTERM, snapshot_then_exit if sys.argv[2] != "never" else signal.SIG_IGN)
(out / f"started-{os.environ['LOCAL_RANK']}").touch()
while True:
    time.sleep(0.1)
"""


def wrap_torchrun(tmp_path: Path, snapshot_s: str, torchrun_grace_s: int, job_grace_s: int) -> tuple[int, float]:
    """The node wrapper around a real torchrun of two workers; the stop file appears once both run.
    `--shutdown-timeout` makes this torchrun kill its workers `torchrun_grace_s` after its SIGTERM, as
    every torchrun before 2.12 does after 30 s whatever TORCH_ELASTIC_SHUTDOWN_TIMEOUT (the job's grace) says."""
    worker = tmp_path / "worker.py"
    worker.write_text(SLOW_SNAPSHOT_WORKER)
    torchrun = Path(sys.executable).parent / "torchrun"
    stop = tmp_path / "stop"
    env = {**os.environ, "TORCH_ELASTIC_SHUTDOWN_TIMEOUT": str(job_grace_s)}
    wrapper = subprocess.Popen(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"), str(stop), "", "",
                                str(torchrun), "--standalone", "--nproc-per-node=2", "--monitor-interval=0.1",
                                f"--shutdown-timeout={torchrun_grace_s}", str(worker), str(tmp_path), snapshot_s],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"started-{rank}").exists() for rank in (0, 1)):
        assert wrapper.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    stop.touch()
    stopping = time.monotonic()
    returncode = wrapper.wait(timeout=60)
    return returncode, time.monotonic() - stopping


@pytest.mark.slow  # torchrun and two workers through a real stop and grace
def test_workers_get_the_jobs_grace_to_snapshot_whatever_torchruns_own_grace(tmp_path: Path) -> None:
    returncode, _ = wrap_torchrun(tmp_path, snapshot_s="4", torchrun_grace_s=1, job_grace_s=30)
    assert sorted(p.name for p in tmp_path.glob("saved-*")) == ["saved-0", "saved-1"]
    assert returncode == 75  # the workers' code (PREEMPTED), not torchrun's 1: the job script requeues


@pytest.mark.slow  # torchrun and two workers through a real stop and grace
def test_workers_that_ignore_sigterm_are_stopped_after_the_jobs_grace(tmp_path: Path) -> None:
    returncode, took_s = wrap_torchrun(tmp_path, snapshot_s="never", torchrun_grace_s=1, job_grace_s=3)
    assert returncode != 0 and took_s < 15
    assert not list(tmp_path.glob("saved-*"))


RUN_ID_WORKER = """
import os, pathlib, sys
from datetime import timedelta
import torch.distributed as dist
out = pathlib.Path(sys.argv[1])
(out / "run-id").write_text(" ".join(os.environ[name] for name in ("TORCHELASTIC_RUN_ID", "GROUP_RANK", "RANK")))
(out / "torchrun-argv").write_bytes(pathlib.Path(f"/proc/{os.getppid()}/cmdline").read_bytes())
store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                      timeout=timedelta(seconds=30))
(out / "keys").write_text("\\n".join(store.list_keys()))  # what any client of the port sees
"""


@pytest.mark.slow  # a real torchrun and its worker, each loading torch
def test_a_real_torchrun_meets_statically_and_the_secret_is_in_no_argv_key_or_log_line(tmp_path: Path) -> None:
    worker = tmp_path / "worker.py"
    worker.write_text(RUN_ID_WORKER)
    secret = "0123456789abcdef0123456789abcdef"
    torchrun = Path(sys.executable).parent / "torchrun"
    endpoint = f"127.0.0.1:{free_port()}"
    result = subprocess.run(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"), str(tmp_path / "stop"), "", "",
                             str(torchrun), "--nnodes=1", "--nproc-per-node=1", "--rdzv-backend=static",
                             f"--rdzv-endpoint={endpoint}", "--rdzv-id=42-preflight", "--rdzv-conf=timeout=60",
                             str(worker), str(tmp_path)],
                            env={**os.environ, "DDP_STORE_SECRET": secret, "SLURM_NODEID": "0"}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "run-id").read_text() == "42-preflight 0 0"
    assert secret.encode() not in (tmp_path / "torchrun-argv").read_bytes()
    assert secret not in (tmp_path / "keys").read_text()
    assert secret not in result.stdout + result.stderr


@pytest.mark.parametrize(("script", "message"), [
    ("mn5.sh", "not inside a Slurm job; submit it: sbatch [site flags] jobscripts/mn5.sh"),
    ("slurm.sh", "not inside a Slurm job; submit it: sbatch [site flags] jobscripts/slurm.sh"),
    ("gh200-pbs.sh", "not inside a PBS job (PBS_JOBID/PBS_NODEFILE unset)"),
])
def test_scripts_run_outside_a_job_say_how_to_submit_them(script: str, message: str) -> None:
    env = {"PATH": os.environ["PATH"], "DDP_JOBSCRIPTS": str(REPO / "jobscripts")}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / script)], env=env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert message in result.stderr


def test_extra_env_must_be_key_value_pairs() -> None:
    result = job_parts([], {"EXTRA_ENV": "NCCL_DEBUG=INFO oops"})
    assert result.returncode == 2 and "EXTRA_ENV item 'oops' is not K=V" in result.stderr


@pytest.mark.parametrize(("args", "expected"), [
    (["check"], ["-m", "app.check", "--site", "mn5"]),
    (["check", "--site", "mine.yaml"], ["-m", "app.check", "--site", "mine.yaml"]),
])
def test_check_uses_the_scripts_site_profile_unless_you_name_one(tmp_path: Path, args: list[str],
                                                                expected: list[str]) -> None:
    assert planned_argv(workload(tmp_path, *args, env={"CHECK_SITE": "mn5"})) == expected


def test_the_nccl_flight_recorder_dumps_into_the_run_directory_unless_you_chose(tmp_path: Path) -> None:
    # The buffer size is torch's own default (2000); its old name, TORCH_NCCL_TRACE_BUFFER_SIZE, only warns
    names = ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_FR_DUMP_TEMP_FILE")
    env = {"RUN_DIR": str(tmp_path / "run")}
    assert {k: v for k, v in planned(env, names).items() if k in names} == {
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1", "TORCH_FR_DUMP_TEMP_FILE": f"{tmp_path}/run/nccl-flight-recorder-rank"}
    mine = planned({**env, "TORCH_NCCL_DUMP_ON_TIMEOUT": "0"}, names)
    assert mine["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "0"


def test_bad_node_requeues_count_in_a_row_until_training_gets_past_its_snapshot(tmp_path: Path) -> None:
    """MAX_REQUEUES bounds a job that fails every time, not a long campaign that lost a node now and then."""
    lines = [
        '{"attempt": 1, "start_step": 0}', '{"event": "requeue"}', '{"event": "requeue"}',  # 2 in a row
        '{"attempt": 2, "start_step": 100}',  # got past step 0: counting starts again
        '{"event": "requeue"}', '{"attempt": 3, "start_step": 100}',  # no progress: still counting
        '{"event": "requeue"}',
    ]
    counts = []
    for end in (3, 4, 6, 7):
        (tmp_path / "history.jsonl").write_text("\n".join(lines[:end]) + "\n")
        result = subprocess.run(module_command("app.host.common.history", "requeues-in-a-row", str(tmp_path)),
                                capture_output=True, text=True, timeout=30)
        counts.append(int(result.stdout))
    assert counts == [2, 0, 1, 2]


def test_a_requeue_event_is_one_json_line_whatever_its_reason_says(tmp_path: Path) -> None:
    reason = 'preflight: "gpu07" said C:\\path\\x; rc=3'
    event = subprocess.run(module_command("app.host.common.history", "event", str(tmp_path), "requeue", reason,
                                          "--hosts-from", "-", "--excluded", "gpu07", "--job-id", "42", "--image",
                                          "app.sif"),
                           input="gpu07\ngpu08\n", capture_output=True, text=True, timeout=30)
    assert event.returncode == 0, event.stderr
    result = subprocess.run(module_command("app.host.common.history", "requeues-in-a-row", str(tmp_path)),
                            capture_output=True, text=True, timeout=30)
    assert result.stdout.strip() == "1", result.stderr
    (line,) = (tmp_path / "history.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert entry["reason"] == reason and entry["excluded"] == ["gpu07"] and entry["hosts"] == ["gpu07", "gpu08"]
    assert entry["event"] == "requeue" and entry["job_id"] == "42" and entry["image"] == "app.sif"


@pytest.mark.parametrize("script", ["slurm.sh", "mn5.sh", "gh200-pbs.sh"])
def test_dry_run_outside_a_job_plans_for_the_nodes_it_is_given_and_creates_nothing(tmp_path, script):
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02,gpu03"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / script), "train", "train.max_steps=5"], env=env,
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "planning for 3 node(s) (gpu01 gpu02 gpu03; DRY_RUN_NODES) with 4 GPU(s) each" in result.stdout
    # the workload's step: the preflight's comes first (tests/jobscripts/test_dry_run_plan.py)
    step = next(line for line in result.stdout.splitlines() if "] step: " in line and "--preflight" not in line)
    assert "torchrun --nnodes=3 --nproc-per-node=4" in step and re.search(r"--rdzv-endpoint=gpu01:\d+ ", step)
    assert "train.max_steps=5" in step and "DRY_RUN=1: not running it" in result.stdout
    assert "warning (DRY_RUN=1, going on): image" in result.stdout  # no ./app.sif here: said, not fatal
    assert list(tmp_path.iterdir()) == []  # no run directory, no stop file, no log


@pytest.mark.parametrize("script", ["slurm.sh", "mn5.sh"])
def test_nccl_tests_run_across_the_nodes_one_mpi_rank_per_gpu_through_pmix(tmp_path, script):
    """`sbatch jobscripts/slurm.sh nccl-tests [ARGS]`: NVIDIA's all_reduce_perf, the image's MPI build, one
    srun task (MPI rank) per GPU through Slurm's PMIx, in the container with the job's binds and policy."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02,gpu03"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / script), "nccl-tests", "-e", "1G"], env=env,
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if "] step: " in line]
    assert len(steps) == 1, result.stdout  # no preflight: the test is the check
    assert "srun --kill-on-bad-exit=1 --mpi=pmix --nodes=3 --ntasks=12 --ntasks-per-node=4" in steps[0]
    assert steps[0].rstrip().endswith("app.sif all_reduce_perf -b 8 -e 4G -f 2 -g 1 -e 1G")
    assert "torchrun" not in steps[0]


def test_nccl_tests_through_pbsdsh_say_how_to_run_them_by_hand(tmp_path):
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "WORKLOAD": "nccl-tests",
           "LAUNCHER": "pbsdsh"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "nccl-tests needs" in result.stderr and "mpiexec" in result.stderr


@pytest.mark.parametrize("script", ["slurm.sh", "mn5.sh", "gh200-pbs.sh"])
def test_outside_a_job_without_dry_run_the_script_says_how_to_submit_it_or_plan_it(tmp_path, script):
    result = subprocess.run(["bash", str(REPO / "jobscripts" / script)], env={"PATH": os.environ["PATH"]},
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "not inside a" in result.stderr and "DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/" in result.stderr


def test_under_pbs_the_run_directory_remedy_names_a_directory_for_the_experiment(tmp_path: Path) -> None:
    """A run directory others can write is refused; the example of one's own names the experiment, not a job id
    variable that a login node's shell would expand to nothing."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    result = job_parts(["run-dir"], {"RUN_DIR": str(shared), "RUN_DIR_MODE": "700"}, **PBS_JOB)
    assert result.returncode == 2, result.stderr
    assert "example: RUN_DIR=$HOME/runs/exp1 (a directory an experiment" in result.stderr, result.stderr


def test_a_dry_run_says_the_host_libraries_it_binds_are_its_own_hosts(fake_apptainer: Path,
                                                                       slingshot_node: Path) -> None:
    """On an x86_64 login node a GH200 job's dry run binds the login node's libraries: it says whose they are."""
    result = container({"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(slingshot_node), "DDP_NODE_ARCH": "x86_64",
                        "IMAGE": str(fake_apptainer / "app.sif"), "RUN_DIR": str(fake_apptainer / "run"),
                        "DRY_RUN": "1", "PATH": f"{fake_apptainer}/bin:/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert (f"DRY_RUN=1: the host libraries bound into the image are this host's ({platform.machine()}, "
            f"{platform.node()}); a job binds its head node's") in result.stdout, result.stdout
