"""Config precedence and typing (the loader itself; the trainer's CLI cases are in test_train_cli.py)."""

from __future__ import annotations

import pytest

from app.common.typedconfig import describe, load_config
from app.host.common.errors import UsageError
from app.train.config import Config
from tests.bounded import within


def test_command_line_beats_yaml_beats_defaults(tmp_path):
    file = tmp_path / "c.yaml"
    file.write_text("train: {batch_size: 8, epochs: 3}\noptim: {lr: 0.01}\n")
    config = load_config(Config, str(file), ["train.batch_size=4"])
    assert config.train.batch_size == 4  # command line
    assert config.train.epochs == 3  # YAML
    assert config.train.grad_accum == 1  # default
    assert config.optim.lr == 0.01


@pytest.mark.parametrize(
    ("override", "key", "value"),
    [
        ("run.breakdown=yes", ("run", "breakdown"), True),
        ("run.breakdown=false", ("run", "breakdown"), False),
        ("optim.lr=3e-4", ("optim", "lr"), 3e-4),
        ("data.tokens=1_000", ("data", "tokens"), 1000),
        ("optim.name=sgd", ("optim", "name"), "sgd"),
    ],
)
def test_command_line_values_are_parsed_by_the_field_type(override, key, value):
    config = load_config(Config, None, [override])
    assert getattr(getattr(config, key[0]), key[1]) == value


def test_yaml_integers_are_accepted_for_floats_but_strings_are_not(tmp_path):
    file = tmp_path / "c.yaml"
    file.write_text("optim: {lr: 1}\n")
    assert load_config(Config, str(file), []).optim.lr == 1.0
    file.write_text("optim: {lr: 'fast'}\n")
    with pytest.raises(UsageError, match=r"optim.lr='fast' is not a number; example line: 'optim: \{lr: 0.001\}'"):
        load_config(Config, str(file), [])


def test_a_yaml_section_given_as_a_value_is_rejected(tmp_path):
    file = tmp_path / "c.yaml"
    file.write_text("train: 5\n")
    with pytest.raises(UsageError, match="train must be a section"):
        load_config(Config, str(file), [])


def test_help_lists_every_key_with_its_default_and_documentation():
    lines = "\n".join(describe(Config))
    assert "train.batch_size = 16" in lines
    assert "Samples per rank per micro-batch" in lines
    assert "snapshot.keep = 3" in lines


@pytest.mark.parametrize(("text", "key", "lines"), [
    ("optim:\n  lr: 0.003\n  lr: 0.1\n", "'lr'", "lines 2 and 3"),
    ("optim:\n  lr: 0.003\ntrain:\n  batch_size: 4\noptim:\n  lr: 0.1\n", "'optim'", "lines 1 and 5"),
])
def test_a_key_or_section_given_twice_in_a_yaml_file_is_refused_not_silently_overwritten(tmp_path, text, key, lines):
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    with pytest.raises(UsageError, match=f"gives {key} twice \\({lines}\\)"):
        load_config(Config, str(path), [])


def alias_bomb(levels: int) -> str:
    """A few hundred bytes of YAML whose value, written out, is 9**levels items (a "billion laughs")."""
    lists = ["&l0 [x, x, x, x, x, x, x, x, x]"] + [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return f"train:\n  batch_size: [{', '.join(lists)}]\n"


@pytest.mark.parametrize("text", [alias_bomb(6), alias_bomb(9), f"train:\n  batch_size: {'9x' * 50_000}\n"],
                         ids=["aliases", "aliases-387M-items", "long"])
def test_a_wrong_value_is_named_in_a_short_line_however_large_it_is(tmp_path, text):
    path = tmp_path / "large.yaml"
    path.write_text(text)
    with within(5), pytest.raises(UsageError) as refused:
        load_config(Config, str(path), [])
    message = str(refused.value)
    assert "train.batch_size" in message and "\n" not in message and len(message) < 400, len(message)


def test_a_config_file_over_the_size_limit_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("train:\n  batch_size: 4\n" + "# padding\n" * 200_000)
    with pytest.raises(UsageError, match=r"huge.yaml' is larger than 1 MiB; a config holds a few sections"):
        load_config(Config, str(path), [])


def test_a_list_given_as_a_key_is_a_yaml_error_with_its_line(tmp_path):
    path = tmp_path / "key.yaml"
    path.write_text("train:\n  ? [batch_size]\n  : 4\n")
    with pytest.raises(UsageError, match=r"key.yaml' is not valid YAML at line 2"):
        load_config(Config, str(path), [])


# Hostile files: each ends in one line, not a RecursionError, a ValueError or an OverflowError in every rank.
HOSTILE_FILES = [
    ("train: " + "[" * 5000 + "]" * 5000 + "\n", "nests values more than 32 levels deep (line 1)"),
    ("train: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", "nests values more than 32 levels deep (line 1)"),
    ("train:\n  batch_size: " + "7" * 5001 + "\n", "holds a value that cannot be read (Exceeds the limit"),
    ("train:\n  batch_size: " + "7" * 400 + "\n", "train.batch_size=1329-bit integer is out of range"),
    ("workload:\n  name: 2024-13-45\n", "holds a value that cannot be read (month must be in 1..12)"),
    ("dist:\n  timeout_s: .inf\n",
     "dist.timeout_s=inf is not a finite number; example line: 'dist: {timeout_s: 0.001}'"),
    ("dist:\n  timeout_s: 1.0e+400\n", "dist.timeout_s=inf is not a finite number"),
    ("optim:\n  grad_clip: .nan\n", "optim.grad_clip=nan is not a finite number"),
    ("dist:\n  timeout_s: " + "9" * 400 + "\n", "dist.timeout_s="),
]


@pytest.mark.parametrize(("text", "expected"), HOSTILE_FILES, ids=[e for _, e in HOSTILE_FILES])
def test_a_hostile_config_file_is_one_line_naming_what_is_wrong(tmp_path, text, expected):
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    with within(10), pytest.raises(UsageError) as caught:
        load_config(Config, str(path), [])
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400
    assert expected in str(caught.value)


HOSTILE_OVERRIDES = [
    ("dist.timeout_s=inf", "dist.timeout_s=inf is not a finite number"),
    ("dist.timeout_s=-inf", "dist.timeout_s=-inf is not a finite number"),
    ("optim.lr=nan", "optim.lr=nan is not a finite number"),
    ("dist.hang_timeout_s=1e999", "dist.hang_timeout_s=1e999 is not a finite number"),
    ("train.batch_size=" + "9" * 5001, "train.batch_size=99999999999999999999... (5001 characters) is out of range"),
    ("run.seed=" + "9" * 30, "is out of range"),
    ("data.tokens=" + "1" * 41, "is out of range"),
]


@pytest.mark.parametrize(("override", "expected"), HOSTILE_OVERRIDES, ids=[o[:40] for o, _ in HOSTILE_OVERRIDES])
def test_a_hostile_override_is_one_line_naming_what_is_wrong(override, expected):
    with within(10), pytest.raises(UsageError) as caught:
        load_config(Config, None, [override])
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400
    assert expected in str(caught.value)


def test_the_shipped_depth_and_numbers_still_load(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("train: {batch_size: 9223372036854775807}\ndist: {timeout_s: 1.0e+300}\nrun: {seed: -5}\n")
    config = load_config(Config, str(path), ["optim.lr=1e-3"])
    assert (config.train.batch_size, config.dist.timeout_s, config.run.seed) == (2**63 - 1, 1e300, -5)
