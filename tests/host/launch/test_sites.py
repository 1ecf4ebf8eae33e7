"""The site scripts are their scheduler's header, the lines that find the checkout and one launch line; a site's
defaults live in app/host/launch/sites.py and reach the job as knobs you set, yours winning."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.host.launch.knobs import NAMES
from app.host.launch.sites import SITES, apply_site_defaults
from tests.docs.test_docs_facts import knobs_table
from tests.jobscripts.test_dry_run_plan import dry_run

REPO = Path(__file__).resolve().parents[3]
SITE_SCRIPTS = ("slurm.sh", "mn5.sh", "gh200-pbs.sh")
#: What a site script may run besides its launch line: finding the checkout (sbatch and qsub run a copy of the file)
CHECKOUT_LINES = re.compile(r"^(submitted=|\[\[ -n \$\{SLURM_JOB_ID|(export )?DDP_JOBSCRIPTS=|checkout=|"
                            r"\[\[ -r \$checkout/app/host/launch/run_checkout\.py \]\])")


def code_lines(script: str) -> list[str]:
    """The script's lines that bash runs: not its header's comments and directives, not blank."""
    lines = (REPO / "jobscripts" / script).read_text().splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("script", SITE_SCRIPTS)
def test_a_site_script_is_its_header_the_checkout_lines_and_one_launch_line(script: str) -> None:
    *finding, launch = code_lines(script)
    assert [line for line in finding if not CHECKOUT_LINES.match(line)] == []
    assert len(finding) <= 5, finding
    assert launch.startswith('exec python3 -I -S -c "$(<"$checkout/app/host/launch/run_checkout.py")" "$checkout" '
                             f"app.host.launch --script={script} job "), launch
    assert launch.endswith(' -- "$@"'), launch
    site = re.search(r" --site=(\S+)", launch)
    assert site is None or site.group(1) in SITES, launch


def test_each_site_default_is_a_knob_and_each_check_profile_it_names_is_shipped() -> None:
    for site, defaults in SITES.items():
        for default in defaults:
            assert default.knob in NAMES, (site, default)
            if default.knob == "CHECK_SITE":
                assert (REPO / "app" / "check" / "sites" / f"{default.value}.yaml").is_file(), (site, default)


def test_the_knobs_page_gives_each_sites_default_for_the_script_that_names_the_site() -> None:
    rows = knobs_table()
    named = {re.search(r" --site=(\S+)", code_lines(script)[-1]).group(1): script
             for script in SITE_SCRIPTS if " --site=" in code_lines(script)[-1]}
    assert set(named) == set(SITES), named
    for site, script in named.items():
        for default in SITES[site]:
            assert f"`{default.value}` in `{script}`" in rows[default.knob], (default, rows[default.knob])


def test_a_site_default_fills_what_you_left_unset_and_yours_wins() -> None:
    environ = {"RDZV_IFACES": "ib1", "FABRIC": ""}
    applied = apply_site_defaults("mn5", environ)
    # Your RDZV_IFACES kept; an empty FABRIC counts as unset (the knobs' rule); CHECK_SITE filled
    assert environ == {"RDZV_IFACES": "ib1", "FABRIC": "infiniband", "CHECK_SITE": "mn5"}
    assert applied == ["FABRIC=infiniband", "CHECK_SITE=mn5"]


def test_an_empty_check_site_is_your_choice_of_no_profile() -> None:
    environ = {"CHECK_SITE": ""}
    apply_site_defaults("slingshot-gh200", environ)
    assert environ["CHECK_SITE"] == "", "CHECK_SITE= (no profile) was overwritten by the site's"


def test_the_mn5_job_says_its_sites_defaults_plans_with_them_and_takes_yours_first(tmp_path: Path) -> None:
    planned = dry_run(tmp_path, "check", script="mn5.sh")
    assert ("site mn5's defaults: FABRIC=infiniband RDZV_IFACES=ib0 CHECK_SITE=mn5 (app/host/launch/sites.py; "
            "a value you set wins)") in planned
    assert "[fabric infiniband] setting NCCL_NET=IB" in planned
    assert "the head node's address on the first of ib0" in planned
    assert re.search(r"step: .* -m app\.check --site mn5\b", planned), planned
    yours = dry_run(tmp_path, "check", script="mn5.sh", FABRIC="none", CHECK_SITE="")
    assert "site mn5's defaults: RDZV_IFACES=ib0 (" in yours
    assert "FABRIC=none: no NCCL network settings" in yours and "[fabric infiniband]" not in yours
    assert "--site" not in "".join(line for line in yours.splitlines() if " step: " in line)


def test_the_any_cluster_script_names_no_site(tmp_path: Path) -> None:
    planned = dry_run(tmp_path, "check")
    assert "site " not in planned.split("\n", 1)[0] and "FABRIC=auto: detected" in planned
