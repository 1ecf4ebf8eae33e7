"""app/common/injected_faults.py, the one seam for test-only faults: its syntax for the trainer's and the
check's variables, the points it arms, and the rule that no other module of app/ names a fault variable or
imports a faults module (the production code passes inert points and hands its environment over, nothing
more)."""

from __future__ import annotations

import inspect
import re
import signal

import pytest

from app.common import injected_faults
from app.common.injected_faults import CheckFaults, Fault, check_faults, train_fault
from app.host.common.errors import UsageError
from app.train.optimizer_step import OptimizerStep
from tests.trainer_runs import REPO

SEAM = REPO / "app" / "common" / "injected_faults.py"
#: A fault variable's name, or an import of a faults module: only the seam may hold either.
FAULT_WORDS = re.compile(r"\bAPP_\w*FAULT\b|\bimport\s+faults\b|\bapp\.\w+\.faults\b|\bfault_point\b")


# the rule

def test_no_production_module_but_the_seam_names_a_fault_variable_or_a_faults_module():
    offenders = []
    for path in sorted((REPO / "app").rglob("*")):
        if path.suffix not in (".py", ".sh", ".env") or path == SEAM:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if FAULT_WORDS.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == [], "only app/common/injected_faults.py may name them:\n" + "\n".join(offenders)


def test_the_rule_sees_a_fault_variable_read_in_a_production_module():
    assert FAULT_WORDS.search('fault = os.environ.get("APP_TRAIN_FAULT")')
    assert FAULT_WORDS.search("from app.check import faults")
    assert FAULT_WORDS.search("from app.train.faults import install")
    assert not FAULT_WORDS.search("broken on this node (wrong results or IOMMU faults)")


def test_every_point_the_seam_documents_is_passed_by_production_code():
    passed = set()
    for path in (REPO / "app").rglob("*.py"):
        passed.update(re.findall(r'injected_faults\.point\("([\w.]+)"', path.read_text()))
    assert passed == {*injected_faults.TRAIN_POINTS, *injected_faults.CHECK_POINTS}


# the trainer's faults

@pytest.fixture
def usr1_received():
    received: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    yield received
    signal.signal(signal.SIGUSR1, previous)
    injected_faults.arm("train", {}, 0, "node7")


def test_an_unarmed_fault_point_does_nothing_and_passes_its_value_through(usr1_received):
    injected_faults.arm("train", {}, 0, "node7")
    injected_faults.arm("check", {}, 0, "node7")
    assert injected_faults.point("train.step", step=3) is None
    assert injected_faults.point("check.contribution", [1, 2]) == [1, 2]
    assert usr1_received == []


def test_the_variable_is_read_once_at_install_and_arms_only_the_named_step(usr1_received, monkeypatch):
    environment = {"APP_TRAIN_FAULT": "usr1@rank0:step3"}
    assert injected_faults.arm("train", environment, 0, "node7") == ["train.step"]
    environment.clear()  # read once: a later change is not seen until the next run installs again
    monkeypatch.delenv("APP_TRAIN_FAULT", raising=False)
    injected_faults.point("train.step", step=2)
    injected_faults.point("train.snapshot", step=3)
    assert usr1_received == []
    injected_faults.point("train.step", step=3)
    assert usr1_received == [signal.SIGUSR1]
    injected_faults.arm("train", {"APP_TRAIN_FAULT": "usr1@rank1:step3"}, 0, "node7")  # another rank's: disarmed
    injected_faults.point("train.step", step=3)
    assert usr1_received == [signal.SIGUSR1]


class Watched(dict):
    """An environment that records every name read from it."""

    def __init__(self, **variables: str) -> None:
        super().__init__(variables)
        self.read: set[str] = set()

    def get(self, name, default=None):
        self.read.add(name)
        return super().get(name, default)

    def __getitem__(self, name):
        self.read.add(name)
        return super().__getitem__(name)


@pytest.mark.parametrize("tool", ["train", "check"])
def test_a_run_no_test_asked_a_fault_of_reads_the_tools_variable_and_nothing_else(tool, monkeypatch):
    """The production path: arming with no fault asked for reads one variable, not this host's name or any other."""
    monkeypatch.setattr(injected_faults.socket, "gethostname", lambda: pytest.fail("arm looked up the host's name"))
    environment = Watched(PATH="/usr/bin", RANK="1", HOSTNAME="node7")
    assert injected_faults.arm(tool, environment, 1) == []
    assert environment.read == {injected_faults.VARIABLES[tool]}


def test_the_optimizer_step_takes_no_fault():
    assert "fault" not in inspect.signature(OptimizerStep).parameters


def test_the_trainer_fault_switch_targets_a_rank_or_every_rank_of_a_host():
    by_rank = {"APP_TRAIN_FAULT": "stop@rank1:step8"}
    assert train_fault(by_rank, 1, "node7") == Fault("stop", 1, 8)
    assert train_fault(by_rank, 0, "node7") is None
    by_host = {"APP_TRAIN_FAULT": "stop@host=node3:step20"}
    assert train_fault(by_host, 0, "node3.cluster") == Fault("stop", 0, 20)
    assert train_fault(by_host, 0, "node2") is None
    for bad in ("stop@node3:step2", "stop@host=:step2", "nap@rank1:step2", "stop@rank1", "stop@rank1:8"):
        with pytest.raises(UsageError, match=r"APP_TRAIN_FAULT item .* example: APP_TRAIN_FAULT=stop@rank1:step8"):
            train_fault({"APP_TRAIN_FAULT": bad}, 0, "node7")


# the check's faults

def test_faults_apply_only_to_their_rank():
    assert check_faults("sleep@rank1:collectives,corrupt@rank2", 1).sleep_stage == "collectives"
    assert check_faults("sleep@rank1:collectives,corrupt@rank2", 2).corrupt
    assert check_faults("sleep@rank1:collectives", 0).sleep_stage == ""
    assert check_faults("", 0) == check_faults("version@rank3", 0) == CheckFaults()


def test_a_fault_can_target_every_rank_of_one_node():
    """A node made bad (the job scripts' tests: the preflight must find it, whatever ranks it gets)."""
    assert check_faults("corrupt@host=node3", 4, host="node3").corrupt
    assert not check_faults("corrupt@host=node3", 4, host="node2").corrupt


@pytest.mark.parametrize("spec", ["sleep@rank1", "nap@rank1:preflight", "corrupt@one", "sleep@rank1:nowhere",
                                  "corrupt@host=", "corrupt@rank1:collectives"])
def test_malformed_fault_specs_are_usage_errors(spec):
    with pytest.raises(UsageError, match=r"^APP_CHECK_FAULT item .* example: APP_CHECK_FAULT=sleep@rank1:collectives$"):
        check_faults(spec, 1)


def test_the_check_arms_only_its_own_points_and_leaves_the_trainers_alone(usr1_received):
    injected_faults.arm("train", {"APP_TRAIN_FAULT": "usr1@rank0:step3"}, 0, "node7")
    armed = injected_faults.arm("check", {"APP_CHECK_FAULT": "corrupt@rank0,version@host=node7"}, 0, "node7")
    assert armed == ["check.contribution", "check.versions"]
    assert injected_faults.point("check.versions", {"torch": "2.13.0"}) == {"torch": "2.13.0+fault"}
    injected_faults.point("train.step", step=3)
    assert usr1_received == [signal.SIGUSR1]
    injected_faults.arm("check", {}, 0, "node7")
    assert injected_faults.point("check.versions", {"torch": "2.13.0"}) == {"torch": "2.13.0"}
