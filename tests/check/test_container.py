from app.check.node.container import check_container, in_apptainer
from app.check.node.network import scan
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, WARN
from app.host.common.provenance import read_labels
from tests.check.check_helpers import DATA


def test_labels_are_read_from_the_image_root():
    labels = read_labels(str(DATA / "image-root"))
    assert labels["org.opencontainers.image.version"] == "0.1.0"
    assert read_labels(str(DATA / "mgmt-node")) == {}


def test_inside_apptainer_reports_image_and_version():
    inv = scan(Probe.tree(DATA / "mgmt-node"))
    env = {"APPTAINER_CONTAINER": "/scratch/app.sif"}
    assert in_apptainer(env, str(DATA / "mgmt-node"))
    check = check_container(env, inv, 0, Probe.tree(DATA / "mgmt-node", root=DATA / "image-root"))[0]
    assert check.status == OK and "/scratch/app.sif" in check.detail and "0.1.0" in check.detail


def test_hcas_without_dev_infiniband_in_the_container_fail(tree):
    root = tree("ib-node")
    inv = scan(Probe.tree(root))
    ok = {c.name: c for c in check_container({}, inv, 0, Probe.tree(root))}
    assert ok["container: /dev/infiniband"].status == OK
    for entry in (root / "dev/infiniband").iterdir():
        entry.unlink()
    (root / "dev/infiniband").rmdir()
    bad = {c.name: c for c in check_container({}, inv, 0, Probe.tree(root))}
    assert (
        bad["container: /dev/infiniband"].status == FAIL
        and "--bind /dev/infiniband" in bad["container: /dev/infiniband"].remedy
    )


def test_gpu_device_nodes_without_cuda_torch_warn(tmp_path):
    (tmp_path / "nvidia0").write_bytes(b"")
    inv = scan(Probe.tree(DATA / "mgmt-node"))
    checks = {c.name: c for c in check_container({}, inv, 0, Probe(dev=tmp_path, root=tmp_path))}
    assert checks["container: GPU devices"].status == WARN and "--nv" in checks["container: GPU devices"].remedy
