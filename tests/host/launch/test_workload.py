"""app/host/launch/workload.py: what runs on every node, from the job's arguments."""

from __future__ import annotations

import shlex

import pytest

from app.host.common.errors import UsageError
from app.host.launch.workload import nccl_tests_one_node, workload

JOB = {"config": "demo", "run_dir": "/runs/42", "check_site": "mn5", "scheduler": "slurm", "script": "mn5.sh"}


@pytest.mark.parametrize(("args", "expected"), [
    ([], ("train", ["-m", "app.train", "--config", "demo", "run.dir=/runs/42"])),
    (["check"], ("check", ["-m", "app.check", "--site", "mn5"])),
    (["check", "--site=mine.yaml"], ("check", ["-m", "app.check", "--site=mine.yaml"])),
    (["nccl-tests", "-n", "5"], ("nccl-tests", ["all_reduce_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1",
                                                "-n", "5"])),
    (["-m", "my_pkg.train", "--epochs", "5"], ("module", ["-m", "my_pkg.train", "--epochs", "5"])),
    (["my_train.py", "--name", "a b"], ("script", ["my_train.py", "--name", "a b"])),
])
def test_the_workload_is_train_check_nccl_tests_or_your_own(tmp_path, args, expected):
    (tmp_path / "my_train.py").touch()
    assert tuple(workload(args, cwd=str(tmp_path), **JOB)) == expected


@pytest.mark.parametrize(("args", "scheduler", "message"), [
    (["trian"], "slurm", "'trian' is neither train, check, nccl-tests nor a script file (looked in {}); usage: "
                         "sbatch mn5.sh [train [key=value ...] | check | nccl-tests [ARGS] | SCRIPT.py"),
    (["-m"], "pbs", 'example: qsub -v WORKLOAD="-m my_pkg.train --epochs 5" mn5.sh'),
    # The usage lists what the first sentence does: PBS runs nccl-tests through PALS' mpiexec
    (["trian"], "pbs", "'trian' is neither train, check, nccl-tests nor a script file (looked in {}); usage: "
                       'qsub -v WORKLOAD="[train [key=value ...] | check | nccl-tests [ARGS] | SCRIPT.py [ARGS] | '
                       '-m MODULE [ARGS]]" mn5.sh'),
])
def test_a_workload_that_cannot_run_says_how_to_submit_one(tmp_path, args, scheduler, message):
    with pytest.raises(UsageError) as error:
        workload(args, cwd=str(tmp_path), **{**JOB, "scheduler": scheduler})
    assert message.format(tmp_path) in str(error.value)


def test_the_one_node_nccl_tests_command_runs_the_same_test_as_the_job():
    command = shlex.split(nccl_tests_one_node(4))
    assert command[:5] == ["apptainer", "exec", "--nv", "app.sif", "mpirun"] and "--oversubscribe" in command
    assert command[command.index("-np") + 1] == "4"
    assert command[-9:] == workload(["nccl-tests"], cwd="/", **JOB).argv
