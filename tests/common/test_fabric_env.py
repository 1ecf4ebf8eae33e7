"""app/common/fabric_env.py: app.check and app.train apply the fabric policy themselves under
`apptainer exec`, as `apptainer run` and the job scripts do, without overriding the user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.common.fabric_env import apply_fabric_policy

REPO = Path(__file__).resolve().parents[2]


def slingshot_probe(tmp_path: Path) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "cxi0").touch()
    return tmp_path


def test_an_environment_nothing_applied_gets_the_policy_and_its_log_lines(tmp_path):
    environ = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(slingshot_probe(tmp_path)), "APP_NNODES": "2",
               "NCCL_NET_PLUGIN": "spcx", "BASH_FUNC_module%%": "() { :; }"}
    result = apply_fabric_policy(environ)
    assert result is not None and result.fabric == "slingshot"
    assert environ["FI_PROVIDER"] == "cxi" and environ["NCCL_NET"] == "AWS Libfabric"
    assert "NCCL_NET_PLUGIN" not in environ
    assert environ["BASH_FUNC_module%%"] == "() { :; }", "exported shell functions are not the policy's"
    assert "[fabric slingshot] setting FI_PROVIDER=cxi (libfabric provider for Slingshot NICs)" in result.log_lines
    assert not result.loader_changed


def test_the_users_own_values_win(tmp_path):
    environ = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(slingshot_probe(tmp_path)), "FI_PROVIDER": "tcp"}
    result = apply_fabric_policy(environ)
    assert environ["FI_PROVIDER"] == "tcp"
    assert "[fabric slingshot] keeping FI_PROVIDER=tcp (set by you)" in result.log_lines


def test_an_environment_the_policy_was_applied_to_is_left_alone(tmp_path):
    environ = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(slingshot_probe(tmp_path)),
               "APP_FABRIC_POLICY": "none"}
    assert apply_fabric_policy(environ) is None
    assert "FI_PROVIDER" not in environ


def test_a_bound_cray_libfabric_puts_its_directory_first_and_asks_for_a_new_process(tmp_path, monkeypatch):
    import app.common.fabric_env as fabric_env

    policy = tmp_path / "policy.env"
    libdir = tmp_path / "lib64"
    libdir.mkdir()
    (libdir / "libfabric.so.1").touch()
    policy.write_text(fabric_env.POLICY_FILE.read_text().replace("/opt/libfabric/lib64", str(libdir)))
    monkeypatch.setattr(fabric_env, "POLICY_FILE", policy)
    environ = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(tmp_path)}
    result = apply_fabric_policy(environ)
    assert environ["LD_LIBRARY_PATH"] == str(libdir)
    assert result.loader_changed


@pytest.mark.slow  # the check's interpreter, importing torch
def test_the_check_run_with_exec_logs_the_policy_as_the_job_scripts_do(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(slingshot_probe(tmp_path)), "APP_NNODES": "2",
           "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-m", "app.check", "--help"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "[fabric slingshot] setting NCCL_NET=AWS Libfabric" not in result.stderr, "--help changes nothing"


def test_a_variable_that_is_not_utf8_passes_through_unchanged(tmp_path):
    """Python holds such bytes as surrogate escapes (PEP 383); the policy's shell hands them back as bytes."""
    value = os.fsdecode(b"/scratch/caf\xe9")
    environ = {"PATH": "/usr/bin:/bin", "APP_PROBE_ROOT": str(slingshot_probe(tmp_path)), "PROJECT_DIR": value,
               "NCCL_DEBUG_FILE": value}
    result = apply_fabric_policy(environ)
    assert result is not None and result.fabric == "slingshot"
    assert environ["PROJECT_DIR"] == value and environ["NCCL_DEBUG_FILE"] == value
    assert environ["FI_PROVIDER"] == "cxi"
