"""The rendezvous store's readers on any bytes: the seal (app/common/signed_store.py) gives back only what the job
itself wrote at that key and refuses everything else as tampering, and the records behind it (the check's node
reports, plan, exit codes and results, the hang watch's heartbeats and verdicts) read any value the seal lets
through as a record or as absent, never as an error of another kind, a rank outside the world, or code run."""

from __future__ import annotations

import pytest
import torch.distributed as dist
from hypothesis import example, given
from hypothesis import strategies as st

from app.check import protocol
from app.common.signed_store import MAGIC, TAG_BYTES, SignedStore, StoreTampered, forget_tampering
from app.common.watchdog import Beat, Verdict
from tests.bounded import within
from tests.properties.strategies import SECONDS_PER_EXAMPLE, json_line, json_values, record_like

SECRET = "5e" * 16
KEY = "check/node/0"
WORLD_SIZE = 4

#: A value the job sealed at KEY, and the same value sealed at another key (what a replay moves here)
OWN = SignedStore(dist.HashStore(), SECRET).seal(KEY, b'{"facts": {}}')
MOVED = SignedStore(dist.HashStore(), SECRET).seal("check/node/1", b'{"facts": {}}')

ranks = st.integers(min_value=-2, max_value=WORLD_SIZE + 1)
beats = record_like({"count": st.integers(), "position": st.integers(), "where": st.text(), "host": st.text(),
                     "reason": st.text(), "at": st.floats()}, required=("count", "position", "where", "host"))
verdicts = record_like({"culprits": st.lists(ranks, max_size=5), "sentence": st.text(), "reporter": ranks},
                       required=("culprits", "sentence", "reporter"))
#: Bytes of any kind, the seal's prefix with a made-up tag before them, and JSON shaped like the records
raw_values = (st.binary(max_size=256)
              | st.builds(lambda tag, data: MAGIC + tag + data, st.binary(min_size=TAG_BYTES, max_size=TAG_BYTES),
                          st.binary(max_size=64)))
payloads = st.binary(max_size=256) | json_values.map(json_line) | beats.map(json_line) | verdicts.map(json_line)


@pytest.fixture(autouse=True)
def _fresh_tampering():
    """Each refusal is remembered by the process (for torch's C++ callers); the next example starts clean."""
    yield
    forget_tampering()


@given(raw_values | payloads)
@example(OWN)
@example(MOVED)
@example(MAGIC + OWN[len(MAGIC):-1])  # the job's value cut short by a byte
def test_any_bytes_at_a_sealed_key_are_the_jobs_own_value_or_refused_as_tampering(raw):
    store = SignedStore(dist.HashStore(), SECRET)
    with within(SECONDS_PER_EXAMPLE):
        try:
            data = store.open(KEY, raw)
        except StoreTampered as err:
            assert str(err).startswith("the job's rendezvous store was tampered with or is unreachable")
            assert raw != OWN
        else:
            assert store.seal(KEY, data) == raw, "a value the job did not seal at this key was let through"


@given(payloads)
def test_any_value_the_seal_lets_through_reads_as_a_record_or_as_absent(payload):
    store = SignedStore(dist.HashStore(), SECRET)
    keys = [*(protocol.node_key(r) for r in range(WORLD_SIZE)), *(protocol.result_key(r) for r in range(WORLD_SIZE)),
            protocol.PLAN, protocol.VERDICT]
    for key in keys:
        store.set(key, payload)
    with within(SECONDS_PER_EXAMPLE):
        reports = protocol.receive_node_reports(store, WORLD_SIZE)
        results = protocol.receive_all_results(store, WORLD_SIZE)
        plan = protocol.receive_plan(store, WORLD_SIZE)
        code = protocol.receive_code(store, protocol.VERDICT)
        beat = Beat.from_json(1, payload)
        verdict = Verdict.from_json(payload, WORLD_SIZE)
    assert all(r is None or isinstance(r, protocol.NodeReport) for r in reports)
    assert all(r is None or isinstance(r, protocol.RankResults) for r in results)
    assert plan is None or isinstance(plan, protocol.Plan)
    assert code is None or 0 <= code <= 255
    assert beat is None or beat.rank == 1
    if verdict is not None:  # a verdict names ranks of this world only, each once, and a reporter among them
        assert all(0 <= rank < WORLD_SIZE for rank in verdict.culprits)
        assert len(set(verdict.culprits)) == len(verdict.culprits)
        assert -1 <= verdict.reporter < WORLD_SIZE
