import re
import subprocess
import sys

import pytest

from app.check.options import load_site, parse_options, parse_size, parse_threshold
from app.host.common.errors import UsageError
from tests.check.check_helpers import REPO, clean_env


@pytest.mark.parametrize(("text", "value"), [("4096", 4096), ("32K", 32 << 10), ("2M", 2 << 20), ("1GiB", 1 << 30)])
def test_sizes_take_binary_suffixes(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["0", "-1K", "12Q", "lots"])
def test_bad_sizes_are_usage_errors(text):
    with pytest.raises(UsageError, match="examples: 4096, 32K"):
        parse_size(text)


def test_thresholds_name_a_scope():
    assert parse_threshold("inter=40") == ("inter", 40.0)
    with pytest.raises(UsageError, match="--min-busbw inter=40"):
        parse_threshold("network=40")


def test_site_profile_sets_thresholds_and_the_command_line_wins(tmp_path):
    site = tmp_path / "site.yaml"
    site.write_text("min_busbw_inter: 40\nsizes: [32K, 1M]\ndeadline_s: 20\n")
    settings, _ = parse_options(["--site", str(site), "--min-busbw", "inter=10"])
    assert settings.thresholds == {"inter": 10.0} and settings.deadline_s == 20
    assert settings.message_sizes([4096]) == [32 << 10, 1 << 20]
    flags, _ = parse_options(["--site", str(site), "--sizes", "4K", "--deadline", "5"])
    assert flags.message_sizes([]) == [4 << 10] and flags.deadline_s == 5 and flags.thresholds == {"inter": 40.0}


def test_bundled_profiles_load_by_name():
    assert load_site("mn5").min_busbw_inter > 0
    with pytest.raises(UsageError, match="known profile"):
        load_site("atlantis")


def test_site_profile_with_an_unknown_key_is_a_usage_error(tmp_path):
    site = tmp_path / "site.yaml"
    site.write_text("min_busbw: 40\n")
    with pytest.raises(UsageError, match="unknown config key"):
        parse_options(["--site", str(site)])


@pytest.mark.slow  # four interpreters of the check, each importing torch
@pytest.mark.parametrize("wrong", [
    "min_busbw_intra: fast\n",  # a value of the wrong type
    "min_busbw_intra: [\n",  # not YAML
    "sizes: 32K\n",  # a list given as one value
    "preflight: maybe\n",
    "deadline_s: " + "[" * 40 + "]" * 40 + "\n",  # nested past what the reader takes
])
def test_the_example_a_bad_site_profile_is_given_is_a_line_a_site_profile_takes(tmp_path, wrong):
    """The remedy is to write the example into the profile: the trainer's `key=value` and `train:` section were
    refused by app.check (it takes no key=value arguments, and a profile has no sections)."""
    site = tmp_path / "site.yaml"
    site.write_text(wrong)
    with pytest.raises(UsageError) as refused:
        load_site(str(site))
    example = re.search(r"example line: '(.+)'", str(refused.value))
    assert example, str(refused.value)
    site.write_text(example.group(1) + "\n")
    load_site(str(site))


def test_bad_command_line_exits_2_with_one_line():
    for args in (["--min-busbw", "fast"], ["--collectives", "nowhere"], ["--deadline", "-1"], ["--deadline", "x"]):
        out = subprocess.run(
            [sys.executable, "-m", "app.check", "--node-only", *args],
            cwd=REPO,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().startswith("error: ") and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("flag", "example"), [("--json", "check.json"), ("--exclude-file", "exclude.txt"),
                                               ("--plot", "busbw.png")])
@pytest.mark.parametrize(("where", "why"), [
    pytest.param("nonexist/out", "its directory {tmp}/nonexist does not exist", id="missing-directory"),
    pytest.param("a-file/out", "{tmp}/a-file is not a directory", id="file-as-directory"),
    pytest.param("a-dir", "it is a directory; give a file's path", id="a-directory"),
])
def test_an_output_path_that_cannot_be_written_is_refused_at_the_start_naming_the_option(tmp_path, flag, example,
                                                                                           where, why):
    """The report's files are written after the verdict: a path that cannot take them is a bad command line, said
    before anything runs, not a traceback after the results."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "a-dir").mkdir()
    path = tmp_path / where
    with pytest.raises(UsageError) as refusal:
        parse_options(["--node-only", flag, str(path)])
    assert str(refusal.value) == (f"{flag} {path}: cannot write it: {why.format(tmp=tmp_path)}; give a path in a "
                                  f"directory you can write, e.g. {flag} {example}")


@pytest.mark.slow  # an interpreter of the check, importing torch
def test_a_json_path_in_a_missing_directory_exits_2_in_one_line_before_any_verdict(tmp_path):
    out = subprocess.run([sys.executable, "-m", "app.check", "--node-only", "--json", str(tmp_path / "no" / "x.json")],
                         cwd=REPO, env=clean_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.splitlines() == [
        f"error: --json {tmp_path / 'no' / 'x.json'}: cannot write it: its directory {tmp_path / 'no'} does not "
        f"exist; give a path in a directory you can write, e.g. --json check.json"], out.stderr[-2000:]
    assert "VERDICT" not in out.stdout


def test_preflight_is_a_short_profile_that_keeps_the_sites_thresholds():
    """What the job scripts run before training: all_reduce and all_gather (whose data was wrong), the smallest
    and largest size, a short deadline; the site's thresholds still apply (at the largest size, as in the
    full check)."""
    settings, _ = parse_options(["--preflight", "--site", "mn5", "--sizes", "32K", "2M", "128M"])
    assert settings.preflight and settings.chosen_collectives == ("all_reduce", "all_gather")
    assert settings.message_sizes([]) == [32 << 10, 128 << 20]
    assert settings.message_sizes([1, 2, 3]) == [32 << 10, 128 << 20]  # the cut applies to the set sizes
    assert parse_options(["--preflight"])[0].message_sizes([1, 2, 3]) == [1, 3]  # and to the defaults
    assert settings.deadline_s == 30 and settings.thresholds == {"intra": 150, "inter": 12, "all": 45}
    chosen, _ = parse_options(["--preflight", "--collectives", "all_reduce,broadcast", "--deadline", "10"])
    assert chosen.chosen_collectives == ("all_reduce", "broadcast") and chosen.deadline_s == 10


@pytest.mark.slow  # the check's interpreter, importing torch
def test_help_on_an_80_column_terminal_breaks_lines_between_words():
    from app.check.collectives import COLLECTIVES

    result = subprocess.run([sys.executable, "-m", "app.check", "--help"], cwd=REPO, capture_output=True, text=True,
                            env=clean_env(COLUMNS="80"), timeout=60)
    assert result.returncode == 0
    words = {word.strip(",.();:") for line in result.stdout.splitlines() for word in line.split()}
    assert set(COLLECTIVES) <= words  # each name whole on one line (it once wrapped as "broadca" + "st")
    options = result.stdout[result.stdout.index("options:"):result.stdout.index("settings (keys of")]
    assert max(len(line) for line in options.splitlines()) <= 80


def test_a_file_named_like_a_shipped_profile_in_the_working_directory_does_not_replace_it(tmp_path, monkeypatch):
    """CHECK_SITE=mn5 from the submit directory, which others may write: a bare name is the shipped profile."""
    from app.check.options import SITES_DIR, site_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "mn5").write_text("min_busbw: {}\n")
    assert site_file("mn5") == str(SITES_DIR / "mn5.yaml")
    assert site_file("./mn5") == "./mn5"
