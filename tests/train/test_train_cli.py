"""Bad input to `python -m app.train`: one line naming the key or variable, a working example, exit 2."""

from __future__ import annotations

import pytest

from tests.trainer_runs import REPO, clean_env, run, train_command

pytestmark = pytest.mark.slow  # each test starts the trainer's interpreter: a second of CPU to import torch

BAD_INPUTS = [
    # (arguments, extra environment, text the one line must contain)
    (["train.batchsize=8"], {}, "unknown config key 'train.batchsize'; did you mean train.batch_size?"),
    (["train.batch_size=eight"], {}, "train.batch_size='eight' is not an integer; example: train.batch_size=32"),
    (["train.batch_size=0"], {}, "train.batch_size=0 must be at least 1; example: train.batch_size=32"),
    (["optim.lr=-0.1"], {}, "optim.lr=-0.1 must be positive; example: optim.lr=0.001"),
    (["optim.name=adam"], {}, "optim.name='adam' is not one of adamw, sgd; example: optim.name=adamw"),
    (["run.breakdown=maybe"], {}, "run.breakdown='maybe' is not a boolean; example: run.breakdown=true"),
    (["--config", "/nonexistent/run.yaml"], {}, "--config '/nonexistent/run.yaml': no such file from "),
    (["--config", "nosuchname"], {}, "no shipped config of that name (demo, gpt2-h100, regression); "
                                     "example: --config demo, or a file of your own by its path"),
    # A file name from docs/training.md run elsewhere: the shipped config it meant, by a form that works anywhere
    (["--config", "configs/demo.yaml"], {}, "no such file from /; to use the shipped one: --config demo"),
    # A key without its section, or misspelled without it: the section that has it
    (["max_steps=3"], {}, "unknown config key 'max_steps'; did you mean train.max_steps?"),
    (["max_step=3"], {}, "unknown config key 'max_step'; did you mean train.max_steps?"),
    (["--world-size", "4"], {}, "--world-size N (N >= 1) plans a --dry-run"),
    (["--nodes", "4"], {}, "--nodes N (N >= 1) plans a --dry-run; example: --dry-run --world-size 4096 --nodes 1024"),
    (["--dry-run", "--node-mtbf-hours", "0"], {}, "--node-mtbf-hours H (H > 0) plans a --dry-run; example: "),
    (["run.tensorboard=true"], {"PYTHONPATH": "{hide}"}, "run.tensorboard=true needs the tensorboard package: "
                                                         "pip install tensorboard"),
    (["lr"], {}, "argument 'lr' is not key=value; example: train.batch_size=32"),
    (["workload.name=nosuchpkg.task:build"], {}, "cannot import 'nosuchpkg.task'"),
    (["model.n_embd=100", "model.n_head=3"], {}, "model.n_embd=100 is not divisible by model.n_head=3"),
    (["data.tokens_file=/nonexistent.bin"], {}, "data.tokens_file='/nonexistent.bin' cannot be read"),
    (["run.dir=/proc/forbidden"], {}, "run.dir='/proc/forbidden' is not writable"),
    # Paths of the wrong kind: a directory where a file of tokens belongs, a file where a directory belongs
    (["data.tokens_file=/tmp"], {}, "data.tokens_file='/tmp' is a directory or a device, not a file of tokens"),
    (["run.dir=/etc/passwd"], {}, "run.dir='/etc/passwd' is a file, not a directory"),
    (["snapshot.dir=/etc/passwd"], {}, "snapshot.dir='/etc/passwd' is a file, not a directory"),
    (["snapshot.resume=false"], {}, "snapshot.resume='false' is not one of auto, never, required"),
    (["snapshot.resume=required"], {}, "snapshot.resume=required but "),
    # Hostile values: each passed validation and then failed in every rank (OverflowError, the allocator)
    (["dist.timeout_s=inf"], {}, "dist.timeout_s=inf is not a finite number; example: dist.timeout_s=0.001"),
    (["train.batch_size=" + "9" * 5001], {}, "train.batch_size=99999999999999999999... (5001 characters) is out of "),
    (["data.tokens=99999999999999", "--dry-run"], {}, "data.tokens=99999999999999 needs about 5,960,464 GiB of "
                                                      "host memory to generate, this node has "),
    (["workload.name=regression", "data.samples=99999999999999", "--dry-run"], {}, "data.samples=99999999999999 "
                                                                                    "needs about"),
    ([], {"RANK": "0"}, "torchrun: WORLD_SIZE is not set; example: WORLD_SIZE=2"),
    ([], {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_PORT": "29500"}, "MASTER_ADDR is not set"),
    ([], {"RANK": "3", "WORLD_SIZE": "2", "LOCAL_RANK": "0"}, "rank 3 is not below world size 2"),
    ([], {"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "x"}, "SLURM_STEP_NUM_TASKS='x' is not an integer"),
    ([], {"PMI_RANK": "0", "PMI_SIZE": "2", "PMI_LOCAL_RANK": "0"}, "neither MASTER_ADDR nor PBS_NODEFILE is set"),
]


@pytest.mark.parametrize(
    ("args", "env", "expected"), BAD_INPUTS, ids=[" ".join(a) or ",".join(e) for a, e, _ in BAD_INPUTS]
)
def test_bad_input_gives_one_line_with_the_fix_and_exit_code_2(tmp_path, args, env, expected):
    # (/proc refuses file creation even to root, so the unwritable-directory case holds in CI too.)
    if env.get("PYTHONPATH") == "{hide}":  # an installation without the optional package
        hidden = tmp_path / "hide"
        hidden.mkdir()
        (hidden / "tensorboard.py").write_text("raise ImportError('hidden by the test')\n")
        env = {"PYTHONPATH": f"{hidden}:{REPO}"}
    result = run(train_command(f"run.dir={tmp_path / 'run'}", *args), env=clean_env(**env), timeout=60,
                 cwd="/")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(error_lines) == 1, result.stderr
    assert expected in error_lines[0]


@pytest.mark.parametrize(("text", "expected"), [
    ("train: " + "[" * 5000 + "]" * 5000, "nests values more than 32 levels deep (line 1)"),
    ("train: " + "{a: " * 5000 + "1" + "}" * 5000, "nests values more than 32 levels deep (line 1)"),
    ("train: {batch_size: " + "7" * 5001 + "}", "holds a value that cannot be read (Exceeds the limit (4300 digits)"),
    ("dist: {timeout_s: .inf}", "dist.timeout_s=inf is not a finite number"),
], ids=["flow-lists", "flow-mappings", "5001-digits", "inf"])
def test_a_hostile_config_file_ends_in_one_line_and_exit_2(tmp_path, text, expected):
    config = tmp_path / "hostile.yaml"
    config.write_text(text + "\n")
    result = run(train_command(f"run.dir={tmp_path / 'run'}", "--config", str(config)), env=clean_env(), timeout=60)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("error: ")] == [
        line for line in result.stderr.splitlines() if expected in line], result.stderr


def test_a_malformed_yaml_file_is_reported_with_its_line(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("train:\n  batch_size: 8\n   epochs: [\n")
    result = run(train_command("--config", str(config)), timeout=60)
    assert result.returncode == 2
    assert f"config file '{config}' is not valid YAML at line" in result.stderr


def test_an_unknown_key_in_a_yaml_file_names_the_file(tmp_path):
    config = tmp_path / "mine.yaml"
    config.write_text("train:\n  batchsize: 8\n")
    result = run(train_command("--config", str(config)), timeout=60)
    assert result.returncode == 2
    assert f"error: config file {config}: unknown config key 'train.batchsize'; did you mean train.batch_size?" \
        in result.stderr


def test_help_lists_the_keys():
    result = run(train_command("--help"), timeout=60)
    assert result.returncode == 0
    assert "snapshot.every = 100" in result.stdout


def test_resume_never_refuses_a_directory_that_holds_another_runs_snapshots(tmp_path):
    run_dir = tmp_path / "run"
    first = run(train_command("--config", "demo", f"run.dir={run_dir}", "train.max_steps=10"), timeout=120)
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in (run_dir / "snapshots").iterdir()}
    again = run(train_command("--config", "demo", f"run.dir={run_dir}", "train.max_steps=20", "snapshot.resume=never"),
                timeout=120)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert "snapshot.resume=never but" in again.stderr and "step-00000010.pt" in again.stderr
    assert {p.name: p.read_bytes() for p in (run_dir / "snapshots").iterdir()} == before
    fresh = run(train_command("--config", "demo", f"run.dir={tmp_path / 'new'}", "train.max_steps=5",
                              "snapshot.resume=never"), timeout=120)
    assert fresh.returncode == 0, fresh.stderr


def test_a_file_named_like_a_shipped_config_in_the_working_directory_does_not_replace_it(tmp_path, monkeypatch):
    """The job scripts pass CONFIG=demo from the submit directory, which others may write: a bare name is always
    the shipped config; only a path (with a `/`, or ending .yaml) reads a file."""
    from app.train.cli import CONFIG_DIR, resolve_config_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").write_text("run:\n  dir: /tmp/elsewhere\n")
    assert resolve_config_path("demo") == str(CONFIG_DIR / "demo.yaml")
    assert resolve_config_path("./demo") == "./demo"
    (tmp_path / "mine.yaml").write_text("run:\n  dir: runs/mine\n")
    assert resolve_config_path("mine.yaml") == "mine.yaml"
