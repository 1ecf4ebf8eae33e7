"""The GPU paths, run the way a user runs them: NCCL, bf16 autocast, torch.compile, fused AdamW, CUDA-event
timing in the check, NCCL's log read back. They need a CUDA GPU and are skipped (with the reason) elsewhere;
one GPU is enough (`bash bench/gpu_session.sh paths` runs them on an H100 or H200 GPU host)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.trainer_runs import (
    REPO,
    assert_step_times_account_for_the_run,
    clean_env,
    metrics,
    run,
    summary,
    torchrun_command,
    train_command,
)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (none is visible here)"),
]


def gpu_env() -> dict[str, str]:
    return clean_env(CUDA_VISIBLE_DEVICES="0")


def train(run_dir, *overrides: str, launcher=train_command):
    result = run(launcher("--config", "demo", f"run.dir={run_dir}", "run.progress=lines", *overrides), env=gpu_env())
    assert result.returncode == 0, result.stderr[-4000:]
    return result


def test_one_gpu_trains_with_nccl_bf16_and_fused_adamw(tmp_path):
    result = train(tmp_path / "run", "train.max_steps=30", launcher=lambda *a: torchrun_command(1, *a))
    assert "device cuda:0, backend nccl, precision bf16" in result.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["backend"] == "nccl"
    done = summary(tmp_path / "run")
    assert done["step"] == 30 and math.isfinite(done["final_loss"])
    assert done["peak_memory_gib"] > 0
    if any(name in torch.cuda.get_device_name() for name in ("H100", "H200")):
        assert 0 < done["mfu"] < 1


def test_compiled_model_trains_and_resumes_on_the_gpu(tmp_path):
    run_dir = tmp_path / "run"
    train(run_dir, "train.compile=true", "train.max_steps=20", "snapshot.every=10")
    first = summary(run_dir)
    result = train(run_dir, "train.compile=true", "train.max_steps=40", "snapshot.every=10")
    assert "resuming from" in result.stderr and "at step 20" in result.stderr
    resumed = summary(run_dir)
    assert resumed["step"] == 40 and resumed["steps_run"] == 20
    assert [r["step"] for r in metrics(run_dir)] == list(range(1, 41))
    assert resumed["final_loss"] < first["final_loss"]


def test_resume_on_the_gpu_continues_where_the_uninterrupted_run_is(tmp_path):
    """Same steps, same data order: the resumed run ends where an uninterrupted one does. Bit-identity is
    not promised on a GPU (atomics in the embedding's backward), so losses are compared to 1e-3."""
    straight, split = tmp_path / "straight", tmp_path / "split"
    train(straight, "train.max_steps=40")
    train(split, "train.max_steps=20")
    train(split, "train.max_steps=40")
    a, b = metrics(straight), metrics(split)
    assert [r["step"] for r in a] == [r["step"] for r in b] == list(range(1, 41))
    assert abs(a[-1]["loss"] - b[-1]["loss"]) < 1e-3, (a[-1]["loss"], b[-1]["loss"])
    print("bit-identical:", summary(straight)["params_sha256"] == summary(split)["params_sha256"])


def test_step_times_add_up_to_the_run_on_a_busy_gpu(tmp_path):
    """The GPU runs behind the host: a step's time must be the device's, or the per-step tokens/s
    (metrics.jsonl, the progress line) overstate the speed. Timed on the host around each step instead, the
    steps and snapshots would account for far less than the run."""
    run_dir = tmp_path / "run"
    result = train(run_dir, "model.size=gpt2", "train.batch_size=8", "data.tokens=400000", "train.max_steps=25",
                   "snapshot.every=0")
    assert_step_times_account_for_the_run(run_dir, result.stderr)


def test_two_ranks_on_one_gpu_stop_with_a_clear_message(tmp_path):
    if torch.cuda.device_count() != 1:
        pytest.skip("needs exactly one visible GPU")
    result = run(torchrun_command(2, "--config", "demo", f"run.dir={tmp_path / 'run'}"), env=gpu_env())
    assert "error: local rank 1 needs GPU 1 but this node shows 1" in result.stderr
    assert "start at most 1 processes per node" in result.stderr
    assert "exitcode  : 2" in result.stderr  # torchrun's report of the rank: a usage error, not a crash
    assert "CUDA error" not in result.stderr and "RuntimeError" not in result.stderr, result.stderr[-3000:]


def test_make_demo_with_more_ranks_than_gpus_says_so_and_trains_on_cpu(tmp_path):
    if torch.cuda.device_count() != 1:
        pytest.skip("needs exactly one visible GPU")
    venv = Path(sys.prefix)  # this interpreter's environment has everything: -o keeps make from installing
    result = subprocess.run(
        ["make", "-o", f"{venv}/.installed-present", "demo", f"VENV={venv}", "TORCH_VERSION=present", "NPROC=2",
         f"ARGS=train.max_steps=20 run.dir={tmp_path / 'run'}"],
        cwd=REPO, env=gpu_env(), capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "make demo: 2 ranks but 1 GPU(s)" in result.stdout and "make demo NPROC=1" in result.stdout
    assert "device cpu, backend gloo" in result.stderr
    assert summary(tmp_path / "run")["step"] == 20


def test_check_on_one_gpu_runs_nccl_collectives_and_reads_the_nccl_log(tmp_path):
    report, plot = tmp_path / "report.json", tmp_path / "busbw.png"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", "-m", "app.check",
               "--json", str(report), "--plot", str(plot)]
    result = run(command, env=gpu_env())
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    # A healthy one-GPU host passes without warnings (NCCL's start-up probes once made one).
    assert "VERDICT: PASS: this process's checks passed" in result.stdout, result.stdout[-3000:]
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    assert "(nccl)" in checks["rendezvous: process group"]["detail"]
    assert "network Socket" in result.stdout  # the transport section: NCCL's log was captured and read back
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_adamw_on_a_gpu_is_the_fused_kernel():
    from app.train.config import OptimConfig
    from app.train.optim import build_optimizer

    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)).cuda()
    optimizer = build_optimizer(model, OptimConfig(), torch.device("cuda"))
    assert [group["fused"] for group in optimizer.param_groups] == [True, True]
    model(torch.randn(2, 8, device="cuda")).sum().backward()
    optimizer.step()  # the fused kernel accepts these parameters (fp32, on the GPU)
