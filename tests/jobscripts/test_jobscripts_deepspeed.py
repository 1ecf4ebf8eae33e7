"""A DeepSpeed user's ZeRO-2 script through the job scripts on the Slurm test cluster (tests/slurm/up.sh).

The script (tests/data/deepspeed_zero2.py) and its config are the user's own, submitted the way
`test_users_own_torchrun_script_runs_unchanged` submits a plain torchrun script: `sbatch -N2 slurm.sh
SCRIPT.py ARGS`. The job runs torchrun on both nodes inside the smoke image, which carries the DeepSpeed the
CUDA images carry (containers/versions.env), with its CPU accelerator over gloo: 2 nodes x 2 CPU ranks. What
differs from a GPU run (bf16 in fp16's place, gloo for NCCL) is in tests/deepspeed/test_user_script.py.
"""

from __future__ import annotations

import re
import shutil

import pytest

from tests.deepspeed.test_user_script import CPU_CONFIG, HOLDS, LOSS, SCRIPT
from tests.fixtures.slurm import SlurmCluster
from tests.jobscripts.test_jobscripts_slurm import (  # image_env: the module's fixture, found here by name
    JOBSCRIPTS,
    NODE2_HOST,
    assert_completed,
    image_env,  # noqa: F401
)

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

STEPS = 30
#: Four ranks importing DeepSpeed on the test cluster's shared cores, after the preflight
WAIT_S = 420


def test_a_deepspeed_zero2_script_runs_unchanged_across_both_nodes(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:  # noqa: F811 (the imported fixture)
    if image_env["IMAGE"] == "none":
        pytest.skip("DDP_SLURM_TEST_IMAGE=none: build/job-venv is built without DeepSpeed (bench/slurm_cluster.py "
                    "installs the project without its deepspeed extra)")
    workdir = slurm_cluster.workdir()
    shutil.copy(SCRIPT, workdir / "deepspeed_zero2.py")
    # The site's ds_config.json with bf16 in fp16's place: this CPU has no fp16 (tests/deepspeed/)
    shutil.copy(CPU_CONFIG, workdir / "ds_config_cpu.json")
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "deepspeed_zero2.py",
                                  "--deepspeed_config", "ds_config_cpu.json", "--steps", str(STEPS),
                                  env={"GPUS_PER_NODE": "2", "EXTRA_ENV": "DS_ACCELERATOR=cpu", "PREFLIGHT": "0",
                                       **image_env})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=WAIT_S)
    assert_completed(job)
    output = job.output
    assert f"done: {STEPS} steps on 4 ranks" in output, output[-4000:]

    # Every rank of both nodes took part, each holding its own part of the fp32 master weights (ZeRO stage 2)
    held = {int(rank): (int(stage), dtype, int(n), int(total))
            for rank, world, stage, dtype, n, total in HOLDS.findall(output) if world == "4"}
    assert sorted(held) == [0, 1, 2, 3], output[-4000:]
    total = held[0][3]
    assert all(stage == 2 and dtype == "bfloat16" and 0 < n < total for stage, dtype, n, _ in held.values())
    assert sum(n for _, _, n, _ in held.values()) >= total
    hosts = set(re.findall(r"rank \d+/4 on (\S+): zero stage", output))
    assert hosts == {"node1", NODE2_HOST}, hosts

    # Each rank's loss fell
    losses: dict[int, list[float]] = {}
    for rank, _step, loss in LOSS.findall(output):
        losses.setdefault(int(rank), []).append(float(loss))
    assert sorted(losses) == [0, 1, 2, 3]
    for rank, values in losses.items():
        assert sum(values[-5:]) / 5 < 0.5 * sum(values[:5]) / 5, (rank, values)

    # engine.save_checkpoint into RUN_DIR (the job scripts export it): one optimizer partition per rank
    saved = sorted(p.name for p in (job.run_dir / "final").glob("*optim_states.pt"))
    assert saved == [f"bf16_zero_pp_rank_{rank}_mp_rank_00_optim_states.pt" for rank in range(4)], saved
    # The hostfile for users of the `deepspeed` launcher, in Slurm's names for the nodes
    assert (job.run_dir / "hostfile").read_text() == "node1 slots=2\nnode2 slots=2\n"
