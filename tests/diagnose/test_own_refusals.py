"""The project's own refusals in a job's log: the trainer's or the check's `error: ...` line, which a job shows when its
config check (or the step) ends with exit code 2. app.diagnose names it with the line's own words, from logs the
job scripts and the trainer really write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.host.diagnose import diagnose_lines
from app.host.diagnose.cli import FOUND, main
from tests.trainer_runs import REPO, clean_env, run, train_command


def keys(lines: list[str]) -> list[str]:
    return [finding.key for finding in diagnose_lines(lines)]


def test_a_config_the_jobs_config_check_refused_is_named_with_the_trainers_own_words(tmp_path, capsys):
    env = clean_env(DRY_RUN="1", DRY_RUN_NODES="gpu01,gpu02", GPUS_PER_NODE="4", IMAGE="none", CONFIG="demoo",
                    RUN_DIR=str(tmp_path / "run"))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])  # the venv's torchrun, python
    job = subprocess.run(["bash", "jobscripts/mn5.sh"], env=env, cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=False)
    assert job.returncode == 2 and "the config check failed (exit 2" in job.stderr + job.stdout, job.stderr
    log = tmp_path / "ddp-1.out"
    log.write_text(job.stdout + job.stderr)
    assert main([str(log)]) == FOUND
    report = capsys.readouterr().out
    assert report.startswith("1. this project's trainer refused the job's input before it trained: --config 'demoo': "
                             "no shipped config of that name"), report
    assert "[job-input-refused]" in report and "DRY_RUN=1" in report, report


def test_a_trainer_that_refused_its_input_in_the_step_is_named(tmp_path):
    refused = run(train_command("--config", "demo", "train.stepz=3", f"run.dir={tmp_path / 'run'}"))
    assert refused.returncode == 2, refused.stderr
    # What the job prints after the step (app/host/launch/job.py)
    lines = [*refused.stderr.splitlines(), "[12:00:00 mn5.sh] step finished with exit code 2"]
    assert keys(lines)[:1] == ["job-input-refused"], lines


def test_another_programs_error_line_is_not_taken_for_the_projects(tmp_path):
    pip = ["error: externally-managed-environment", "", "× This environment is externally managed"]
    assert "job-input-refused" not in keys(pip)
    assert "job-input-refused" not in keys([*pip, "[12:00:00 mn5.sh] step finished with exit code 1"])


def test_the_sealed_helpers_refusal_in_a_ranks_traceback_is_named(monkeypatch):
    """Your own script's init_process_group(init_method="tcp://...") under the job scripts: every rank's traceback
    ends in the helper's own line."""
    import pytest

    from app.common import signed_store

    for name, value in {"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1",
                        "DDP_STORE_SECRET": "a" * 32}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as refused:
        signed_store.init_process_group("nccl", init_method="tcp://10.0.0.1:29500")
    log = ["Traceback (most recent call last):", '  File "/home/me/train.py", line 12, in <module>',
           f"[rank0]: ValueError: {refused.value}"]
    found = diagnose_lines(log)
    assert found[0].key == "own-init-refused", [f.key for f in found]
    assert "init_method='tcp://10.0.0.1:29500'" in found[0].cause
