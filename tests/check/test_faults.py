import pytest

from app.check.faults import parse_faults
from app.common.errors import UsageError


def test_faults_apply_only_to_their_rank():
    assert parse_faults("sleep@rank1:collectives,corrupt@rank2", 1).sleep_stage == "collectives"
    assert parse_faults("sleep@rank1:collectives,corrupt@rank2", 2).corrupt
    assert parse_faults("sleep@rank1:collectives", 0).sleep_stage == ""
    assert parse_faults("", 0) == parse_faults("version@rank3", 0)


def test_a_fault_can_target_every_rank_of_one_node():
    """A node made bad (the job scripts' tests: the preflight must find it, whatever ranks it gets)."""
    assert parse_faults("corrupt@host=node3", 4, host="node3").corrupt
    assert not parse_faults("corrupt@host=node3", 4, host="node2").corrupt


@pytest.mark.parametrize("spec", ["sleep@rank1", "nap@rank1:preflight", "corrupt@one", "sleep@rank1:nowhere",
                                  "corrupt@host=", "corrupt@rank1:collectives"])
def test_malformed_fault_specs_are_usage_errors(spec):
    with pytest.raises(UsageError, match=r"^APP_CHECK_FAULT item .* example: APP_CHECK_FAULT=sleep@rank1:collectives$"):
        parse_faults(spec, 1)
