"""Benchmark: gets per second through the job's store from many threads of one process, by how the store is built.

The simulated ranks of bench.control_plane are threads of one process, as many as 512, each with its own TCPStore
client. Every store call from Python releases the interpreter lock while it waits on the socket
(`py::gil_scoped_release` around `store.get` in torch/csrc/distributed/c10d/init.cpp, torch 2.13), and has to take
it back to return; a Python `Store` subclass (the sealed store) called from C++, as a C++ PrefixStore calls it, takes
the lock again in torch's trampoline (`PythonStore::get`: `gil_scoped_acquire`, same file). A sealed get through C++
prefixes thus takes the lock three times, an unsealed one once; with hundreds of threads runnable a take may wait
for the switch interval (`sys.getswitchinterval()`, 5 ms: `--switch-interval-ms` changes it, to tell that wait from
the Python work of sealing). The variants, side by side in one run:

- unsealed: C++ PrefixStores over the TCPStore client (the store before values were sealed);
- sealed, C++ prefixes: C++ PrefixStores over a SignedStore (how the job's store was built);
- sealed, Python prefixes: `app.common.signed_store.prefixed` over a SignedStore (how the job's store is built now):
  the prefixes joined in Python, one call into C++ per request.

    python -m bench.store_gil [--threads 512] [--seconds 5] [--switch-interval-ms 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import torch
import torch.distributed as dist

from app.common.signed_store import SignedStore, prefixed

SECRET = "g" * 32
PREFIXES = ("app/", "attempt-1/", "app.check/")  # the check's chain (app/common/distributed.py, app/check/runner.py)
KEY = "plan"


def unsealed(client: dist.Store) -> dist.Store:
    store = client
    for prefix in PREFIXES:
        store = dist.PrefixStore(prefix, store)
    return store


def sealed_cxx_prefixes(client: dist.Store) -> dist.Store:
    store: dist.Store = SignedStore(client, SECRET)
    for prefix in PREFIXES:
        store = dist.PrefixStore(prefix, store)
    return store


def sealed_python_prefixes(client: dist.Store) -> dist.Store:
    store: dist.Store = SignedStore(client, SECRET)
    for prefix in PREFIXES:
        store = prefixed(store, prefix)
    return store


VARIANTS: dict[str, Callable[[dist.Store], dist.Store]] = {
    "unsealed": unsealed,
    "sealed, C++ prefixes": sealed_cxx_prefixes,
    "sealed, Python prefixes": sealed_python_prefixes,
}


def gets_per_s(clients: list[dist.Store], build: Callable[[dist.Store], dist.Store], seconds: float) -> float:
    """Every thread gets KEY in a loop through its own client, built by `build`, for `seconds`."""
    stores = [build(client) for client in clients]
    stores[0].set(KEY, "x" * 200)  # about a plan's size
    counts = [0] * len(stores)
    start, stop = threading.Barrier(len(stores) + 1), threading.Event()

    def run(i: int) -> None:
        store, n = stores[i], 0
        start.wait()
        while not stop.is_set():
            store.get(KEY)
            n += 1
        counts[i] = n

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(stores))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(60)
    return sum(counts) / (time.monotonic() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=512)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="each variant this many times, interleaved")
    parser.add_argument("--switch-interval-ms", type=float, default=None,
                        help="sys.setswitchinterval for the run (default: Python's, 5 ms)")
    args = parser.parse_args(argv)
    if args.switch_interval_ms is not None:
        sys.setswitchinterval(args.switch_interval_ms / 1000)
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    first = dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=60))
    clients = [first] + [first.clone() for _ in range(args.threads - 1)]
    rates: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.rounds):
        for name, build in VARIANTS.items():
            rates[name].append(gets_per_s(clients, build, args.seconds))
    best = {name: max(values) for name, values in rates.items()}
    print(json.dumps({"torch": torch.__version__, "threads": args.threads, "seconds": args.seconds,
                      "switch_interval_ms": sys.getswitchinterval() * 1000,
                      "gets_per_s": {name: [round(v) for v in values] for name, values in rates.items()},
                      "best_vs_unsealed": {name: round(v / best["unsealed"], 2) for name, v in best.items()}},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
