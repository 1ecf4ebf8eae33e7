"""app/host/launch/pbsdsh.py in-process: the environment file a TM task sources, the exit codes it leaves, the output
copied a line at a time; `python3 -m app.launch pbsdsh-run` (the pbsdsh launcher) with a local pbsdsh: its exit
code and RUN_DIR's privacy. The fan-out through a pbsdsh that behaves as OpenPBS's: tests/jobscripts/
test_jobscripts_pbs.py and the emulated PBS job there."""

from __future__ import annotations

import io
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.launch import pbsdsh
from tests.trainer_runs import REPO


def test_the_environment_file_gives_the_tasks_shell_every_value_as_it_was(tmp_path):
    env = {"DDP_STORE_SECRET": "0123456789abcdef", "ODD": "a'b\"c $(touch pwned) `id`\nline two *",
           "EMPTY": "", "UNICODE": "caf\u00e9", "BASH_FUNC_f%%": "() { :; }", "SHELLOPTS": "braceexpand"}
    (tmp_path / "env").write_text(pbsdsh.environment_file_text(env))
    shown = subprocess.run(["bash", "-c", '. "$1" && for n in DDP_STORE_SECRET ODD EMPTY UNICODE; do '
                            'printf "%s=%s\\0" "$n" "${!n}"; done', "task", str(tmp_path / "env")],
                           env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path, capture_output=True, timeout=30)
    assert shown.returncode == 0, shown.stderr
    assert dict(item.split("=", 1) for item in shown.stdout.decode().split("\0")[:-1]) == {
        name: value for name, value in env.items() if name in ("DDP_STORE_SECRET", "ODD", "EMPTY", "UNICODE")}
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(("text", "code"), [("0\n", 0), ("137\n", 137), ("PATH[$(touch x)]\n", -1), ("", -1),
                                            ("1234\n", -1), (None, -1)])
def test_an_exit_code_file_counts_only_when_it_holds_a_number(tmp_path, text, code):
    if text is not None:
        (tmp_path / "0.rc").write_text(text)
    assert pbsdsh.exit_code(str(tmp_path / "0.rc")) == code


def test_the_tasks_output_is_copied_a_whole_line_at_a_time(tmp_path, monkeypatch):
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
    files = [tmp_path / "0.out", tmp_path / "2.out"]
    for path in files:
        path.write_bytes(b"")
    outputs = pbsdsh.Outputs([str(path) for path in files])
    files[0].write_bytes(b"node 0 report\nnode 0 par")
    files[1].write_bytes(b"node 1 rep")
    outputs.copy()
    assert out.getvalue() == b"node 0 report\n"
    with files[1].open("ab") as more:
        more.write(b"ort\n")
    outputs.copy()
    assert out.getvalue() == b"node 0 report\nnode 1 report\n"
    outputs.copy(final=True)
    outputs.close()
    assert out.getvalue() == b"node 0 report\nnode 1 report\nnode 0 par"


@pytest.mark.parametrize(("items", "shown"), [(["0", "4"], "0 4"), ([str(i) for i in range(10)],
                                                                     "0 1 2 3 4 5 6 7 ... (10 in all)")])
def test_long_lists_show_the_first_few_and_the_count(items, shown):
    assert pbsdsh.first_few(items, 8) == shown


def test_without_pbsdsh_in_path_the_launcher_says_what_to_use_instead(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pbsdsh.UsageError) as raised:
        pbsdsh.run_on_each_node(print, print, ["true"], str(tmp_path), "7.pbs", str(tmp_path / "nodefile"), "/")
    assert "pbsdsh is not in PATH" in str(raised.value) and "LAUNCHER=mpiexec" in str(raised.value)
    assert list(Path(tmp_path).iterdir()) == []


def pbsdsh_run(tmp_path: Path, run_dir: Path, *command: str) -> subprocess.CompletedProcess:
    """`python3 -m app.launch pbsdsh-run` as the pbs-launch answer runs it, for a node file of two nodes (four
    lines each), with a `pbsdsh -n INDEX -- PROGRAM...` that records INDEX and runs PROGRAM here as that node's TM
    task would (PBS_NODENUM: the node's index)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "pbsdsh").write_text(f'#!/bin/sh\necho "$2" >>"{tmp_path}/pbsdsh-calls"\nnode=$(($2 / 4))\nshift 3\n'
                                    'PBS_NODENUM=$node exec "$@"\n')
    (bin_dir / "pbsdsh").chmod(0o755)
    (tmp_path / "nodefile").write_text("n0\n" * 4 + "n1\n" * 4)
    return subprocess.run([sys.executable, "-m", "app.launch", "--script=gh200-pbs.sh", "pbsdsh-run",
                           f"--run-dir={run_dir}", "--job-id=7.pbs", f"--nodefile={tmp_path}/nodefile",
                           f"--cwd={tmp_path}", "--", *command],
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(tmp_path)},
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_pbsdsh_run_exits_with_the_highest_task_exit_code_and_copies_each_node_s_lines(tmp_path):
    result = pbsdsh_run(tmp_path, tmp_path / "run", "/bin/sh", "-c",
                        'echo "node $PBS_NODENUM in $PWD"; exit $((PBS_NODENUM * 3))')
    assert result.returncode == 3, result.stderr
    assert sorted(line for line in result.stdout.splitlines() if line.startswith("node ")) == [
        f"node 0 in {tmp_path}", f"node 1 in {tmp_path}"]
    # each node's first line, once (the per-node pbsdsh run side by side: in any order)
    assert sorted((tmp_path / "pbsdsh-calls").read_text().splitlines()) == ["0", "4"]
    # RUN_DIR made yours alone; the step's environment file (secrets) gone with its private directory
    assert stat.S_IMODE((tmp_path / "run").stat().st_mode) == 0o700
    assert list((tmp_path / "run").iterdir()) == []


def test_pbsdsh_run_hands_no_environment_to_a_run_dir_others_can_write(tmp_path):
    (tmp_path / "run").mkdir(mode=0o777)
    (tmp_path / "run").chmod(0o777)
    result = pbsdsh_run(tmp_path, tmp_path / "run", "true")
    assert result.returncode == 2 and not (tmp_path / "pbsdsh-calls").exists()
    assert result.stderr.splitlines() == [
        f"gh200-pbs.sh: error: RUN_DIR='{tmp_path}/run' is writable by other users (mode 0777), who could plant "
        f"snapshots or a stop file in it (if it holds only your files: chmod go-w {tmp_path}/run); give a directory "
        "of your own, example: RUN_DIR=$HOME/runs/exp1 (a directory an experiment: a job resumes from what it finds "
        "there)"]
    assert list((tmp_path / "run").iterdir()) == []


@pytest.mark.parametrize(("report", "returncode", "code"), [
    ("", 0, 0),  # pbsdsh prints nothing of a task that succeeded
    ("pbsdsh: task 0x00000000 exit status 10\n", 0, 10),
    ("pbsdsh: task 0x00000003 exit status 271\n", 0, 143),  # 256 + SIGTERM, as a shell reports it: 128 + 15
    ("pbsdsh: spawn failed on node 1 err TM_ENOTFOUND\n", 0, -1),
    ("pbsdsh: killing task 0x00000000 signal 15\n", 1, -1),  # pbsdsh itself was signalled
])
def test_a_task_s_code_as_its_pbsdsh_tells_it(report, returncode, code):
    assert pbsdsh.reported_code(report, returncode) == code


def test_a_task_whose_code_file_does_not_show_here_takes_its_pbsdsh_s_word(tmp_path):
    """On NFS a file another node wrote may show late here; pbsdsh's report, written on this host, does not."""
    (tmp_path / "bin").mkdir()
    # Runs no task, so writes no code file: node 0's task "succeeded", node 1's "ended 7", after node 0's pbsdsh
    # ended (else the launcher ends node 0's task and waits its grace for a code file no task writes)
    (tmp_path / "bin" / "pbsdsh").write_text(
        f'#!/bin/sh\nif [ "$2" = 0 ]; then touch {tmp_path}/node0-done; exit 0; fi\n'
        f'while [ ! -e {tmp_path}/node0-done ]; do sleep 0.05; done; sleep 0.5\n'
        'echo "pbsdsh: task 0x00000000 exit status 7"\n')
    (tmp_path / "bin" / "pbsdsh").chmod(0o755)
    (tmp_path / "nodefile").write_text("n0\n" * 4 + "n1\n" * 4)
    result = subprocess.run([sys.executable, "-m", "app.launch", "--script=gh200-pbs.sh", "pbsdsh-run",
                             f"--run-dir={tmp_path}/run", "--job-id=7.pbs", f"--nodefile={tmp_path}/nodefile",
                             f"--cwd={tmp_path}", "--", "true"],
                            env={"PATH": f"{tmp_path}/bin:/usr/bin:/bin", "PYTHONPATH": str(REPO)},
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 7, result.stderr
    assert "no exit code" not in result.stderr
