"""The control plane in a simulated world of 64 ranks on one real TCPStore (bench/control_plane.py): the
start-up agreement, the check's exchanges and the watchdog's verdicts, with their store requests counted.

The simulation runs as its own command (`python -m bench.control_plane`), which gives itself a private resolver
where it can (each TCPStore connection looks up its peer's name; this machine's resolver is slow)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.trainer_runs import REPO

pytestmark = pytest.mark.slow  # processes of simulated ranks, real deadlines to wait out

RANKS, DEADLINE_S, INTERVAL_S = 64, 4.0, 0.4


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("control-plane") / "world.json"
    subprocess.run([sys.executable, "-m", "bench.control_plane", "--ranks", str(RANKS), "--deadline", str(DEADLINE_S),
                    "--interval", str(INTERVAL_S), "--ranks-per-process", "32", "--steady", "2",
                    "--json", str(out)], cwd=REPO, timeout=240, check=False)
    (only,) = json.loads(out.read_text())
    return {phase["name"]: phase for phase in only["phases"]}


@pytest.mark.parametrize("fault", ["frozen", "slow-node", "node-gone"])
def test_every_live_rank_hears_the_verdict_name_the_faulty_ranks_within_the_deadline_plus_10s(world, fault):
    phase = world[fault]
    assert phase["ok"], phase  # every live rank heard the expected ranks named, nobody else, in time
    assert phase["verdict_s"] <= DEADLINE_S + 10


def test_a_slow_node_is_not_named_beside_the_frozen_rank(world):
    assert world["slow-node"]["named"].split(" ")[0] == world["slow-node"]["expected"], world["slow-node"]


@pytest.mark.parametrize("fault", ["frozen", "slow-node", "node-gone"])
def test_a_verdict_costs_o_n_store_requests(world, fault):
    assert world[fault]["requests"] <= 16 * RANKS, world[fault]  # claims, checks for the verdict, two reads
    assert world[fault]["busiest_rank"] <= 64, world[fault]  # the judge: a few batched reads, not one per rank


def test_the_start_up_agreement_costs_a_few_requests_a_rank(world):
    assert world["agreement"]["ok"] and world["agreement"]["requests"] <= 6 * RANKS


def test_the_checks_exchanges_pass_in_o_n_requests_and_bytes(world):
    check = world["check"]
    assert check["ok"], check
    assert check["busiest_rank"] <= 60, check  # rank 0: batched polls and reads, not a request per rank per poll
    # a node report and a result a rank, each O(1): about 8.2 kB a rank with the node checks of /dev/shm, locked
    # memory, Fabric Manager and the driver against the image's CUDA
    assert check["payload_bytes"] <= 10_000 * RANKS, check
