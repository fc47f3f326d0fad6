"""A Sentinel-aware writer for the Sentinel drill of tests/sentinel_test.go.

Run with Debian's /usr/bin/python3 and its python3-redis (redis-py 4.3.x):

    /usr/bin/python3 sentinel_drill.py SENTINEL_PORT,SENTINEL_PORT,... SECONDS

It finds the primary of "mymaster" through the Sentinels on 127.0.0.1 and
writes SET w:<n> v<n>, n = 0, 1, 2, ..., in pipelines of BATCH writes, each
pipeline ending with WAIT 1 WAIT_MS on the same connection. A batch is
confirmed when its pipeline succeeded and WAIT counted at least one replica:
Redis then promises the batch survives the loss of the primary, provided
Sentinel promotes the most up-to-date replica. Failed and unconfirmed
batches are not retried: their keys may or may not exist.

The Go test reads stdout line by line:

    primary HOST:PORT             the first primary, and every later one a batch reached
    ready                         READY_BATCHES batches confirmed: kill the primary now
    error <text>                  the first few distinct errors seen while failing over
    RESULT {json}                 at the end, after AFTER_BATCHES batches confirmed on a
                                  second primary; exit status 0

RESULT's JSON: {"confirmed": {"HOST:PORT": [[lo, hi], ...]}, "written": n,
"failed_batches": k, "unconfirmed_batches": m}, where [lo, hi) are ranges
of n confirmed on that primary (the address of the connection the batch
used). When SECONDS pass first, it prints "FAIL <reason>" and exits 1.
"""

import json
import sys
import time

import redis
from redis.sentinel import Sentinel

BATCH = 20  # writes per pipeline
WAIT_MS = 500  # WAIT's timeout; shorter than a failover, longer than a healthy ack
PAUSE = 0.001  # between batches: load, yet a data set the test can compare key by key
READY_BATCHES = 150  # confirmed on the first primary before "ready"
AFTER_BATCHES = 20  # confirmed on a later primary before the end
MAX_ERROR_LINES = 10
RETRY_PAUSE = 0.05  # after a failed batch: Sentinel needs seconds, not microseconds


def address(pair):
    return f"{pair[0]}:{pair[1]}"


def add_range(ranges, lo, hi):
    """Appends [lo, hi) to ranges, merging it with the last range when adjacent."""
    if ranges and ranges[-1][1] == lo:
        ranges[-1][1] = hi
    else:
        ranges.append([lo, hi])


def main():
    ports = [int(p) for p in sys.argv[1].split(",")]
    deadline = time.monotonic() + float(sys.argv[2])
    sentinel = Sentinel([("127.0.0.1", p) for p in ports], socket_timeout=1.0)
    master = sentinel.master_for("mymaster", socket_timeout=2.0, socket_connect_timeout=1.0)
    pool = master.connection_pool

    confirmed = {}  # address -> [[lo, hi], ...]
    primaries = []  # in the order batches reached them
    errors_seen = set()
    failed = unconfirmed = 0
    n = 0
    ready = False
    while time.monotonic() < deadline:
        lo, hi = n, n + BATCH
        n = hi
        pipe = master.pipeline(transaction=False)
        for i in range(lo, hi):
            pipe.set(f"w:{i}", f"v{i}")
        pipe.execute_command("WAIT", 1, WAIT_MS)
        try:
            replies = pipe.execute()
        except redis.RedisError as e:
            failed += 1
            text = f"{type(e).__name__}: {e}"
            if text not in errors_seen and len(errors_seen) < MAX_ERROR_LINES:
                errors_seen.add(text)
                print(f"error {text}", flush=True)
            time.sleep(RETRY_PAUSE)
            continue
        # The pool connects to the address Sentinel named last and drops
        # connections to any earlier one, so this is where the batch went.
        primary = address(pool.master_address)
        if primary not in primaries:
            primaries.append(primary)
            print(f"primary {primary}", flush=True)
        if not all(r is True for r in replies[:-1]) or replies[-1] < 1:
            unconfirmed += 1
            continue
        add_range(confirmed.setdefault(primary, []), lo, hi)
        done = sum(r[1] - r[0] for r in confirmed[primary]) // BATCH
        if primary == primaries[0] and done >= READY_BATCHES and not ready:
            ready = True
            print("ready", flush=True)
        if primary != primaries[0] and done >= AFTER_BATCHES:
            result = {"confirmed": confirmed, "written": n, "failed_batches": failed,
                      "unconfirmed_batches": unconfirmed}
            print("RESULT " + json.dumps(result), flush=True)
            return 0
        time.sleep(PAUSE)
    print(f"FAIL no {AFTER_BATCHES} batches confirmed on a second primary within {sys.argv[2]}s: "
          f"primaries {primaries}, {failed} failed and {unconfirmed} unconfirmed batches", flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
