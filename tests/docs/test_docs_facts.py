"""Facts the README and docs/ state, held to the code that makes them true: the job scripts' knobs, the messages
the scripts print, the PBS log's name, the model presets' sizes, and no word a newcomer cannot decode."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.markdown import DOCS, REPO, documentation

JOBSCRIPTS = REPO / "jobscripts"
KNOBS_PAGE = DOCS / "knobs.md"
#: What the scripts read that is not a user's knob: the schedulers' and launchers' own variables and variables the
#: scripts only pass on or extend.
NOT_KNOBS = re.compile(r"(SLURM|SLURMD|PBS|PALS|PMIX)_.*|CUDA_VISIBLE_DEVICES|LD_LIBRARY_PATH|FI_PROVIDER")


def job_script_text() -> str:
    """The job scripts' bash, and the Python they start, which reads knobs from the environment: the job's plan
    (app/host/launch) and the image build job (containers/imagetool/buildjob.py)."""
    return "".join(p.read_text() for p in [*JOBSCRIPTS.glob("*.sh"), *(REPO / "app" / "host" / "launch").glob("*.py"),
                                           REPO / "containers" / "imagetool" / "buildjob.py"])


def script_knobs() -> set[str]:
    text = "".join(p.read_text() for p in JOBSCRIPTS.glob("*.sh"))
    read = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)(?::?[-=+]|\})", text))
    return {name for name in read if not NOT_KNOBS.fullmatch(name)} & set(
        re.findall(r"\$\{([A-Z][A-Z0-9_]*):?[-=]", text))


def knobs_table() -> dict[str, str]:
    """The `| knob | ... |` rows of docs/knobs.md: name -> the rest of the row."""
    rows = {}
    for line in KNOBS_PAGE.read_text().splitlines():
        match = re.match(r"\| `([A-Z][A-Z0-9_]*)` \|(.*)", line)
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def test_the_knobs_page_lists_every_knob_the_job_scripts_read() -> None:
    missing = script_knobs() - set(knobs_table())
    assert not missing, f"docs/knobs.md does not list {sorted(missing)}"
    for knob in ("REQUEUE", "WALLTIME_S", "PREEMPT_MARGIN_S", "LAUNCHER", "WORKLOAD", "HOST_LIBFABRIC_DIR"):
        assert knob in knobs_table()


def test_every_knob_the_page_lists_is_read_by_a_job_script() -> None:
    text = job_script_text()
    stale = [k for k in knobs_table() if not re.search(rf"\b{k}\b", text)]
    assert not stale, f"docs/knobs.md lists knobs no job script reads: {stale}"


#: Words that name something only the project's authors know (a sample file's number, a tutorial no page
#: links), and a pip command that could install an unrelated PyPI package called `app`.
UNDECODABLE = [r"\bseed 0\d\d\b", r"Olivia tutorial", r"EAP tutorial", r"pip install '?app\[", r"ddp\.e\d",
               r"singularity not found in PATH", r"which lists every override"]


@pytest.mark.parametrize("page", documentation(), ids=lambda p: p.name)
def test_the_documentation_says_nothing_a_newcomer_cannot_decode_or_that_is_not_true(page: Path) -> None:
    text = page.read_text()
    found = [pattern for pattern in UNDECODABLE if re.search(pattern, text, re.I)]
    assert not found, f"{page.relative_to(REPO)} says {found}"


def test_the_pbs_log_the_docs_name_is_the_one_pbs_writes() -> None:
    """gh200-pbs.sh joins stderr into stdout (-j oe) under its job name (-N ddp): PBS writes NAME.oSEQ only."""
    script = (JOBSCRIPTS / "gh200-pbs.sh").read_text()
    name = re.search(r"^#PBS -N (\S+)", script, re.M).group(1)
    assert re.search(r"^#PBS -j oe", script, re.M)
    prose = "".join(p.read_text() for p in documentation())
    assert f"{name}.o<jobid>" in prose or f"{name}.o<seq>" in prose
    assert not re.search(rf"\b{name}\.e(\d|<)", prose)


def test_the_missing_runtime_row_quotes_what_the_script_prints(tmp_path: Path) -> None:
    """The symptom row for a missing Apptainer quotes the job script's own message, word for word."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in Path("/usr/bin").iterdir():
        if tool.name not in ("apptainer", "singularity"):
            (bin_dir / tool.name).symlink_to(tool)
    image = tmp_path / "app.sif"
    image.write_bytes(b"")
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02",
           "GPUS_PER_NODE": "4", "IMAGE": str(image), "RUN_DIR": str(tmp_path / "run")}
    result = subprocess.run(["bash", str(JOBSCRIPTS / "mn5.sh"), "train"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    said = re.search(r"(\S+ not found in PATH)", output)
    assert said, output[-3000:]
    rows = [line for p in documentation() for line in p.read_text().splitlines()
            if line.startswith("| `") and "not found in PATH" in line]
    assert rows, "no symptom row for a missing container runtime"
    for row in rows:
        assert f"`{said.group(1)}`" in row, f"the script prints {said.group(1)!r}; the row says {row}"


def _claimed_sizes(text: str) -> dict[str, tuple[float, float]]:
    """`small (~14M)`, `gpt2 (124M)`: preset -> (millions of parameters, half a unit of the last digit given)."""
    scale = {"M": 1.0, "B": 1000.0}
    claims = {}
    for name, number, unit in re.findall(r"`?([a-z0-9-]+)`? \(~?([\d.]+)([MB])[,)]", text):
        decimals = len(number.partition(".")[2])
        claims[name] = (float(number) * scale[unit], 0.5 * 10 ** -decimals * scale[unit])
    return claims


def _real_size(preset: str) -> float:
    result = subprocess.run([sys.executable, "-m", "app.train", "--config", "demo", f"model.size={preset}",
                             "--dry-run", "--world-size", "1"], cwd=REPO, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert result.returncode == 0, result.stderr[-2000:]
    return int(re.search(r"^parameters\s+([\d,]+)", result.stdout, re.M).group(1).replace(",", "")) / 1e6


@pytest.mark.slow
def test_the_model_sizes_the_help_and_the_docs_give_are_the_real_ones() -> None:
    helped = subprocess.run([sys.executable, "-m", "app.train", "--help"], cwd=REPO, capture_output=True,
                            text=True, timeout=120).stdout
    line = next(line for line in helped.splitlines() if "GPT preset:" in line)
    claims = {"--help": _claimed_sizes(line)}
    for page in documentation():
        for row in page.read_text().splitlines():
            if "`model.size`" in row:
                claims[page.name] = _claimed_sizes(row)
    assert set(claims["--help"]) >= {"tiny", "small", "gpt2"}
    real = {preset: _real_size(preset) for preset in ("tiny", "small", "gpt2")}
    for where, sizes in claims.items():
        for preset, (claimed, rounding) in sizes.items():
            if preset in real:
                assert abs(claimed - real[preset]) <= max(0.1 * real[preset], rounding), (
                    f"{where} says {preset} has {claimed}M parameters; it has {real[preset]:.2f}M")


def test_the_pages_app_diagnose_points_to_hold_the_tables_it_names() -> None:
    """A fix that sends the reader to a page's symptom table names a page that has one."""
    from app.host.diagnose.causes import CAUSES

    for cause in CAUSES:
        for page in re.findall(r"\b(README|docs/[\w-]+\.md)\b", cause.fix):
            path = REPO / ("README.md" if page == "README" else page)
            assert path.exists(), f"{cause.key}: its fix names {page}, which is not there"
            assert "| symptom | cause | fix |" in path.read_text(), f"{cause.key}: {page} has no symptom table"
