"""The common watchdog in a simulated world of 64 ranks on one real TCPStore (bench/watchdog_scale.py): every
rank names the frozen one, for a verdict that costs O(N) store requests."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.watchdog_scale import simulate

pytestmark = pytest.mark.slow  # processes of simulated ranks, a real deadline to wait out


def test_in_a_world_of_64_on_a_real_tcpstore_every_rank_names_the_frozen_one_for_o_n_requests():
    outcome = simulate(64, frozen=37, deadline_s=2.0, interval_s=0.25)
    assert outcome.named == Counter({"37": 63}) and outcome.reporters == 1
    assert outcome.verdict_requests <= 12 * 64  # O(N): each rank a handful of requests, the judge two reads
    assert max(outcome.ended_after_s) < 2.0 + 12 * 0.25  # the deadline plus a few beats
