"""What the check tells a user to type names the scheduler the job runs under: qsub under PBS, sbatch under Slurm."""

from __future__ import annotations

import pytest

from app.check.localise import judge_slow_nodes
from app.check.node import health
from app.check.report import OK, Check, Report

PBS = {"PBS_JOBID": "1234.pbs01", "PBS_NODEFILE": "/var/spool/pbs/aux/1234.pbs01"}
SLURM = {"SLURM_JOB_ID": "77", "SLURM_NODELIST": "n[1-2]"}


def remedies(monkeypatch, env: dict[str, str]) -> list[str]:
    for name in (*PBS, *SLURM):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    failed_gpu = health.judge_health(["0, 00000000:18:00.0, 3, No, No, [N/A], 16, 16"])
    [slow] = judge_slow_nodes({"n1": 20.0, "n2": 21.0, "n3": 2.0}, {})
    one_process = Report([Check("a", OK, "fine")], info={"nodes": {"0": "n1"}}).verdict()
    return [failed_gpu.remedy, slow.remedy, one_process]


def test_under_pbs_no_remedy_names_sbatch_and_each_says_what_pbs_can_do(monkeypatch):
    for text in remedies(monkeypatch, PBS):
        assert "sbatch" not in text and "scontrol" not in text, text
    gpu, slow, one_process = remedies(monkeypatch, PBS)
    assert "pbsnodes -o" in gpu and "pbsnodes -o" in slow
    assert "qsub -v WORKLOAD=check jobscripts/gh200-pbs.sh" in one_process


@pytest.mark.parametrize("env", [SLURM, {}], ids=["slurm", "no-scheduler"])
def test_under_slurm_or_none_the_remedies_name_sbatch(monkeypatch, env):
    gpu, slow, one_process = remedies(monkeypatch, env)
    assert "sbatch --exclude=NODE" in gpu and "sbatch --exclude=NODE" in slow
    assert "sbatch -N 2 jobscripts/slurm.sh check" in one_process
