import socket

from app.check.node.rendezvous import check_master_address, classify_connect_error, wait_until_reachable
from app.check.report import FAIL, OK


def test_unresolvable_master_addr_fails():
    check = check_master_address("no-such-host.invalid", 29500, False, [])[0]
    assert check.status == FAIL and check.stage == "rendezvous" and "does not resolve" in check.detail


def test_master_addr_must_be_local_on_rank_zeros_node():
    assert check_master_address("127.0.0.1", 29500, True, [])[0].status == OK
    check = check_master_address("192.0.2.77", 29500, True, ["10.0.0.1"])[0]
    assert check.status == FAIL and "not an address of rank 0's node" in check.detail
    assert check_master_address("192.0.2.77", 29500, False, ["10.0.0.1"])[0].status == OK


def test_refused_connection_says_nothing_listens():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    check = classify_connect_error("127.0.0.1", port, 1.0)
    assert check.status == FAIL and "refused" in check.detail and "every node" in check.remedy


def test_listening_address_is_reachable():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert wait_until_reachable("127.0.0.1", server.getsockname()[1], 2.0).status == OK


def test_waiting_for_an_unreachable_address_ends_at_the_deadline():
    import time

    start = time.monotonic()
    check = wait_until_reachable("192.0.2.1", 9, 0.6, attempt_s=0.2)  # TEST-NET-1: never answers; three tries
    took_s = time.monotonic() - start
    assert check.status == FAIL and 0.6 <= took_s < 5 and "kept trying" in check.detail, (took_s, check.detail)
