"""Several NCCL ranks on one GPU, each standing for a host (its own NCCL_HOSTID, one torchrun agent each):
NCCL's collectives between ranks, DDP's gradient buckets and FSDP2's all-gathers over NCCL, NCCL's log read
back with more than one rank, resume after a SIGKILL, and the hang watch. Skipped without a CUDA GPU."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
import torch

from tests.trainer_runs import (
    TIMEOUT_S,
    children,
    clean_env,
    emulated_nodes,
    finish_all,
    metrics,
    summary,
    wait_for_step,
)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (none is visible here)"),
]

DEMO = ["--config", "demo", "run.progress=lines", "run.log_every=1"]


def gpu_env(**extra: str) -> dict[str, str]:
    return clean_env(CUDA_VISIBLE_DEVICES="0", **extra)


def train_on_emulated_nodes(n: int, *args: str, env: dict[str, str] | None = None) -> list[str]:
    agents = emulated_nodes(n, "app.train", *DEMO, *args, env=env or gpu_env())
    outputs = finish_all(agents)
    assert [a.returncode for a in agents] == [0] * n, "\n---\n".join(o[-3000:] for o in outputs)
    return outputs


@pytest.mark.parametrize("ranks", [2, 4])
def test_check_passes_with_ranks_on_one_gpu_as_separate_hosts_and_reads_nccls_log(tmp_path, ranks):
    agents = emulated_nodes(ranks, "app.check", "--json", str(tmp_path / "report.json"), env=gpu_env())
    outputs = finish_all(agents)
    report_text = next((out for out in outputs if "VERDICT" in out), "\n---\n".join(outputs))
    assert [a.returncode for a in agents] == [0] * ranks, report_text[-4000:]
    assert "VERDICT: PASS" in report_text, report_text[-4000:]
    report = json.loads((tmp_path / "report.json").read_text())
    # One rank per emulated host: 'all ranks' is the across-nodes scope (not measured twice)
    assert [s["kind"] for s in report["scopes"]] == ["all"]
    checks = {c["name"]: c for c in report["checks"]}
    assert "(nccl)" in checks["rendezvous: process group"]["detail"]
    # NCCL's log, captured on every rank and read back: the ranks talk through the network transport
    assert "NET/Socket" in checks["nccl: inter-node transport"]["detail"], checks["nccl: inter-node transport"]
    assert report["scopes"][0]["avg_busbw_gbps"] > 0
    # The figures, to set beside the plugin's (test_gpu_fabric.py)
    print([(row["collective"], row["size"], row["busbw"]) for row in report["scopes"][0]["rows"]])


@pytest.mark.parametrize(("strategy", "compiled"), [("ddp", False), ("fsdp", False), ("fsdp", True)],
                         ids=["ddp", "fsdp", "fsdp-compiled"])
def test_two_ranks_killed_and_restarted_end_bit_identical_to_an_uninterrupted_run(tmp_path, strategy, compiled):
    """run.deterministic makes the GPU kernels reproducible, so the resumed run's parameters hash the same;
    compiled, the restarted ranks compile again and must reach the same kernels."""
    args = [f"dist.strategy={strategy}", "train.max_steps=60", "snapshot.every=20", "run.deterministic=true",
            *(["train.compile=true", "train.compile_scope=blocks"] if compiled else [])]
    train_on_emulated_nodes(2, *args, f"run.dir={tmp_path / 'reference'}")

    killed = tmp_path / "killed"
    agents = emulated_nodes(2, "app.train", *DEMO, *args, f"run.dir={killed}", env=gpu_env(), max_restarts=1)
    wait_for_step(killed, 30, agents[0])
    os.kill(children(agents[1].pid)[-1], signal.SIGKILL)
    outputs = finish_all(agents)
    assert [a.returncode for a in agents] == [0, 0], "\n---\n".join(o[-3000:] for o in outputs)
    assert any("resuming from" in out and "step-00000020" in out for out in outputs)
    assert [r["step"] for r in metrics(killed)] == list(range(1, 61))
    assert summary(killed)["params_sha256"] == summary(tmp_path / "reference")["params_sha256"]


@pytest.mark.parametrize(("strategy", "compile_scope"), [("ddp", "model"), ("ddp", "blocks"), ("fsdp", "blocks")])
def test_gpt2_trains_on_two_ranks_with_each_strategy_compiled(tmp_path, strategy, compile_scope):
    outputs = train_on_emulated_nodes(
        2, f"dist.strategy={strategy}", "model.size=gpt2", "train.batch_size=4", "data.tokens=300000",
        "train.max_steps=12", "snapshot.every=0", "train.compile=true", f"train.compile_scope={compile_scope}",
        f"run.dir={tmp_path / 'run'}")
    assert any("backend nccl, precision bf16" in out for out in outputs)
    done = summary(tmp_path / "run")
    assert done["step"] == 12 and done["world_size"] == 2
    records = metrics(tmp_path / "run")
    assert records[-1]["loss"] < records[0]["loss"]


def test_a_stopped_rank_among_two_on_one_gpu_is_named_and_the_job_ends_with_exit_4(tmp_path):
    agents = emulated_nodes(2, "app.train", *DEMO, f"run.dir={tmp_path}", "train.max_steps=400", "snapshot.every=5",
                            "dist.timeout_s=60", "dist.hang_timeout_s=8",
                            env=gpu_env(APP_TRAIN_FAULT="stop@rank1:step8"))
    deadline = time.monotonic() + TIMEOUT_S
    while all(a.poll() is None for a in agents) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(5)  # the other agent's report, if it ends by itself
    for agent in agents:  # the stopped rank's agent waits on its frozen worker: end it as the scheduler would
        if agent.poll() is None:
            for pid in children(agent.pid):
                os.kill(pid, signal.SIGKILL)
            agent.send_signal(signal.SIGTERM)
    outputs = finish_all(agents, timeout=60)
    log = "\n".join(outputs)
    assert "hang: rank 1 (" in log and "stopped answering" in log, log[-4000:]
    assert "exitcode  : 4" in log, log[-4000:]
    done = summary(tmp_path)
    assert done["status"] == "hung" and done["hang"]["ranks"] == [1]
    # Rank 1 froze as its host began step 8; its GPU may still have been in step 7, whose all-reduce then
    # never finished (NCCL's socket transport runs on the frozen process's threads). The summary names the
    # last step whose figures came back, and every such step is in metrics.jsonl.
    steps = [r["step"] for r in metrics(tmp_path)]
    assert done["step"] in (6, 7) and steps == list(range(1, done["step"] + 1)), (done, steps)

