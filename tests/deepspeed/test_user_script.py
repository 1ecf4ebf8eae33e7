"""A DeepSpeed user's ZeRO-2 script (tests/data/deepspeed_zero2.py), run unchanged with real torchrun: 2 ranks on
this machine's CPU, over gloo. The same script goes through the job scripts on the Slurm test cluster in
tests/jobscripts/test_jobscripts_deepspeed.py.

What differs from a GPU run, and why (DeepSpeed v0.19.8's source):
- The accelerator is DeepSpeed's CPU one (DS_ACCELERATOR=cpu; with no GPU visible it would pick it anyway,
  accelerator/real_accelerator.py get_accelerator), whose communication backend is gloo when oneCCL's
  bindings are not installed (accelerator/cpu_accelerator.py). On GPUs it is CUDA with NCCL.
- The config: seed 000's ds_config.json enables fp16, which DeepSpeed refuses on a CPU without oneDNN fp16
  ("Type fp16 is not supported on your device.", runtime/engine.py _do_sanity_check; the CPU accelerator asks
  torch.ops.mkldnn._is_mkldnn_fp16_supported(), true only on CPUs with AVX512-FP16/AMX-FP16). The CPU run
  takes tests/data/ds_config_cpu.json: the same file with bf16 in fp16's place (bf16 is always supported on
  the CPU accelerator). Nothing in the user's file or script is changed for it.
- ZeRO-2's `reduce_scatter: true` is not torch's reduce_scatter collective: DeepSpeed reduces each bucket
  slice to the rank that owns it with dist.reduce (or all_reduce), runtime/zero/stage_1_and_2.py
  average_tensor; gloo implements both.
- On the CPU, DeepSpeed's communication backend compiles a shared-memory all-reduce op when it starts
  (comm/torch.py TorchBackend.__init__ -> build_shm_op, op_builder/cpu/comm.py ShareMemCommBuilder), at first
  use with the host's C++ compiler into ~/.cache/torch_extensions (a minute on two cores, then cached), unless
  it was built at install (the smoke image does, containers/scripts/install-python.sh).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.trainer_runs import REPO, clean_env, run

DATA = REPO / "tests" / "data"
SCRIPT = DATA / "deepspeed_zero2.py"
#: Seed 000's file as its users have it (fp16: the GPU run)
SITE_CONFIG = DATA / "ds_config.json"
#: The same with bf16 in fp16's place: what a CPU without fp16 can run
CPU_CONFIG = DATA / "ds_config_cpu.json"
#: The first run compiles DeepSpeed's shared-memory op (about a minute on two cores)
TIMEOUT_S = 600
#: Unanchored: two ranks share one pipe, and unbuffered (PYTHONUNBUFFERED) print writes the line and its newline
#: separately, so one rank's line may run into another's
LOSS = re.compile(r"rank (\d+) step (\d+) loss (\d+\.\d{5})")
HOLDS = re.compile(r"rank (\d+)/(\d+) on \S+: zero stage (\d), dtype (\w+), holds (\d+) of (\d+) master weights")


def deepspeed_torchrun(nproc: int, config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
            str(SCRIPT), "--deepspeed_config", str(config), *args]


def losses_by_rank(output: str) -> dict[int, list[float]]:
    by_rank: dict[int, list[float]] = {}
    for rank, _step, loss in LOSS.findall(output):
        by_rank.setdefault(int(rank), []).append(float(loss))
    return by_rank


def test_the_cpu_config_is_the_sites_config_with_bf16_in_place_of_fp16() -> None:
    site, cpu = json.loads(SITE_CONFIG.read_text()), json.loads(CPU_CONFIG.read_text())
    assert site["fp16"] == cpu["bf16"] == {"enabled": True}
    assert {k: v for k, v in site.items() if k != "fp16"} == {k: v for k, v in cpu.items() if k != "bf16"}
    assert site["zero_optimization"]["stage"] == 2 and site["train_batch_size"] == "auto"


def test_the_tests_install_the_deepspeed_the_images_carry() -> None:
    extra = re.search(r"^deepspeed = (.*)$", (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    pins = dict(line.split("=", 1) for line in (REPO / "containers" / "versions.env").read_text().splitlines()
                if line and not line.startswith("#"))
    version = pins["DEEPSPEED_VERSION"]
    assert extra and extra.group(1) == f'["deepspeed=={version}"]', extra


@pytest.mark.slow
def test_a_zero2_script_trains_unchanged_on_two_cpu_ranks_over_gloo(tmp_path: Path) -> None:
    pytest.importorskip("deepspeed", reason="needs deepspeed: pip install -e '.[deepspeed]'")
    result = run(deepspeed_torchrun(2, CPU_CONFIG, "--steps", "30", "--save-dir", str(tmp_path)),
                 env=clean_env(DS_ACCELERATOR="cpu"), timeout=TIMEOUT_S, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "done: 30 steps on 2 ranks" in output
    # Both ranks took part, each holding its own half of the fp32 master weights (ZeRO stage 2)
    held = {int(rank): (int(stage), dtype, int(n), int(total))
            for rank, world, stage, dtype, n, total in HOLDS.findall(output) if world == "2"}
    assert sorted(held) == [0, 1], output[-4000:]
    total = held[0][3]
    assert all(stage == 2 and dtype == "bfloat16" for stage, dtype, _, _ in held.values())
    assert all(0 < n < total for _, _, n, _ in held.values()) and sum(n for _, _, n, _ in held.values()) >= total
    # Each rank's loss fell (its own examples, the averaged gradients)
    for rank, losses in losses_by_rank(output).items():
        assert len(losses) == 30, (rank, losses)
        assert sum(losses[-5:]) / 5 < 0.5 * sum(losses[:5]) / 5, (rank, losses)
    # engine.save_checkpoint: one optimizer partition per rank, as on GPUs
    saved = sorted(p.name for p in (tmp_path / "final").glob("*optim_states.pt"))
    assert saved == [f"bf16_zero_pp_rank_{rank}_mp_rank_00_optim_states.pt" for rank in (0, 1)], saved


@pytest.mark.slow
def test_the_sites_fp16_config_stops_on_a_cpu_without_fp16_with_deepspeeds_reason(tmp_path: Path) -> None:
    """Why the CPU run takes ds_config_cpu.json: the site's file, unchanged, is refused before any step."""
    pytest.importorskip("deepspeed", reason="needs deepspeed: pip install -e '.[deepspeed]'")
    import torch

    if torch.ops.mkldnn._is_mkldnn_fp16_supported():
        pytest.skip("this CPU has oneDNN fp16 (AVX512-FP16/AMX-FP16): DeepSpeed accepts fp16 on it")
    result = run(deepspeed_torchrun(1, SITE_CONFIG, "--steps", "1"), env=clean_env(DS_ACCELERATOR="cpu"),
                 timeout=TIMEOUT_S, cwd=tmp_path)
    assert result.returncode != 0
    assert "Type fp16 is not supported on your device." in result.stdout + result.stderr


@pytest.mark.slow
def test_deepspeed_itself_does_not_fill_in_auto_which_is_why_the_script_does(tmp_path: Path) -> None:
    """Hugging Face's Trainer fills "auto" in; deepspeed.initialize given the file as it is stops on the string."""
    pytest.importorskip("deepspeed", reason="needs deepspeed: pip install -e '.[deepspeed]'")
    script = tmp_path / "as_is.py"
    script.write_text(
        "import json, deepspeed, torch\n"
        "deepspeed.init_distributed()\n"
        f"config = json.loads({CPU_CONFIG.read_text()!r})\n"
        "model = torch.nn.Linear(2, 1)\n"
        "deepspeed.initialize(model=model, optimizer=torch.optim.AdamW(model.parameters()), config=config)\n")
    result = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", str(script)],
                 env=clean_env(DS_ACCELERATOR="cpu"), timeout=TIMEOUT_S, cwd=tmp_path)
    assert result.returncode != 0
    assert "TypeError: unsupported operand type(s) for //: 'str' and 'int'" in result.stdout + result.stderr
