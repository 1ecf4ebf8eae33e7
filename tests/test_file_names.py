"""How shell files are named: under app/ with underscores, as its Python modules are (`node_wrapper.sh` beside
`signed_store.py`); the scripts users type or the image build runs (jobscripts/, containers/) with hyphens
(`build-image.sh`), as commands are."""

from __future__ import annotations

from pathlib import Path

from tests.trainer_runs import REPO

#: Each folder's shell files, and the character their names never hold
RULES = {"app": "-", "jobscripts": "_", "containers": "_"}


def misnamed(root: Path, banned: str) -> list[str]:
    return sorted(str(path.relative_to(REPO)) for path in root.rglob("*.sh") if banned in path.name)


def test_shell_files_are_named_as_their_folder_names_them():
    offenders = {folder: found for folder, banned in RULES.items() for found in [misnamed(REPO / folder, banned)]
                 if found}
    assert offenders == {}, (f"shell files named against their folder's rule: {offenders}; under app/ a name takes "
                             "underscores (as its Python modules), under jobscripts/ and containers/ hyphens")


def test_each_folder_holds_shell_files_for_the_rule_to_see():
    assert all(list((REPO / folder).rglob("*.sh")) for folder in RULES)
