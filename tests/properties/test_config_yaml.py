"""The config loader (app/common/typedconfig.py) on any file and any override: a config or a UsageError."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from app.check.options import CheckSettings
from app.common.errors import UsageError
from app.common.typedconfig import load_config
from app.train.config import Config
from tests.bounded import within
from tests.properties.strategies import SECONDS_PER_EXAMPLE, fresh_directory, json_values

#: Pieces of YAML that reach the loader's corners: sections, aliases and anchors, merge keys, tags (a
#: Python tag is what a safe loader must refuse), complex keys, flow collections, quoting, special numbers.
FRAGMENTS = ["train:", "optim:", "run:", "data:", "\n", "\n  ", "batch_size:", "lr:", "dir:", "max_steps:", " ",
             "&a ", "*a", "&b ", "*b", "<<: *a", "[", "]", "{", "}", ": ", "- ", "? ", ",", "'", '"', "#",
             "!!python/object/apply:os.system ['true']", "!!binary aGk=", "0x1f", "1e3", ".nan", ".inf", "~", "null",
             "yes", "2024-01-01", "\t", "\ufeff", "\x85", "%YAML 1.1\n---\n", "---\n", "...\n"]
yamlish = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)
sections = st.dictionaries(st.sampled_from(["train", "optim", "run", "data", "snapshot", "dist", "x"]),
                           st.dictionaries(st.sampled_from(["batch_size", "lr", "dir", "max_steps", "every", "name",
                                                            "epochs", "y"]), json_values, max_size=4) | json_values,
                           max_size=4).map(lambda data: yaml.safe_dump(data, allow_unicode=True))
documents = (yamlish.map(str.encode) | sections.map(str.encode) | st.text().map(str.encode) | st.binary())


def load(settings_class: type, data: bytes, overrides: list[str]) -> None:
    with fresh_directory() as directory:
        path = directory / "config.yaml"
        path.write_bytes(data)
        try:
            with within(SECONDS_PER_EXAMPLE):
                load_config(settings_class, str(path), overrides)
        except UsageError as err:
            assert "\n" not in str(err).strip(), "one line"
            assert len(str(err)) < 2000, "a message quotes a value cut short"


@given(documents)
def test_any_file_gives_the_trainer_a_config_or_a_usage_error(data):
    load(Config, data, [])


@given(documents)
def test_any_file_gives_the_check_its_settings_or_a_usage_error(data):
    load(CheckSettings, data, [])


@given(st.lists(st.text(max_size=30) | st.sampled_from(["train.batch_size=", "optim.lr=", "run.dir=", "=", "a.b.c=1",
                                                         "train=1", "train.batch_size.x=1"]), max_size=4))
def test_any_override_gives_a_config_or_a_usage_error(overrides):
    load(Config, b"", overrides)
