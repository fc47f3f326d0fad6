"""A Celery application against one server on 127.0.0.1, as a user runs it.

Run by tests/celery_test.go with Debian's /usr/bin/python3 and its
python3-celery and python3-kombu packages (Celery 5.2.x, kombu 5.2.x), once
against a real redis-server and once against shale-server:

    /usr/bin/python3 driver.py PORT

It starts a Celery worker (prefork pool of 2) whose broker and result backend
are both that server, sends it single tasks, a chain, a group, a chord, a
failing task and a retrying task, checks every result through the result
backend, sends broadcast control commands (inspect ping, registered,
active_queues) that must reach the worker, and stops the worker with a warm
shutdown. The broker moves messages with BRPOP and LPUSH, keeps unacknowledged
ones in a hash indexed by a sorted set (updated in MULTI/EXEC pipelines),
broadcasts with PUBLISH and PSUBSCRIBE, and guards the restore of
unacknowledged messages, at worker start, with redis-py's Lock, whose release
is a Lua script (EVALSHA, then SCRIPT LOAD on NOSCRIPT). The result backend
stores results with MULTI/EXEC pipelines and waits for them on SUBSCRIBE.

The script expects an empty server and has no branch per server. It prints
one line per check and, when all pass, "PASS <n> checks"; the first failure
prints the worker's log, then "FAIL ...", and exits 1. The whole run is bounded
by DEADLINE; the worker runs in a temporary directory, binds no port, and dies
with the driver.
"""

import ctypes
import ipaddress
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = 60  # seconds for the whole run; tests/clients_test.go allows 90
RESULT_TIMEOUT = 20  # seconds for one result
# Seconds to wait for control replies. Addressed to one worker, a command
# returns as soon as it has answered, so only a failure waits this long.
CONTROL_TIMEOUT = 10
HOSTNAME = "celery-test@shale"  # the worker's node name, as control replies name it

CHECKS = 0


class Failed(Exception):
    pass


class Deadline(BaseException):
    """Raised by SIGALRM; a BaseException so that no retry loop in kombu or
    Celery that catches Exception can swallow it."""


def check(name, got, want):
    global CHECKS
    if got != want:
        raise Failed(f"{name}: got {got!r}, want {want!r}")
    CHECKS += 1
    print(f"ok {name}", flush=True)


def on_deadline(signum, frame):
    raise Deadline(f"deadline of {DEADLINE}s passed")


def die_with_parent():
    """Runs in the worker before exec: SIGKILL it when the driver dies, so that
    a killed driver never leaves a worker behind."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def start_worker(port, tmp):
    env = dict(os.environ)
    env.update(
        CELERY_TEST_PORT=str(port),
        PYTHONPATH=HERE,
        TMPDIR=tmp,  # anything the worker writes goes to the temporary directory
        HOME=tmp,
        PYTHONDONTWRITEBYTECODE="1",  # no __pycache__ in the source tree
    )
    log = open(os.path.join(tmp, "worker.log"), "wb")
    cmd = [
        sys.executable, "-m", "celery", "-A", "tasks", "worker",
        "--pool", "prefork", "--concurrency", "2",
        "--hostname", HOSTNAME,
        "--loglevel", "INFO",
    ]
    return subprocess.Popen(cmd, cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)


def worker_log(tmp):
    try:
        with open(os.path.join(tmp, "worker.log"), "r", errors="replace") as f:
            return f.read()
    except OSError as e:
        return f"(no worker log: {e})"


def last_exception(log):
    """The last "SomeError: message" line of a traceback in log, or ""."""
    found = ""
    for line in log.splitlines():
        head = line.split(": ", 1)[0]
        if head.replace(".", "").isidentifier() and head.endswith(("Error", "Exception")):
            found = line
    return found


def wait_ready(app, worker, tmp):
    """Pings the worker until it answers; the first answer is the check that a
    broadcast control command reaches it."""
    stop = time.monotonic() + 40
    while time.monotonic() < stop:
        if worker.poll() is not None:
            raise Failed(f"worker exited with {worker.returncode} before answering ping; "
                         f"its last exception: {last_exception(worker_log(tmp)) or 'none'}")
        replies = app.control.inspect(destination=[HOSTNAME], timeout=1).ping()
        if replies:
            check("inspect ping", replies, {HOSTNAME: {"ok": "pong"}})
            return
    raise Failed("worker did not answer inspect ping within 40s")


def family(pid):
    """pid and its children (the prefork pool processes)."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the parenthesised command: state, ppid, ...
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            pids.append(int(entry))
    return pids


def public_sockets(pids):
    """The TCP listening and bound UDP sockets of pids not on a loopback address."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        try:
            with open(f"/proc/net/{proto}") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if inode not in inodes or (proto.startswith("tcp") and state != "0A"):
                continue
            host, port = local.split(":")
            raw = bytes.fromhex(host)
            # /proc/net prints each 32-bit word of the address in host (little-endian) order.
            addr = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            ip = ipaddress.ip_address(addr)
            if not ip.is_loopback:
                found.append(f"{proto} {ip}:{int(port, 16)}")
    return found


def run(port, tmp):
    os.environ["CELERY_TEST_PORT"] = str(port)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, HERE)
    from celery import chain, chord, group
    import redis
    import tasks

    app = tasks.app
    worker = start_worker(port, tmp)
    try:
        wait_ready(app, worker, tmp)
        check("worker binds no public socket", public_sockets(family(worker.pid)), [])

        # Control commands broadcast to every worker, answered on a reply queue.
        registered = app.control.inspect(destination=[HOSTNAME], timeout=CONTROL_TIMEOUT).registered()
        check("inspect registered",
              sorted(t for t in (registered or {}).get(HOSTNAME, []) if t.startswith("tasks.")),
              ["tasks.add", "tasks.echo", "tasks.fail", "tasks.flaky", "tasks.mul", "tasks.tsum"])
        queues = app.control.inspect(destination=[HOSTNAME], timeout=CONTROL_TIMEOUT).active_queues()
        check("inspect active_queues", [q["name"] for q in (queues or {}).get(HOSTNAME, [])], ["celery"])
        check("control ping", app.control.ping(destination=[HOSTNAME], timeout=CONTROL_TIMEOUT),
              [{HOSTNAME: {"ok": "pong"}}])

        # Single tasks, results waited for on the backend's pub/sub channel.
        res = tasks.add.delay(2, 3)
        check("add", res.get(timeout=RESULT_TIMEOUT), 5)
        check("add state", res.state, "SUCCESS")
        text = "héllo wörld ✓ " + "x" * 1000
        check("echo unicode", tasks.echo.delay(text).get(timeout=RESULT_TIMEOUT), text)
        check("echo structure", tasks.echo.delay({"a": [1, 2.5, None, True]}).get(timeout=RESULT_TIMEOUT),
              {"a": [1, 2.5, None, True]})

        # A batch sent before any result is read.
        batch = [tasks.add.delay(i, i) for i in range(30)]
        check("batch", [r.get(timeout=RESULT_TIMEOUT) for r in batch], [2 * i for i in range(30)])

        # A result read again later, by id, from the stored key rather than a message.
        again = app.AsyncResult(batch[7].id)
        check("result by id", (again.state, again.result), ("SUCCESS", 14))

        # Canvas: chain, group, chord (the chord counts its parts in the backend).
        check("chain", chain(tasks.add.s(1, 2), tasks.mul.s(10)).delay().get(timeout=RESULT_TIMEOUT), 30)
        check("group", group(tasks.mul.s(i, i) for i in range(10)).delay().get(timeout=RESULT_TIMEOUT),
              [i * i for i in range(10)])
        check("chord", chord(tasks.add.s(i, i) for i in range(10))(tasks.tsum.s()).get(timeout=RESULT_TIMEOUT),
              90)
        # The Redis backend keeps a chord's part results in a sorted set scored by
        # their index, so the body sees them in header order whatever order they
        # finished in.
        check("chord order", chord(tasks.echo.s(i) for i in range(8))(tasks.echo.s()).get(timeout=RESULT_TIMEOUT),
              list(range(8)))

        # Failure: the exception travels through the backend.
        bad = tasks.fail.delay("boom")
        try:
            got = bad.get(timeout=RESULT_TIMEOUT)
            raise Failed(f"fail: returned {got!r}, want ValueError")
        except ValueError as e:
            check("fail raises", str(e), "boom")
        check("fail state", bad.state, "FAILURE")

        # Retry republishes the task; countdown goes through the worker's timer.
        check("retry", tasks.flaky.delay(2).get(timeout=RESULT_TIMEOUT), 2)
        check("countdown", tasks.add.apply_async((20, 22), countdown=1).get(timeout=RESULT_TIMEOUT), 42)

        # What the backend and the broker left in the server.
        backend_db = redis.Redis(host="127.0.0.1", port=port, db=1)
        key = f"celery-task-meta-{res.id}"
        check("result key stored", backend_db.exists(key), 1)
        ttl = backend_db.ttl(key)
        check("result key expires", 500 < ttl <= 600, True)

        check("second ping", app.control.inspect(destination=[HOSTNAME], timeout=CONTROL_TIMEOUT).ping(),
              {HOSTNAME: {"ok": "pong"}})

        # Warm shutdown: the worker finishes and exits 0.
        worker.send_signal(signal.SIGTERM)
        try:
            code = worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise Failed("worker did not stop within 20s of SIGTERM")
        check("worker exit status", code, 0)
        log = worker_log(tmp)
        # The one task that fails on purpose logs an ERROR line; nothing else may.
        errors = [line for line in log.splitlines()
                  if ("ERROR/" in line or "CRITICAL/" in line) and "tasks.fail[" not in line]
        check("worker logged no errors", errors, [])
        check("worker logged the failing task", "tasks.fail[" in log, True)

        # With acks_late a message stays in the unacked hash until its task has
        # ended and stored its result; after the worker stops, none is left.
        broker_db = redis.Redis(host="127.0.0.1", port=port, db=0)
        check("queue drained", broker_db.llen("celery"), 0)
        check("nothing left unacked", (broker_db.hlen("unacked"), broker_db.zcard("unacked_index")), (0, 0))
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def main():
    port = int(sys.argv[1])
    signal.signal(signal.SIGALRM, on_deadline)
    signal.alarm(DEADLINE)
    tmp = tempfile.mkdtemp(prefix="shale-celery-")
    try:
        run(port, tmp)
    except (Exception, Deadline) as e:
        signal.alarm(0)
        # The FAIL line goes last: the Go test shows the output's tail.
        print("--- worker log ---")
        print(worker_log(tmp))
        print("--- end of worker log ---")
        print(f"FAIL {type(e).__name__}: {e}")
        sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    signal.alarm(0)
    print(f"PASS {CHECKS} checks")


if __name__ == "__main__":
    main()
