"""Who may import whom, read from the source with `ast` (imports inside functions count: they run too).

- `app/host` is what runs outside the image, on the login node's and the job's batch host's python3 (the system's:
  3.6+, no torch, yaml or numpy): every module under it imports the standard library and `app.host.*` only, so a
  module of `app/common`, `app/check` or `app/train` can never be pulled onto the host by an import.
- The trainer's side (`app/common`, `app/check`, `app/train`) may import `app.host.common`, never the job
  (`app.host.launch`) or the login tools (`app.host.diagnose`, `app.host.report`), nor the command packages that
  run them (`app.launch`, `app.diagnose`, `app.report`: any package of app/ whose `__main__` runs app/host's):
  the trainer never loads them.
- The commands users type from before the move (`python -m app.diagnose`, `app.report`, `python3 -m app.launch`) are
  packages of an `__init__.py` and a `__main__.py` that import their `app.host` package and nothing else.
- `bench/` imports nothing of `tests/`: a benchmark runs from a checkout without the test suite's plugins, and a
  measurement the tests also use lives in `bench/` (the tests import it from there).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.trainer_runs import REPO

#: The packages of the commands users type, each running its namesake under app/host
COMMAND_PACKAGES = ("launch", "diagnose", "report")
#: The trainer's side: what runs in the image, with torch
TRAINER_SIDE = ("common", "check", "train")
#: Imports beyond the standard library a host module may make, each inside a function and only when importable:
#: the report's picture (STYLE 16: matplotlib where the login node has it, else the report says how to get it)
OPTIONAL = {"app.host.report.figure": {"matplotlib"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module name `path` imports (absolute; `from a import b` gives a and a.b), anywhere in the file."""
    names = set()
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else module_name(path)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def host_modules() -> list[Path]:
    """Every Python file under app/host, and app/__init__.py (run first by every import of app.host)."""
    return [REPO / "app" / "__init__.py", *sorted((REPO / "app" / "host").rglob("*.py"))]


def beyond_the_host(path: Path) -> list[str]:
    """The imports of `path` that are neither the standard library nor app.host (the packages above it, `app` and
    `app.host`, run first and are checked as host files themselves)."""
    found = set()
    for name in imports(path):
        top = name.split(".")[0]
        if top == "app":
            if name not in ("app", "app.host") and not name.startswith("app.host."):
                found.add(name)
        elif top not in sys.stdlib_module_names and top != "__future__":
            found.add(top)
    return sorted(found - OPTIONAL.get(module_name(path), set()))


def test_the_host_part_imports_the_standard_library_and_itself_only():
    files = host_modules()
    assert {"app.host.launch.cli", "app.host.launch.plan", "app.host.diagnose.causes", "app.host.report.cli",
            "app.host.common.history", "app.host.common.errors"} <= {module_name(path) for path in files}
    beyond = {module_name(path): found for path in files for found in [beyond_the_host(path)] if found}
    assert beyond == {}, (f"app/host imports beyond the standard library and app.host: {beyond}; it runs on the "
                          "host's system python3 (no torch, yaml, numpy; nothing of app/common, app/check or "
                          "app/train): move what it needs into app/host/common, standard library only")


def beyond_host_common(name: str) -> bool:
    """Whether `name` is a module of the host part other than app.host.common's."""
    return name.startswith("app.host.") and name != "app.host.common" and not name.startswith("app.host.common.")


def host_commands() -> list[str]:
    """The packages of app/ outside app/host whose `__main__` runs a host tool (imports app/host beyond its common
    part): `app.launch`, `app.diagnose`, `app.report`, and any added beside them."""
    return [f"app.{main.parent.name}" for main in sorted((REPO / "app").glob("*/__main__.py"))
            if main.parent.name != "host" and any(beyond_host_common(name) for name in imports(main))]


def test_the_trainers_side_imports_only_app_host_common_of_the_host_part():
    commands = host_commands()
    assert {f"app.{command}" for command in COMMAND_PACKAGES} <= set(commands)
    offenders = {}
    for side in TRAINER_SIDE:
        for path in sorted((REPO / "app" / side).rglob("*.py")):
            found = sorted(name for name in imports(path) if beyond_host_common(name) or
                           any(name == command or name.startswith(f"{command}.") for command in commands))
            if found:
                offenders[module_name(path)] = found
    assert offenders == {}, (f"the trainer's side imports the job or a login tool, or a command that runs one: "
                             f"{offenders}; move what both need into app/host/common (the trainer may import it, "
                             "the host part never imports back)")


def test_the_old_command_packages_only_run_their_moved_package():
    for command in COMMAND_PACKAGES:
        package = REPO / "app" / command
        files = sorted(path.name for path in package.iterdir() if path.name != "__pycache__")
        assert files == ["__init__.py", "__main__.py"], (
            f"app/{command} holds {files}: its modules live in app/host/{command} (app/{command} only keeps "
            f"`python -m app.{command}` working)")
        found = imports(package / "__main__.py") | imports(package / "__init__.py")
        others = sorted(name for name in found if not name.startswith(f"app.host.{command}."))
        assert others == [], f"app/{command} imports {others}: it only runs app.host.{command}"


def test_no_bench_module_imports_the_tests():
    offenders = {module_name(path): sorted(n for n in imports(path) if n == "tests" or n.startswith("tests."))
                 for path in sorted((REPO / "bench").rglob("*.py"))}
    offenders = {name: found for name, found in offenders.items() if found}
    assert offenders == {}, (f"bench/ imports the test suite: {offenders}; move what both need into bench/ (a "
                             "measurement or instrument) or app/ (a feature), and let the tests import it from there")


def test_the_reader_sees_an_import_inside_a_function_and_a_relative_one(tmp_path, monkeypatch):
    """The rule's own reader: a torch imported lazily, or `from . import x`, is still an import."""
    package = tmp_path / "app" / "host" / "launch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "lazy.py").write_text("def f():\n    import torch\n    from . import other\n    return torch\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert {"torch", "app.host.launch", "app.host.launch.other"} <= imports(package / "lazy.py")
