import pytest

from app.check.node.arch import check_arch, image_arch
from app.check.report import FAIL, OK


@pytest.mark.parametrize(
    ("labels", "machine", "platform", "status"),
    [
        ({}, "x86_64", "linux-x86_64", OK),
        ({"org.app.arch": "amd64"}, "x86_64", "linux-x86_64", OK),
        ({"org.app.arch": "aarch64"}, "x86_64", "linux-x86_64", FAIL),
        ({"org.app.arch": "arm64"}, "aarch64", "linux-aarch64", OK),
        ({}, "aarch64", "linux-x86_64", FAIL),
    ],
)
def test_machine_image_and_python_must_agree(labels, machine, platform, status):
    check = check_arch(labels, machine, platform)[0]
    assert check.status == status
    if status == FAIL:
        assert f"make image ARCH={machine}" in check.remedy


def test_image_arch_understands_oci_names():
    assert image_arch({"org.label-schema.build-arch": "arm64"}) == "aarch64"
