"""Who may import whom, read from the source with `ast` (imports inside functions count: they run too).

- `app/common` is what the trainer and the launcher share: it imports nothing of `app/host/launch`, so the trainer
  never loads the launcher, and whatever the launcher needs from both lives in `app/common`.
- What the batch host and the login node run (every module of `app/host/launch`, `app/host/diagnose`, the job scripts'
  own `python3 -m` modules, and every app module those import, transitively) imports the standard library and
  this project only: their python3 is the system's, with no torch, yaml or numpy.
- `bench/` imports nothing of `tests/`: a benchmark runs from a checkout without the test suite's plugins, and a
  measurement the tests also use lives in `bench/` (the tests import it from there).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.launch import REPO

#: The modules the job runs on the batch host's python3 besides `app.launch` (app/host/launch/checkout.py module_command)
JOB_SCRIPT_MODULES = ("app.host.common.history",)
#: The packages whose every module runs on the batch host or the login node
HOST_PACKAGES = ("app/host/launch", "app/host/diagnose")


def module_file(name: str) -> Path | None:
    """The file of module `name` of this checkout (a package's __init__.py), None when it is not one."""
    path = REPO.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


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


def host_closure() -> dict[str, set[str]]:
    """Each module the batch host or the login node may load -> the modules outside this project it imports."""
    todo = [module_name(path) for package in HOST_PACKAGES for path in sorted((REPO / package).glob("*.py"))]
    todo += JOB_SCRIPT_MODULES
    outside: dict[str, set[str]] = {}
    while todo:
        name = todo.pop()
        if name in outside:
            continue
        found = imports(module_file(name))
        ours = {n for n in found if n.split(".")[0] == "app" and module_file(n)}
        # The packages above each module run first (their __init__.py)
        ours |= {".".join(n.split(".")[:i]) for n in ours for i in range(1, n.count(".") + 1)}
        outside[name] = {n.split(".")[0] for n in found if n.split(".")[0] != "app"}
        todo.extend(ours - outside.keys())
    return outside


def test_no_module_of_app_common_imports_the_launcher():
    offenders = {module_name(path): sorted(n for n in imports(path) if n == "app.host.launch" or
                                           n.startswith("app.launch."))
                 for path in sorted((REPO / "app" / "common").rglob("*.py"))}
    offenders = {name: found for name, found in offenders.items() if found}
    assert offenders == {}, (f"app/common imports app/host/launch: {offenders}; move what both need into app/common "
                             "(the launcher may import app/common, never the reverse)")


def test_the_batch_host_and_login_node_modules_import_the_standard_library_only():
    closure = host_closure()
    assert {"app.host.launch.cli", "app.host.launch.plan", "app.host.diagnose.causes", "app.host.common.history",
            "app.host.common.scheduler_env", "app.host.common.rendezvous_port", "app.host.common.errors"} <= closure.keys()
    beyond = {name: sorted(found - set(sys.stdlib_module_names) - {"__future__"})
              for name, found in closure.items()}
    beyond = {name: found for name, found in beyond.items() if found}
    assert beyond == {}, (f"modules the batch host or login node run import beyond the standard library: {beyond}; "
                          "their python3 is the system's (no torch, yaml, numpy): keep such imports in app/train, "
                          "app/check or a module only those import")


def test_no_bench_module_imports_the_tests():
    offenders = {module_name(path): sorted(n for n in imports(path) if n == "tests" or n.startswith("tests."))
                 for path in sorted((REPO / "bench").rglob("*.py"))}
    offenders = {name: found for name, found in offenders.items() if found}
    assert offenders == {}, (f"bench/ imports the test suite: {offenders}; move what both need into bench/ (a "
                             "measurement or instrument) or app/ (a feature), and let the tests import it from there")


def test_the_closure_sees_an_import_inside_a_function_and_a_relative_one(tmp_path, monkeypatch):
    """The rule's own reader: a torch imported lazily, or `from . import x`, is still an import."""
    package = tmp_path / "app" / "host" / "launch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "lazy.py").write_text("def f():\n    import torch\n    from . import other\n    return torch\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert {"torch", "app.host.launch", "app.host.launch.other"} <= imports(package / "lazy.py")
