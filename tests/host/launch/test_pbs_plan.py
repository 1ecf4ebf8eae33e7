"""app.launch's PBS plan: the node file read (pbs_nodes), WORKLOAD's words (words) and the launchers (pbs_launch);
the PBS job that asks for them: tests/host/launch/test_pbs_job.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch import pbs_nodes
from app.host.launch.pbs_launch import pbs_launch
from app.host.launch.words import split_words

REPO = Path(__file__).resolve().parents[3]

#: A node file as PBS Pro writes it for `-l select=2:ncpus=288:ngpus=4:mpiprocs=4` (PBS Professional User's Guide,
#: "The Job's Node File": one line per MPI process, the mother superior's first).
NODE_FILE = "x1000c0s0b0n0.hsn.example.org\n" * 4 + "x1000c0s1b0n0.hsn.example.org\n" * 4


def test_the_node_file_gives_each_node_once_in_its_order_with_its_first_line():
    found = pbs_nodes.read_node_file(NODE_FILE)
    assert found.nodes == ["x1000c0s0b0n0.hsn.example.org", "x1000c0s1b0n0.hsn.example.org"]
    assert found.first_lines == [0, 4]


def test_blank_lines_and_trailing_words_of_a_node_file_are_no_nodes():
    found = pbs_nodes.read_node_file("n1\n\n  \nn2 extra\nn1\nn3\n")
    assert found.nodes == ["n1", "n2", "n3"] and found.first_lines == [0, 1, 3]


def getent_on_path(monkeypatch, tmp_path: Path, unknown: str) -> Path:
    """A `getent hosts NAME...` that exits 2 when one name contains UNKNOWN (getent(1)), recording each call."""
    calls = tmp_path / "getent-calls"
    (tmp_path / "getent").write_text(f'#!/bin/sh\nshift; echo "$*" >>"{calls}"\n'
                                     f'for n; do case $n in *{unknown}*) exit 2;; esac; done\n')
    (tmp_path / "getent").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    return calls


def test_names_that_all_resolve_cost_two_look_ups(monkeypatch, tmp_path):
    calls = getent_on_path(monkeypatch, tmp_path, "typo")
    nodes = [f"n{i}" for i in range(1024)]
    assert pbs_nodes.unknown_names(nodes) == []
    assert calls.read_text().splitlines() == ["n0", " ".join(nodes)]


def test_an_unresolved_head_stops_after_one_look_up(monkeypatch, tmp_path):
    calls = getent_on_path(monkeypatch, tmp_path, "invalid")
    assert pbs_nodes.unknown_names(["n1.invalid", "n2.invalid"]) == ["n1.invalid"]
    assert calls.read_text().splitlines() == ["n1.invalid"]


def test_at_most_four_unresolved_names_are_looked_up_to_be_named(monkeypatch, tmp_path):
    calls = getent_on_path(monkeypatch, tmp_path, "typo")
    nodes = ["n0"] + [f"n{i}.typo" for i in range(1, 9)] + ["n9"]
    assert pbs_nodes.unknown_names(nodes) == ["n1.typo", "n2.typo", "n3.typo", "n4.typo"]
    assert len(calls.read_text().splitlines()) == 2 + 4


def test_a_node_file_naming_an_unknown_host_gets_the_fix(monkeypatch, tmp_path):
    getent_on_path(monkeypatch, tmp_path, "typo")
    (tmp_path / "nodefile").write_text("n1\nn2.typo\n")
    with pytest.raises(UsageError) as raised:
        pbs_nodes.job_nodes(str(tmp_path / "nodefile"))
    assert str(raised.value) == (
        f"PBS_NODEFILE={tmp_path}/nodefile lists names no host answers to (getent hosts finds none): n2.typo; PBS "
        "writes the job's own nodes there: submit with qsub and leave PBS_NODEFILE as PBS sets it, or give a file "
        "of names that resolve on the nodes (check one: getent hosts n2.typo)")


@pytest.mark.parametrize(("text", "cause"), [("\n\n", "is empty; is this a PBS job?"), (None, "cannot be read")])
def test_an_empty_or_missing_node_file_is_named(tmp_path, text, cause):
    if text is not None:
        (tmp_path / "nodefile").write_text(text)
    with pytest.raises(UsageError) as raised:
        pbs_nodes.job_nodes(str(tmp_path / "nodefile"))
    assert f"PBS_NODEFILE={tmp_path}/nodefile {cause}" in str(raised.value)


@pytest.mark.parametrize(("text", "words"), [
    ("check", ["check"]),
    ("multinode.py 50 10", ["multinode.py", "50", "10"]),
    ("train.py --name 'a b' *", ["train.py", "--name", "a b", "*"]),
    ('train.py --name "a b" $HOME `id` $(id)', ["train.py", "--name", "a b", "$HOME", "`id`", "$(id)"]),
    (r"a\ b c\'d", ["a b", "c'd"]),
    ("  -m  my_pkg.train\n--epochs 5 ", ["-m", "my_pkg.train", "--epochs", "5"]),
    ("train ''", ["train", ""]),
])
def test_workload_words_group_as_a_command_line_does_and_expand_nothing(text, words):
    assert split_words("WORKLOAD", text) == words


@pytest.mark.parametrize("text", ["train.py --name 'a b", 'train.py "a', "train.py a\\"])
def test_unbalanced_quotes_stop_with_one_line_and_an_example(text):
    with pytest.raises(UsageError) as raised:
        split_words("WORKLOAD", text)
    message = str(raised.value)
    assert message.startswith(f"WORKLOAD={text}: ") and "\n" not in message
    assert message.endswith("quote each argument once, example: WORKLOAD=\"train.py --name 'a b'\"")


#: The command that runs a command once on every node through pbsdsh (the PBS job passes this checkout's
#: `python3 -m app.launch pbsdsh-run ... --`: tests/host/launch/test_pbs_job.py)
PBSDSH = ["python3", "-m", "app.launch", "pbsdsh-run", "--run-dir=/r", "--job-id=7.pbs", "--nodefile=/n", "--"]


@pytest.mark.parametrize(("launcher", "kind", "expected"), [
    ("", "train", ("torchrun", ["mpiexec", "-n", "16", "--ppn", "1", "--cpu-bind", "none"],
                   ["mpiexec", "-n", "16", "--ppn", "1", "--cpu-bind", "none"])),
    ("pbsdsh", "check", ("torchrun", PBSDSH, PBSDSH)),
    ("mpiexec", "nccl-tests", ("mpi", ["mpiexec", "-n", "16", "--ppn", "1", "--cpu-bind", "none"],
                               ["mpiexec", "-n", "64", "--ppn", "4", "--pmi=pmix", "--cpu-bind", "none"])),
])
def test_the_launchers_are_one_process_per_node_or_one_mpi_rank_per_gpu(launcher, kind, expected):
    assert tuple(pbs_launch(launcher, kind, 16, 4, PBSDSH)) == expected


def test_nccl_tests_through_pbsdsh_say_how_to_run_them_on_one_node():
    with pytest.raises(UsageError) as raised:
        pbs_launch("pbsdsh", "nccl-tests", 2, 4)
    assert "LAUNCHER=pbsdsh (TM tasks) serves none; use LAUNCHER=mpiexec" in str(raised.value)
    assert "mpirun --oversubscribe --host localhost -np 4 all_reduce_perf" in str(raised.value)


def test_a_launcher_pbs_does_not_have_is_named_with_an_example():
    with pytest.raises(UsageError) as raised:
        pbs_launch("srun", "train", 2, 4)
    assert str(raised.value) == "LAUNCHER=srun is not mpiexec or pbsdsh; example: LAUNCHER=mpiexec"
