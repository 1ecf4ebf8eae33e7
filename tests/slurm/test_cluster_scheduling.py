"""The test cluster's own scheduling (tests/slurm/up.sh): a requeued job starts again within seconds, so that
every requeue test (preemption, a bad node left out, a hang) waits for its work, not for slurmctld."""

from __future__ import annotations

import pytest

from tests.fixtures.slurm import SlurmCluster

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

#: requeue_delay + 1 s, then at most one main scheduling loop (sched_interval) and the old batch script's exit,
#: about 6 s, with room for a loaded machine; without the cluster's settings it takes cred_expire's default
#: 11 s + 1 s, then up to a 60 s sched_interval.
REQUEUED_JOB_STARTS_WITHIN_S = 15


def test_a_requeued_job_runs_again_within_seconds(slurm_cluster: SlurmCluster) -> None:
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "--requeue", "-N1", "--wrap", "sleep 300")
    try:
        slurm_cluster.wait_for(lambda: slurm_cluster.state(job_id) == "RUNNING", timeout_s=60, what="the job to start")
        requeue = slurm_cluster.run("scontrol", "requeue", job_id)
        assert requeue.returncode == 0, requeue.stderr
        slurm_cluster.wait_for(lambda: slurm_cluster.state(job_id) != "RUNNING", timeout_s=30, what="the requeue")
        restarted_after_s = slurm_cluster.wait_for(lambda: slurm_cluster.state(job_id) == "RUNNING", timeout_s=60,
                                                   what="the requeued job to run again")
        info = slurm_cluster.run("scontrol", "show", "job", job_id).stdout
        assert "Restarts=1" in info, info
        assert restarted_after_s < REQUEUED_JOB_STARTS_WITHIN_S, (
            f"the requeued job started again {restarted_after_s:.1f} s after it left RUNNING")
    finally:
        slurm_cluster.run("scancel", job_id)
