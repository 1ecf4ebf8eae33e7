"""The job scripts on Debian's Slurm 22.05, the oldest release a site may run (the rest of the job-script
tests run on the current release, tests/slurm/current-release.env). A subset: training across two nodes, a
preemption that snapshots, requeues and resumes, and a bad node left out (the exclude list is updated after
the requeue, which older releases order differently). The tests are the current release's, collected here
again with this module's SLURM_RELEASE.
"""

from __future__ import annotations

import pytest

from tests.jobscripts.test_jobscripts_slurm import (  # noqa: F401  (fixtures and tests, collected again here)
    image_env,
    test_a_node_the_preflight_finds_bad_is_left_out_and_the_job_finishes_on_the_other_two,
    test_slurm_script_trains_across_both_nodes_to_a_snapshot_with_decreasing_loss,
    test_usr1_snapshots_requeues_and_resumes_to_the_uninterrupted_result,
    uninterrupted,
)

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

#: Read by the slurm_cluster fixture (tests/fixtures/slurm.py)
SLURM_RELEASE = "debian"
