"""What the per-account request record costs (emulator/request_record.py).

    .venv/bin/python benchmarks/request_record.py [--requests 100000]

Prints, for a record of `--requests` typical entries built in process: the cost of
recording one request (µs), the bytes a held entry takes, and how long one read-out of
the whole record takes (through request_log.read, as the grader and harness ask for it,
10,000 entries a page). No server, no network: only the record's own work.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from stripebench.emulator.request_log import DEFAULT_LIMIT, read
from stripebench.emulator.request_record import RequestRecord


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=100_000)
    count = parser.parse_args().requests
    record = RequestRecord(budget=10**10)
    stamp = hashlib.sha256(b"proxy").hexdigest()
    started = time.perf_counter()
    for n in range(count):
        record.add({"id": f"req_{n:024d}", "method": "POST", "path": "/v1/customers",
                    "query": "", "status": 200, "version": "2026-10-28.endive",
                    "idempotency_key": f"{n:036d}", "recorded_by": stamp if n % 2 else None,
                    "user_agent": "Stripe/v1 PythonBindings/13.0.1", "time": 1_700_000_000 + n},
                   stamp if n % 2 else None)
    spent = time.perf_counter() - started
    print(f"record one request: {spent / count * 1e6:.2f} µs")
    print(f"held entry: {record.used / count:.0f} bytes ({record.used / 2**20:.1f} MiB for "
          f"{count:,}; the default budget is 32 MiB)")
    started = time.perf_counter()
    after, pages = 0, 0
    while True:
        body = read(record, f"after={after}", "/").body
        pages += 1
        after = min(after + DEFAULT_LIMIT, record.kept)
        if after >= record.kept:
            break
    spent = time.perf_counter() - started
    print(f"read the whole record: {spent * 1000:.0f} ms in {pages} pages "
          f"(last page {len(body) / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
