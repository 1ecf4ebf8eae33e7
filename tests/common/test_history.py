"""history.jsonl's one writer (app.host.common.history): the count the job scripts' requeue limit reads."""

from __future__ import annotations

import json
import os

from app.host.common import history
from app.host.common.history import append_attempt, main, requeues_in_a_row
from tests.bounded import within


def test_requeues_are_counted_whatever_the_spacing_and_a_torn_last_line_is_skipped(tmp_path, capsys):
    (tmp_path / "history.jsonl").write_text(
        '{"attempt":1,"start_step":0}\n{"event":"requeue"}\n'  # compact, as jq -c or another writer leaves it
        '{"attempt": 2, "start_step": 40}\n{"event": "requeue"}\n{"event": "requeue"}\n{"event": "req')
    assert requeues_in_a_row(tmp_path) == 2
    assert main(["requeues-in-a-row", str(tmp_path)]) == 0 and capsys.readouterr().out == "2\n"


def test_a_run_without_history_has_no_requeues(tmp_path):
    assert requeues_in_a_row(tmp_path) == 0


def test_a_line_that_is_not_utf8_is_skipped_by_the_bad_node_requeues_count_and_the_trainers_start(tmp_path, capsys):
    """A damaged byte (a disk error, another writer's encoding) costs that line, not the job script's requeue
    and not the trainer's start."""
    (tmp_path / "history.jsonl").write_bytes(
        b'{"attempt": 1, "start_step": 0}\n{"event": "requeue", "reason": "caf\xe9"}\n{"event": "requeue"}\n')
    assert main(["requeues-in-a-row", str(tmp_path)]) == 0 and capsys.readouterr().out == "1\n"
    entry = append_attempt(tmp_path, start_step=0, hosts=["node1"], launcher="torchrun", env={})
    assert entry["attempt"] == 2 and entry["previous_attempt"] == "requeue: "


def test_a_line_appended_after_a_line_cut_short_is_a_line_of_its_own(tmp_path):
    """A crash mid-write leaves no newline at the end: the next line (a requeue, the next attempt) must not be
    glued to the cut one and lost with it."""
    (tmp_path / "history.jsonl").write_text('{"attempt": 1, "start_step": 0}\n{"event": "req')
    assert main(["event", str(tmp_path), "requeue", "preflight: node2 slow", "--excluded", "node2"]) == 0
    assert requeues_in_a_row(tmp_path) == 1
    entry = append_attempt(tmp_path, start_step=0, hosts=["node1"], launcher="torchrun", env={})
    assert entry["attempt"] == 2 and entry["previous_attempt"] == "requeue: preflight: node2 slow"
    assert (tmp_path / "history.jsonl").read_text().splitlines()[-1] == json.dumps(entry)


def test_a_history_that_is_a_fifo_is_refused_in_one_line_not_waited_on(tmp_path, capsys):
    """Someone who can write the run directory could leave a FIFO there: the bad-node requeue must not wait on it."""
    os.mkfifo(tmp_path / "history.jsonl")
    with within(5):
        assert main(["requeues-in-a-row", str(tmp_path)]) == 2
        assert main(["event", str(tmp_path), "requeue", "slow", "--excluded", "node2"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all("history.jsonl" in line and "a FIFO" in line for line in errors), errors


def test_an_attempt_records_the_registry_digest_of_the_image_it_runs(tmp_path, monkeypatch):
    digest = "sha256:" + "cd" * 32
    pulled = {"image": f"/u/build/images/sha256-{'cd' * 32}.sif", "digest": digest,
              "pull": "oras://registry.example.org/group/app:0.1.0-aarch64@" + digest, "labels": {}}
    monkeypatch.setattr(history, "image_provenance", lambda: pulled)
    entry = history.append_attempt(tmp_path, start_step=0, hosts=["n1"], launcher="torchrun", env={})
    written = json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])
    assert (entry["image_digest"], written["image_digest"]) == (digest, digest)
    assert written["image_pull"] == pulled["pull"]


def test_an_attempt_records_the_sha256_of_the_local_image_it_runs(tmp_path, monkeypatch):
    sha256 = "sha256:" + "ef" * 32
    local = {"image": "/u/ddp/app.sif", "sha256": sha256, "labels": {}}
    monkeypatch.setattr(history, "image_provenance", lambda: local)
    history.append_attempt(tmp_path, start_step=0, hosts=["n1"], launcher="torchrun", env={})
    written = json.loads((tmp_path / "history.jsonl").read_text().splitlines()[-1])
    assert (written["image"], written["image_sha256"], written["image_digest"]) == ("/u/ddp/app.sif", sha256, None)
