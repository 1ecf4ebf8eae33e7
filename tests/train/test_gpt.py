"""The GPT workload: presets, token stream, token files."""

from __future__ import annotations

import pytest
import torch

from app.common.typedconfig import load_config
from app.host.common.errors import UsageError
from app.train.config import Config
from app.train.workloads import build_workload
from app.train.workloads.gpt import GPT, PRESETS
from app.train.workloads.tokens import SEPARATOR, TokenWindows, load_token_file, synthetic_token_stream


@pytest.mark.parametrize(("size", "millions"), [("gpt2", 124.5), ("gpt2-medium", 354.9)])
def test_presets_have_the_gpt2_parameter_counts(size, millions):
    with torch.device("meta"):
        model = GPT(PRESETS[size])
    assert model.num_parameters(non_embedding=False) / 1e6 == pytest.approx(millions, abs=0.1)


def test_the_model_predicts_a_distribution_over_the_vocabulary_per_position():
    model = GPT(PRESETS["tiny"])
    logits = model(torch.randint(0, 512, (3, 64)))
    assert logits.shape == (3, 64, 512)


def test_the_generated_stream_is_the_same_for_the_same_seed_and_has_words():
    first, again, other = (synthetic_token_stream(50_000, 512, seed) for seed in (1, 1, 2))
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert len(first) == 50_000 and int(first.max()) < 512
    assert 0.1 < float((first == SEPARATOR).float().mean()) < 0.5  # words of 1-6 tokens between separators


def test_windows_shift_targets_by_one_token():
    stream = torch.arange(100, dtype=torch.int32)
    inputs, targets = TokenWindows(stream, block_size=8).get_batch(torch.tensor([0, 3]))
    assert inputs[1].tolist() == list(range(24, 32)) and targets[1].tolist() == list(range(25, 33))


def test_a_nanogpt_token_file_is_memory_mapped(tmp_path):
    path = tmp_path / "train.bin"
    path.write_bytes(torch.arange(1000, dtype=torch.int16).numpy().tobytes())
    stream = load_token_file(path, vocab_size=1000)
    inputs, targets = TokenWindows(stream, block_size=8).get_batch(torch.tensor([2]))
    assert inputs.tolist() == [list(range(16, 24))] and targets.dtype == torch.int64
    with pytest.raises(UsageError, match=r"holds token id 999 but model\.vocab_size=500"):
        load_token_file(path, vocab_size=500)


def test_a_stream_shorter_than_one_window_is_refused_with_a_size_that_works():
    config = load_config(Config, None, ["data.tokens=10"])
    with pytest.raises(UsageError, match=r"data.tokens=10 is shorter than one window"):
        build_workload(config)
