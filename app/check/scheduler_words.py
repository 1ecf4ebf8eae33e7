"""A remedy's commands in the words of the scheduler the check runs under: qsub under PBS, sbatch otherwise."""

from __future__ import annotations

import os
from collections.abc import Mapping

from app.host.common import scheduler_env


def under_pbs(env: Mapping[str, str] | None = None) -> bool:
    """A PBS job's, not a Slurm job's (app/host/common/scheduler_env.py says how it tells)."""
    return scheduler_env.under_pbs(os.environ if env is None else env)


def leave_out(what: str, site_task: str) -> str:
    """Leave a bad node out of the next job and have the site look at it. PBS Pro cannot exclude a host from a
    select, and taking a node offline (`pbsnodes -o`) needs operator rights: the user can only report it."""
    if under_pbs():
        return (f"leave {what} out: PBS cannot exclude a host from a select, so report it to the site (an operator "
                f"runs pbsnodes -o NODE) and resubmit with qsub; the site should {site_task}")
    return f"leave {what} out (--exclude-file; sbatch --exclude=NODE) and tell the site: {site_task}"


def check_job_example() -> str:
    """The job that runs the check with one rank per GPU on every node."""
    if under_pbs():
        return "`qsub -v WORKLOAD=check jobscripts/gh200-pbs.sh`"
    return "`sbatch -N 2 jobscripts/slurm.sh check`"


def build_image_job(flavour: str, base: str, env: Mapping[str, str] | None = None) -> str:
    """The image build job (jobscripts/build-image.sh; docs/images.md, "Build it on the cluster, as a job") of
    FLAVOUR on the local base BASE, as submitted from the project directory: for those with no build host."""
    if under_pbs(env):
        return f"qsub -q <queue> -v FLAVOUR={flavour},BASE={base} jobscripts/build-image.sh"
    return f"sbatch -p <partition> --export=ALL,FLAVOUR={flavour},BASE={base} jobscripts/build-image.sh"
