"""bench/gpu_train.py's hand loop on the CPU: its DDP forms change the cost of a step, never the model."""

from __future__ import annotations

import pytest

from bench.gpu_train import HandLoop, hand_loop


def test_the_hand_loops_three_forms_train_the_same_model():
    losses = {name: hand_loop("tiny", 2, 3, 1, HandLoop.named(name, compile=False))["loss"]
              for name in ("plain", "ddp", "ddp-stats")}
    assert losses["plain"] == losses["ddp"] == losses["ddp-stats"], losses


@pytest.mark.parametrize(("name", "ddp", "stats"), [("plain", False, False), ("ddp", True, False),
                                                    ("ddp-stats", True, True)])
def test_each_form_is_named_as_the_command_line_names_it(name, ddp, stats):
    loop = HandLoop.named(name)
    assert (loop.ddp, loop.stats, loop.name) == (ddp, stats, name)
