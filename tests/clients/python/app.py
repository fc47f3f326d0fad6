"""redis-py as an application uses it, against one server on 127.0.0.1.

Run by tests/clients_test.go with Debian's /usr/bin/python3 and its
python3-redis package (redis-py 4.3.x), once against a real redis-server and
once against shale-server:

    /usr/bin/python3 app.py PORT            # the application
    /usr/bin/python3 app.py PORT PASSWORD   # connecting to a server with requirepass
    /usr/bin/python3 app.py PORT --bulk     # one pipeline bigger than the socket buffers

The script expects an empty server. Every check is Redis's own behaviour: the
script has no branch per server. It prints one line per check and, when all
pass, "PASS <n> checks"; the first failure prints "FAIL ..." and exits 1.
"""

import sys
import threading
import time

import redis

CHECKS = 0


def check(name, got, want):
    global CHECKS
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)
    CHECKS += 1
    print(f"ok {name}")


def raises(name, exc_type, prefix, fn, *args, **kwargs):
    """Runs fn and checks it raised exc_type with a message starting with prefix."""
    global CHECKS
    try:
        got = fn(*args, **kwargs)
    except exc_type as e:
        if not str(e).startswith(prefix):
            print(f"FAIL {name}: {type(e).__name__} {str(e)!r}, want a message starting {prefix!r}")
            sys.exit(1)
        CHECKS += 1
        print(f"ok {name}")
        return
    except Exception as e:  # the wrong exception class
        print(f"FAIL {name}: raised {type(e).__name__}: {e}, want {exc_type.__name__}")
        sys.exit(1)
    print(f"FAIL {name}: returned {got!r}, want {exc_type.__name__}")
    sys.exit(1)


def strings_and_expiry(r):
    check("set", r.set("greeting", "héllo wörld"), True)
    check("get unicode", r.get("greeting"), "héllo wörld")
    check("set nx on existing", r.set("greeting", "x", nx=True), None)
    check("set xx on missing", r.set("nobody", "x", xx=True), None)
    check("incr", r.incr("visits"), 1)
    check("incrby", r.incrby("visits", 41), 42)
    check("incrbyfloat", r.incrbyfloat("price", 1.5), 1.5)
    check("mset", r.mset({"a": "1", "b": "2", "c": "3"}), True)
    check("mget", r.mget(["a", "b", "missing", "c"]), ["1", "2", None, "3"])
    check("append", r.append("a", "00"), 3)
    check("getdel", r.getdel("a"), "100")
    check("exists after getdel", r.exists("a"), 0)

    # Expiry: relative, absolute, removal, and a key that really expires.
    check("setex", r.setex("session", 100, "tok"), True)
    ttl = r.ttl("session")
    check("ttl in range", 95 <= ttl <= 100, True)
    check("persist", r.persist("session"), True)
    check("ttl after persist", r.ttl("session"), -1)
    check("ttl of missing key", r.ttl("nobody"), -2)
    check("expire", r.expire("session", 50), True)
    check("pexpire", r.pexpire("b", 150), True)
    check("set px", r.set("flash", "v", px=150), True)
    pttl = r.pttl("flash")
    check("pttl in range", 0 < pttl <= 150, True)
    time.sleep(0.4)
    check("expired get", r.get("flash"), None)
    check("expired exists", r.exists("flash", "b"), 0)
    check("expireat past deletes", r.expireat("c", 1), True)
    check("expireat key gone", r.get("c"), None)

    # Binary-safe values through a client that does not decode.
    raw = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"])
    blob = bytes(range(256)) + b"\r\n\x00end"
    check("binary set", raw.set(b"bin\x00key", blob), True)
    check("binary get", raw.get(b"bin\x00key"), blob)
    check("binary strlen", raw.strlen(b"bin\x00key"), len(blob))
    raw.close()


def pipelines(r):
    # redis-py's pipeline() wraps its commands in MULTI/EXEC by default.
    p = r.pipeline()
    for i in range(200):
        p.set(f"p:{i}", i)
    p.incr("p:counter")
    p.incr("p:counter")
    p.get("p:199")
    p.hset("p:hash", mapping={"f1": "v1", "f2": "v2"})
    p.hgetall("p:hash")
    res = p.execute()
    check("pipeline length", len(res), 205)
    check("pipeline sets", all(x is True for x in res[:200]), True)
    check("pipeline tail", res[200:], [1, 2, "199", 2, {"f1": "v1", "f2": "v2"}])

    # One failing command does not stop the others; the error keeps its place.
    p = r.pipeline()
    p.set("p:str", "x")
    p.lpush("p:str", "y")  # WRONGTYPE
    p.get("p:str")
    p.execute_command("SET", "p:k", "v", "BOGUS")  # syntax error
    p.incr("p:str")  # not an integer
    res = p.execute(raise_on_error=False)
    check("pipeline ok before error", res[0], True)
    check("pipeline wrongtype in place", isinstance(res[1], redis.exceptions.ResponseError)
          and str(res[1]).startswith("WRONGTYPE"), True)
    check("pipeline ok after error", res[2], "x")
    check("pipeline syntax error in place", str(res[3]), "syntax error")
    check("pipeline not-integer in place", str(res[4]), "value is not an integer or out of range")

    p = r.pipeline()
    p.get("p:str")
    p.lpush("p:str", "y")
    raises("pipeline raise_on_error", redis.exceptions.ResponseError,
           "Command # 2 (LPUSH p:str y) of pipeline caused error: WRONGTYPE", p.execute)

    # Applications that only batch round trips, without MULTI/EXEC.
    p = r.pipeline(transaction=False)
    for i in range(50):
        p.incr("p:batched")
    check("pipeline without transaction", p.execute(), list(range(1, 51)))


def transactions(r):
    """MULTI/EXEC and WATCH as redis-py applications use them."""
    # The default pipeline is a transaction: its commands read each other's
    # writes, and nothing else runs between them.
    p = r.pipeline()
    p.set("tx:a", 1)
    p.incr("tx:a")
    p.get("tx:a")
    p.rpush("tx:l", "x", "y")
    p.lrange("tx:l", 0, -1)
    check("transaction results", p.execute(), [True, 2, "2", 2, ["x", "y"]])

    # A command refused while queueing discards the transaction: redis-py
    # raises that command's error, and nothing was written.
    p = r.pipeline()
    p.incr("tx:a")
    p.execute_command("SET", "tx:a")
    raises("transaction execabort", redis.exceptions.ResponseError,
           "Command # 2 (SET tx:a) of pipeline caused error: wrong number of arguments for 'set' command",
           p.execute)
    check("execabort wrote nothing", r.get("tx:a"), "2")

    # r.transaction: the function runs with the keys watched; another
    # client writes one during the first call, so EXEC fails and redis-py
    # calls the function again.
    other = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"],
                        decode_responses=True)
    calls = []

    def add_one(pipe):
        calls.append(1)
        n = int(pipe.get("tx:counter") or 0)
        if len(calls) == 1:
            other.set("tx:counter", 100)
        pipe.multi()
        pipe.set("tx:counter", n + 1)
        return n + 1

    check("transaction retried", r.transaction(add_one, "tx:counter", value_from_callable=True), 101)
    check("transaction calls", len(calls), 2)
    check("transaction result", r.get("tx:counter"), "101")

    # WATCH by hand: WatchError when the key changed, and the watch ends.
    with r.pipeline() as pipe:
        pipe.watch("tx:counter")
        n = int(pipe.get("tx:counter"))
        other.incr("tx:counter")
        pipe.multi()
        pipe.set("tx:counter", n * 2)
        raises("watch error", redis.exceptions.WatchError, "Watched variable changed.", pipe.execute)
        check("watch error wrote nothing", r.get("tx:counter"), "102")
        pipe.watch("tx:counter")
        n = int(pipe.get("tx:counter"))
        pipe.multi()
        pipe.set("tx:counter", n * 2)
        check("watch then exec", pipe.execute(), [True])
    check("watched value", r.get("tx:counter"), "204")

    # Threads incrementing one key with r.transaction lose no update.
    def incr_many():
        def incr(pipe):
            n = int(pipe.get("tx:shared") or 0)
            pipe.multi()
            pipe.set("tx:shared", n + 1)
        for _ in range(50):
            r.transaction(incr, "tx:shared")

    threads = [threading.Thread(target=incr_many) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("concurrent transactions", r.get("tx:shared"), "200")
    other.close()


def scans(r):
    users = {f"user:{i}" for i in range(250)}
    p = r.pipeline()
    for k in users:
        p.set(k, "u")
    for i in range(30):
        p.sadd(f"group:{i}", "m")
    p.execute()
    check("scan_iter match", set(r.scan_iter(match="user:*", count=17)), users)
    check("scan_iter type", set(r.scan_iter(_type="set", count=50)), {f"group:{i}" for i in range(30)})
    cursor, batch = r.scan(0, match="nomatch:*", count=1000)
    check("scan no match", batch, [])

    fields = {f"field:{i}": str(i * i) for i in range(300)}
    r.hset("profile", mapping=fields)
    check("hscan_iter", dict(r.hscan_iter("profile", count=25)), fields)
    check("hscan_iter match", dict(r.hscan_iter("profile", match="field:1?")),
          {f"field:{i}": str(i * i) for i in range(10, 20)})
    members = {f"m{i}" for i in range(200)}
    r.sadd("tags", *members)
    check("sscan_iter", set(r.sscan_iter("tags", count=30)), members)
    r.zadd("board", {f"player{i}": i for i in range(150)})
    check("zscan_iter", dict(r.zscan_iter("board", count=40)), {f"player{i}": float(i) for i in range(150)})


def hashes(r):
    check("hset mapping", r.hset("user:ada", mapping={"name": "Ada", "lang": "go", "age": "36"}), 3)
    check("hget", r.hget("user:ada", "name"), "Ada")
    check("hmget", r.hmget("user:ada", ["lang", "nope", "age"]), ["go", None, "36"])
    check("hincrby", r.hincrby("user:ada", "age", 1), 37)
    check("hincrbyfloat", r.hincrbyfloat("user:ada", "score", 0.25), 0.25)
    check("hexists", r.hexists("user:ada", "lang"), True)
    check("hdel", r.hdel("user:ada", "lang", "nope"), 1)
    check("hlen", r.hlen("user:ada"), 3)
    check("hkeys", sorted(r.hkeys("user:ada")), ["age", "name", "score"])
    check("hgetall", r.hgetall("user:ada"), {"name": "Ada", "age": "37", "score": "0.25"})
    check("hgetall missing", r.hgetall("user:nobody"), {})
    check("hsetnx existing", r.hsetnx("user:ada", "name", "Bob"), False)


def lists(r):
    check("rpush", r.rpush("queue", "a", "b", "c"), 3)
    check("lpush", r.lpush("queue", "z"), 4)
    check("lrange", r.lrange("queue", 0, -1), ["z", "a", "b", "c"])
    check("lpop count", r.lpop("queue", 2), ["z", "a"])
    check("rpop", r.rpop("queue"), "c")
    check("linsert", r.linsert("queue", "BEFORE", "b", "a"), 2)
    check("lindex", r.lindex("queue", -1), "b")
    check("lmove", r.lmove("queue", "done", "LEFT", "RIGHT"), "a")
    check("llen", r.llen("done"), 1)

    # Blocking pops: a timeout returns None after about the timeout ...
    start = time.monotonic()
    check("blpop timeout", r.blpop(["empty:q"], timeout=1), None)
    waited = time.monotonic() - start
    check("blpop waited ~1s", 0.8 <= waited < 3, True)
    # ... and a push from another client wakes the waiter.
    pusher = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"])
    t = threading.Timer(0.2, lambda: pusher.rpush("jobs", "job-1"))
    t.start()
    check("blpop woken", r.blpop(["empty:q", "jobs"], timeout=5), ("jobs", "job-1"))
    t.join()
    pusher.close()
    r.rpush("jobs", "job-2")
    check("brpoplpush", r.brpoplpush("jobs", "working", timeout=1), "job-2")
    check("brpop timeout", r.brpop("jobs", timeout=1), None)


def sets(r):
    check("sadd", r.sadd("s1", "a", "b", "c", "a"), 3)
    r.sadd("s2", "b", "c", "d")
    check("sismember", r.sismember("s1", "a"), True)
    check("smembers", r.smembers("s1"), {"a", "b", "c"})
    check("sinter", r.sinter("s1", "s2"), {"b", "c"})
    check("sunionstore", r.sunionstore("s3", ["s1", "s2"]), 4)
    check("sdiff", r.sdiff("s1", "s2"), {"a"})
    popped = r.spop("s3")
    check("spop", popped in {"a", "b", "c", "d"} and r.scard("s3") == 3, True)
    check("srem", r.srem("s1", "a", "zz"), 1)


def sorted_sets(r):
    check("zadd", r.zadd("scores", {"alice": 10, "bob": 20, "carol": 15}), 3)
    check("zadd xx ch", r.zadd("scores", {"alice": 12, "dave": 1}, xx=True, ch=True), 1)
    check("zrange withscores", r.zrange("scores", 0, -1, withscores=True),
          [("alice", 12.0), ("carol", 15.0), ("bob", 20.0)])
    check("zrevrange", r.zrevrange("scores", 0, 0), ["bob"])
    check("zrangebyscore", r.zrangebyscore("scores", 11, "(20"), ["alice", "carol"])
    check("zincrby", r.zincrby("scores", 10, "alice"), 22.0)
    check("zrank", r.zrank("scores", "alice"), 2)
    check("zscore missing", r.zscore("scores", "nobody"), None)
    check("zcount", r.zcount("scores", "-inf", "+inf"), 3)
    check("zpopmin", r.zpopmin("scores"), [("carol", 15.0)])

    start = time.monotonic()
    check("bzpopmin timeout", r.bzpopmin(["empty:z"], timeout=1), None)
    check("bzpopmin waited ~1s", 0.8 <= time.monotonic() - start < 3, True)
    check("bzpopmin ready", r.bzpopmin(["empty:z", "scores"], timeout=1), ("scores", "bob", 20.0))
    check("bzpopmax ready", r.bzpopmax("scores", timeout=1), ("scores", "alice", 22.0))
    check("zset emptied", r.exists("scores"), 0)


def errors(r):
    r.set("plain", "v")
    raises("wrongtype lpush", redis.exceptions.ResponseError,
           "WRONGTYPE Operation against a key holding the wrong kind of value", r.lpush, "plain", "x")
    raises("wrongtype hget", redis.exceptions.ResponseError, "WRONGTYPE", r.hget, "plain", "f")
    raises("wrongtype zadd", redis.exceptions.ResponseError, "WRONGTYPE", r.zadd, "plain", {"m": 1})
    raises("syntax error", redis.exceptions.ResponseError, "syntax error",
           r.execute_command, "SET", "k", "v", "NOPE")
    raises("not an integer", redis.exceptions.ResponseError, "value is not an integer or out of range",
           r.incr, "plain")
    raises("unknown command", redis.exceptions.ResponseError, "unknown command 'NOSUCHCOMMAND'",
           r.execute_command, "NOSUCHCOMMAND", "x")
    raises("wrong arity", redis.exceptions.ResponseError, "wrong number of arguments for 'get' command",
           r.execute_command, "GET")
    raises("bad expire", redis.exceptions.ResponseError, "value is not an integer or out of range",
           r.execute_command, "EXPIRE", "plain", "soon")
    raises("auth without password", redis.exceptions.ResponseError,
           "AUTH <password> called without any password configured", r.execute_command, "AUTH", "pw")
    check("connection usable after errors", r.get("plain"), "v")


def pubsub(r):
    """A subscriber read with get_message, as an event loop would."""
    p = r.pubsub()
    p.subscribe("news", "alerts")
    p.psubscribe("news.*")
    got = [p.get_message(timeout=5) for _ in range(3)]
    check("subscribe replies", [(m["type"], m["channel"], m["data"]) for m in got],
          [("subscribe", "news", 1), ("subscribe", "alerts", 2), ("psubscribe", "news.*", 3)])
    check("publish to a channel", r.publish("news", "hello"), 1)
    check("publish to a pattern", r.publish("news.tech", "go"), 1)
    got = [p.get_message(timeout=5) for _ in range(2)]
    check("messages", [(m["type"], m["pattern"], m["channel"], m["data"]) for m in got],
          [("message", None, "news", "hello"), ("pmessage", "news.*", "news.tech", "go")])
    check("pubsub numsub", r.pubsub_numsub("news", "nobody"), [("news", 1), ("nobody", 0)])
    check("pubsub numpat", r.pubsub_numpat(), 1)
    check("pubsub channels", sorted(r.pubsub_channels()), ["alerts", "news"])
    p.close()
    deadline = time.time() + 5
    while r.pubsub_numsub("news") != [("news", 0)] and time.time() < deadline:
        time.sleep(0.02)
    check("numsub after the subscriber left", r.pubsub_numsub("news"), [("news", 0)])


# Sidekiq's scheduler moves due jobs with a script like this one: pop the
# first job whose score (run-at time) is due.
ZPOPBYSCORE = """
local key, now = KEYS[1], ARGV[1]
local jobs = redis.call("zrangebyscore", key, "-inf", now, "limit", 0, 1)
if jobs[1] then
  redis.call("zrem", key, jobs[1])
  return jobs[1]
end
"""


def scripts(r):
    """Lua as redis-py applications run it: register_script (EVALSHA with
    an EVAL fallback), redis-py's Lock, and Sidekiq's zpopbyscore."""
    r.script_flush()
    zpop = r.register_script(ZPOPBYSCORE)
    r.zadd("schedule", {"job-late": 300, "job-a": 100, "job-b": 200})
    check("zpopbyscore first", zpop(keys=["schedule"], args=[250]), "job-a")
    check("zpopbyscore second", zpop(keys=["schedule"], args=[250]), "job-b")
    check("zpopbyscore none due", zpop(keys=["schedule"], args=[250]), None)
    check("zpopbyscore left", r.zrange("schedule", 0, -1), ["job-late"])
    check("script cached", r.script_exists(zpop.sha), [True])

    lock = r.lock("resource", timeout=10)
    check("lock acquire", lock.acquire(blocking=False), True)
    check("lock held elsewhere", r.lock("resource", timeout=10).acquire(blocking=False), False)
    lock.extend(10)
    check("lock extended", r.pttl("resource") > 10000, True)
    lock.release()
    check("lock released", r.exists("resource"), 0)
    stolen = r.lock("resource2", timeout=10)
    stolen.acquire(blocking=False)
    r.set("resource2", "someone-else")
    raises("release of a stolen lock", redis.exceptions.LockNotOwnedError,
           "Cannot release a lock that's no longer owned", stolen.release)

    # redis-py drops the error's ERR code.
    raises("script error", redis.exceptions.ResponseError, "user_script:1: boom script: ", r.eval, "error('boom')", 0)


def server(r):
    check("ping", r.ping(), True)
    check("echo", r.echo("hi"), "hi")
    check("client getname", r.client_getname(), "shale-e2e-py")
    check("client id", isinstance(r.client_id(), int), True)
    check("client info parsed", r.client_info()["name"], "shale-e2e-py")
    check("client list parsed", [c["name"] for c in r.client_list() if c["id"] == str(r.client_id())],
          ["shale-e2e-py"])
    info = r.info()
    check("info parsed", "redis_version" in info and "connected_clients" in info, True)
    keys = r.dbsize()
    check("info keyspace", r.info("keyspace")["db0"]["keys"], keys)
    seconds, micros = r.time()
    check("time", abs(seconds - time.time()) < 5 and 0 <= micros < 1_000_000, True)
    check("type", [r.type(k) for k in ("plain", "profile", "tags", "done", "board", "nobody")],
          ["string", "hash", "set", "list", "zset", "none"])
    check("select other db", redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"],
                                         db=3).dbsize(), 0)
    check("flushdb", r.flushdb(), True)
    check("dbsize after flush", r.dbsize(), 0)


def with_password(port, password):
    """An application connecting to a server with requirepass."""
    r = redis.Redis(host="127.0.0.1", port=port, password=password, db=2, decode_responses=True,
                    client_name="shale-e2e-py", socket_timeout=30)
    check("auth ping", r.ping(), True)
    check("auth client getname", r.client_getname(), "shale-e2e-py")
    p = r.pipeline()
    for i in range(50):
        p.set(f"k{i}", i)
    check("auth pipeline", p.execute(), [True] * 50)
    check("auth selected db", r.dbsize(), 50)
    acl = redis.Redis(host="127.0.0.1", port=port, username="default", password=password, decode_responses=True)
    check("auth as default user", acl.get("k1"), None)  # db 0 is empty
    anon = redis.Redis(host="127.0.0.1", port=port)
    raises("no password", redis.exceptions.AuthenticationError, "Authentication required.", anon.get, "k1")
    wrong = redis.Redis(host="127.0.0.1", port=port, password="wrong")
    raises("wrong password", redis.exceptions.ResponseError,
           "WRONGPASS invalid username-password pair or user is disabled.", wrong.ping)
    for c in (r, acl, anon, wrong):
        c.close()
    print(f"PASS {CHECKS} checks")


def bulk(port):
    """A bulk load that reads back as it goes, in one pipeline.

    redis-py sends a whole pipeline before it reads a reply. Here both the
    commands (about 10 MB) and the replies (about 10 MB) outgrow the socket
    buffers, so the server must keep reading commands while the client is not
    yet reading replies, as Redis does by buffering the replies.
    """
    r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=30)
    value = b"v" * 1000
    n = 10000
    # Both as a plain pipeline and as the default one, a transaction whose
    # EXEC answers with one reply of about 10 MB.
    for transaction in (False, True):
        p = r.pipeline(transaction=transaction)
        for i in range(n):
            p.set(b"bulk:%d:%d" % (transaction, i), value)
            p.get(b"bulk:%d:%d" % (transaction, i))
        res = p.execute()
        check(f"bulk replies (transaction={transaction})", len(res), 2 * n)
        check(f"bulk sets (transaction={transaction})", all(x is True for x in res[0::2]), True)
        check(f"bulk gets (transaction={transaction})", all(x == value for x in res[1::2]), True)
    check("bulk dbsize", r.dbsize(), 2 * n)
    r.close()
    print(f"PASS {CHECKS} checks")


def main():
    port = int(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "--bulk":
        bulk(port)
        return
    if len(sys.argv) > 2:
        with_password(port, sys.argv[2])
        return
    r = redis.Redis(host="127.0.0.1", port=port, decode_responses=True, client_name="shale-e2e-py",
                    socket_timeout=30)
    check("empty server", r.dbsize(), 0)
    strings_and_expiry(r)
    pipelines(r)
    transactions(r)
    scans(r)
    hashes(r)
    lists(r)
    sets(r)
    sorted_sets(r)
    errors(r)
    pubsub(r)
    scripts(r)
    server(r)
    r.close()
    print(f"PASS {CHECKS} checks")


if __name__ == "__main__":
    main()
