"""The README's commands against the code: every fenced command names a make target, job script, module, file
and knob that exists, the quick ones run here, and every page the README links to is there.

What a newcomer types is taken from the README's own fenced blocks (```bash), so a renamed target, script or
variable fails here instead of on a login node. The slow test runs the quick start's demo and holds the README's
copied log lines to what the trainer prints today.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.launch.knobs import NAMES as KNOB_NAMES
from tests.docs.markdown import README, REPO, anchors, fenced_commands, links, quotes

MAKEFILE = (REPO / "Makefile").read_text()
JOBSCRIPTS = REPO / "jobscripts"
#: The variables the job scripts read with a default (`${NAME:-...}`, `${NAME-...}`, `${NAME:=...}`)
SCRIPT_KNOBS = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*):?[-=]", "".join(p.read_text() for p in JOBSCRIPTS.glob("*.sh"))))
SCRIPT_KNOBS |= set(KNOB_NAMES)  # the knobs app/host/launch/knobs.py resolves for every job script
#: and the ones the job's plan reads from the environment itself (env.get("NAME"), env["NAME"], "NAME" in env)
_PLAN_TEXT = "".join(p.read_text() for p in (REPO / "app" / "host" / "launch").glob("*.py"))
_READ_FROM_ENV = r'env(?:iron)?(?:\.get\(|\[)"([A-Z][A-Z0-9_]*)"|"([A-Z][A-Z0-9_]*)" in env'
SCRIPT_KNOBS |= {name for pair in re.findall(_READ_FROM_ENV, _PLAN_TEXT) for name in pair if name}
#: Programs a README command may start with besides make, the schedulers, the image runtime and python: the
#: ordinary tools of a login node. An unknown one fails the test, so that a new tool is a decision.
LOGIN_TOOLS = {"git", "rsync", "scp", "cd", "ls", "tail", "cat", "module", "squeue", "scancel", "qstat", "qdel",
               "sacct", "mkdir", "cp", "tar", "ssh", "srun", "sbatch", "qsub", "bash", "apptainer", "singularity",
               "make", "python", "python3", "pip", "nvidia-smi", "export", "grep", "du", "less", "watch"}
#: Page names the README must link to: the topics moved out of it, and the pages others own.
REQUIRED_PAGES = {"docs/knobs.md", "docs/offline-build.md", "docs/your-script.md", "docs/packages.md",
                  "docs/diagnose.md", "docs/training.md", "docs/job-scripts.md", "docs/images.md", "docs/check.md"}


def _words(command: str) -> list[str]:
    """The command's words, placeholders (`<account>`) made plain words."""
    return shlex.split(re.sub(r"<[^>]+>", "X", command))


def _env_prefix(words: list[str]) -> tuple[dict[str, str], list[str]]:
    env = {}
    while words and re.fullmatch(r"[A-Z][A-Z0-9_]*=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


def _job_script_knobs(words: list[str]) -> set[str]:
    """Knobs passed by sbatch --export=ALL,K=V or qsub -v K=V[,K=V]."""
    knobs = set()
    for i, word in enumerate(words):
        if word.startswith("--export="):
            knobs |= {item.split("=")[0] for item in word.removeprefix("--export=").split(",") if "=" in item}
        if word == "-v" and i + 1 < len(words):
            knobs |= {item.split("=")[0] for item in words[i + 1].split(",") if "=" in item}
    return knobs


COMMANDS = fenced_commands(README.read_text())


def test_the_readme_is_an_entrance_not_the_manual() -> None:
    assert len(README.read_text().splitlines()) <= 320
    assert len(COMMANDS) >= 20


@pytest.mark.parametrize("command", COMMANDS)
def test_each_readme_command_names_what_exists(command: str) -> None:
    env, words = _env_prefix(_words(command))
    assert words, command
    program = words[0]
    assert program in LOGIN_TOOLS, f"{command!r} starts with {program!r}, which the README never introduces"
    if program == "make":
        for word in words[1:]:
            if "=" in word:
                name = word.split("=")[0]
                assert re.search(rf"^{name} \?=", MAKEFILE, re.M), f"{command!r}: make has no knob {name}"
            elif not word.startswith("-"):
                assert re.search(rf"^{re.escape(word)}:", MAKEFILE, re.M), f"{command!r}: make has no target {word}"
    scripts = [w for w in words if w.startswith("jobscripts/")]
    if program in ("sbatch", "qsub"):
        assert scripts, f"{command!r} submits no script of jobscripts/"
    for knob in set(env) | _job_script_knobs(words):
        if scripts or program in ("sbatch", "qsub"):
            assert knob in SCRIPT_KNOBS, f"{command!r}: no job script reads {knob}"
    for word in words:
        if re.match(r"(jobscripts|app|containers|docs|tests|bench)/", word):
            assert list(REPO.glob(word)), f"{command!r}: {word} is not in the checkout"
    for i, word in enumerate(words[:-1]):
        if word == "-m" and words[i - 1].startswith("python"):
            assert importlib.util.find_spec(words[i + 1]), f"{command!r}: no module {words[i + 1]}"


def test_the_readme_links_resolve() -> None:
    for page in [README, *sorted((REPO / "docs").glob("*.md"))]:
        for target in links(page.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            assert file.exists(), f"{page.relative_to(REPO)} links to {target}, which is not there"
            if anchor and file.suffix == ".md":
                assert anchor in anchors(file.read_text()), f"{page.relative_to(REPO)}: no heading #{anchor} in {path}"


def test_the_readme_links_every_topic_page() -> None:
    linked = {str((REPO / t.partition("#")[0]).resolve().relative_to(REPO)) for t in links(README.read_text())
              if not re.match(r"[a-z]+://", t) and t.partition("#")[0]}
    assert not REQUIRED_PAGES - linked, f"the README does not link {sorted(REQUIRED_PAGES - linked)}"
    pages = {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}
    assert not pages - linked, f"pages of docs/ no one reaches from the README: {sorted(pages - linked)}"


#: The README's commands that run here in seconds, as a user would type them (python3 is this interpreter).
QUICK = [c for c in COMMANDS
         if re.fullmatch(r"python3? -m app\.\w+ --help|make help|make -n \S+.*|DRY_RUN=1 .*bash jobscripts/\S+.*", c)]


def test_the_readme_shows_the_login_tools_help() -> None:
    assert {"python3 -m app.diagnose --help", "python3 -m app.report --help"} <= set(QUICK)
    assert any(c.startswith("DRY_RUN=1") for c in QUICK), "the README shows no dry run of a job script"


@pytest.mark.parametrize("command", QUICK)
def test_the_quick_readme_commands_run(command: str) -> None:
    env, words = _env_prefix(_words(command))
    if words[0].startswith("python"):
        words[0] = sys.executable
    result = subprocess.run(words, cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, **env})
    assert result.returncode == 0, f"{command!r} exited {result.returncode}:\n{result.stderr[-2000:]}"


def _quoted_log(text: str, block_after: str) -> list[str]:
    """The lines of the first fenced block after the line that contains `block_after`."""
    block = text.split(block_after, 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines()[1:] if line.strip()]


@pytest.mark.slow
def test_the_quick_start_demo_prints_the_lines_the_readme_shows(tmp_path: Path) -> None:
    """`make demo`'s command (the Makefile's DEMO line, with this interpreter) prints every line the
    README quotes as a healthy demo, numbers aside."""
    readme = README.read_text()
    quoted = _quoted_log(readme, "<!-- make demo output -->")
    result = subprocess.run([sys.executable, "-m", "app.launch", "local", "--nproc-per-node=2", "--",
                             "-m", "app.train", "--config", "demo", f"run.dir={tmp_path / 'demo'}"],
                            cwd=REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    printed = (result.stdout + result.stderr).splitlines()
    for line in quoted:
        assert quotes(line, printed), f"the README's demo line is not printed any more: {line!r}"
    report = subprocess.run([sys.executable, "-m", "app.report", str(tmp_path / "demo")], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    for line in _quoted_log(readme, "<!-- app.report output -->"):
        assert quotes(line, report.stdout.splitlines()), f"the README's report line is not printed any more: {line!r}"
