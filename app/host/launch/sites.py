"""Each site's defaults, which its job script names with `job --site=NAME` (standard library only, Python 3.6): the
job takes them as knobs you set (docs/knobs.md), and a value you set yourself wins. jobscripts/slurm.sh names no site:
it runs on any cluster with the knobs' own defaults (app/host/launch/knobs.py)."""

from typing import List, MutableMapping, NamedTuple


class SiteDefault(NamedTuple):
    """KNOB's VALUE on the site, taken where you left KNOB unset (or empty, unless EMPTY_IS_CHOICE: then an empty
    value is yours too, as CHECK_SITE= chooses no profile)."""

    knob: str
    value: str
    empty_is_choice: bool = False


SITES = {
    # MareNostrum 5 ACC: x86_64, 4x H100 a node, InfiniBand NDR, Slurm (jobscripts/mn5.sh)
    "mn5": (
        # ACC nodes have InfiniBand (mlx5): NCCL is told so, and fails at start if it cannot use it
        SiteDefault("FABRIC", "infiniband"),
        # Rendezvous on the head node's IPoIB address: its hostname resolves to the management network
        SiteDefault("RDZV_IFACES", "ib0"),
        # `check` holds the nodes to this site's bandwidth expectations (app/check/sites/mn5.yaml)
        SiteDefault("CHECK_SITE", "mn5", empty_is_choice=True),
    ),
    # GH200 on HPE Slingshot under PBS Pro: aarch64, 4x GH200 a node (jobscripts/gh200-pbs.sh)
    "slingshot-gh200": (
        # Slingshot: aws-ofi-nccl over libfabric's cxi provider, with the host's libfabric bound in
        SiteDefault("FABRIC", "slingshot"),
        # Rendezvous on the head node's first Slingshot NIC: its hostname resolves to the management network
        SiteDefault("RDZV_IFACES", "hsn0"),
        # `check` holds the nodes to this site's bandwidth expectations (app/check/sites/slingshot-gh200.yaml)
        SiteDefault("CHECK_SITE", "slingshot-gh200", empty_is_choice=True),
    ),
}


def apply_site_defaults(site: str, environ: MutableMapping[str, str]) -> List[str]:
    """SITE's defaults put into ENVIRON where you left them to the site, as the job script's `export
    KNOB=${KNOB:-value}` did before the job was one program: every later part reads them as set by you. Returns
    KNOB=VALUE for each one applied, for the job's log."""
    applied = []  # type: List[str]
    for default in SITES[site]:
        if default.knob not in environ or not (environ[default.knob] or default.empty_is_choice):
            environ[default.knob] = default.value
            applied.append(default.knob + "=" + default.value)
    return applied
