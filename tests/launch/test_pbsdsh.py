"""app/launch/pbsdsh.py in-process: the environment file a TM task sources, the exit codes it leaves, the output
copied a line at a time. The fan-out itself, through a pbsdsh that behaves as OpenPBS's: tests/jobscripts/
test_jobscripts_pbs.py and the emulated PBS job there."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from app.launch import pbsdsh


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
