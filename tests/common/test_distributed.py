"""Process-group start and teardown helpers that need no peers."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pytest
import torch.distributed as dist

from app.common.cluster import detect_environment
from app.common.distributed import open_store
from app.common.signed_store import StoreTampered
from app.host.common.errors import RendezvousError
from tests.trainer_runs import REPO, clean_env, free_port

#: Output to buffered (piped) stdout, a log record and an exit code: what end_process must not lose.
ENDS_WITH_75 = """
import logging, sys
from app.common.distributed import end_process
logging.basicConfig(stream=sys.stderr, level=logging.INFO)
print("summary line", end="")
logging.getLogger("t").info("log record")
end_process(75)
print("never printed")
"""


@pytest.mark.slow  # an interpreter importing torch
def test_end_process_keeps_buffered_output_and_reports_the_exit_code():
    env = clean_env()
    env.pop("PYTHONUNBUFFERED")  # piped stdout is block-buffered: os._exit alone would drop it
    done = subprocess.run([sys.executable, "-c", ENDS_WITH_75], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 75
    assert done.stdout == "summary line"
    assert "log record" in done.stderr


def test_a_process_without_the_secret_that_rewrites_the_projects_keys_by_their_listed_names_is_refused():
    """Another user who knows the store's address (job ids, nodes and ports are public) connects to it (TCPStore
    has no authentication), lists its keys and rewrites the one the ranks read: the secret is in no key name, and
    the rank refuses the value instead of acting on it."""
    port = free_port()
    server = dist.TCPStore("127.0.0.1", port, is_master=True, wait_for_workers=False)
    secret = "0123456789abcdef0123456789abcdef"
    env = {"SLURM_PROCID": "1", "SLURM_LOCALID": "1", "SLURM_STEP_NUM_TASKS": "2", "SLURM_JOB_ID": "4242",
           "SLURM_STEP_NODELIST": "localhost", "SLURM_STEP_TASKS_PER_NODE": "2", "SLURM_NODEID": "0",
           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
           "DDP_STORE_SECRET": secret}
    store = open_store(detect_environment(env), timeout_s=10)
    store.set("app.check/plan", "real")
    other = dist.TCPStore("127.0.0.1", port, is_master=False)
    listed = other.list_keys()
    assert not [key for key in listed if secret in key], listed
    other.set(next(key for key in listed if key.endswith("plan")), "forged")
    with pytest.raises(StoreTampered):
        store.get("app.check/plan")
    del server


def _torchrun_rank_0_serving_its_own_store(port: int) -> dict[str, str]:
    """What torchrun's agent gives rank 0 when it does not share its store (TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1):
    MASTER_PORT is a port torch found free on this host (`get_free_port`) and serves nothing on."""
    return {"TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_USE_AGENT_STORE": "False", "RANK": "0",
            "LOCAL_RANK": "0", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0",
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "DDP_STORE_SECRET": "0123456789abcdef" * 2}


def test_rank_0_of_a_torchrun_that_shares_no_store_serves_it_on_the_port_torch_found_free():
    """MASTER_PORT is the port torch checked; the one beside it was checked by nobody and was taken in CI."""
    port = free_port()
    store = open_store(detect_environment(_torchrun_rank_0_serving_its_own_store(port)), timeout_s=10)
    store.set("app.check/plan", "real")
    client = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=5))
    assert any(key.endswith("app.check/plan") for key in client.list_keys())


def test_a_store_port_another_process_holds_is_named_with_a_remedy():
    port = free_port()
    other = dist.TCPStore("127.0.0.1", port, is_master=True, wait_for_workers=False)
    with pytest.raises(RendezvousError) as refused:
        open_store(detect_environment(_torchrun_rank_0_serving_its_own_store(port)), timeout_s=5)
    said = str(refused.value)
    assert f"another process on this host already listens on port {port}" in said, said
    assert "MASTER_PORT=29517" in said and "\n" not in said
    del other
