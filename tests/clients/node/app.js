// ioredis as an application uses it, against one server on 127.0.0.1.
//
// Run by tests/clients_test.go, once against a real redis-server and once
// against shale-server, after `npm ci` in this directory (make e2e does it):
//
//	node app.js PORT            # the application
//	node app.js PORT PASSWORD   # connecting to a server with requirepass
//
// The script expects an empty server. Every check is Redis's own behaviour:
// the script has no branch per server. It prints one line per check and,
// when all pass, "PASS <n> checks"; the first failure prints "FAIL ..." and
// exits 1.
"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");
const { default: Redlock, ExecutionError } = require("redlock");
const { ReplyError } = Redis;

const port = Number(process.argv[2]);
let checks = 0;

function check(name, got, want) {
  try {
    assert.deepStrictEqual(got, want);
  } catch (e) {
    fail(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  checks++;
  console.log(`ok ${name}`);
}

// rejects awaits promise and checks it failed with a ReplyError whose
// message starts with prefix.
async function rejects(name, promise, prefix, errorClass = ReplyError) {
  let got;
  try {
    got = await promise;
  } catch (e) {
    if (!(e instanceof errorClass)) {
      fail(`${name}: ${e.constructor.name} ${e.message}, want a ReplyError`);
    }
    if (!e.message.startsWith(prefix)) {
      fail(`${name}: ${JSON.stringify(e.message)}, want a message starting ${JSON.stringify(prefix)}`);
    }
    checks++;
    console.log(`ok ${name}`);
    return;
  }
  fail(`${name}: returned ${JSON.stringify(got)}, want a ReplyError`);
}

function fail(msg) {
  console.log(`FAIL ${msg}`);
  process.exit(1);
}

function connect(opts = {}) {
  return new Redis({
    host: "127.0.0.1",
    port,
    // A failure must surface, not be retried until the test times out.
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    ...opts,
  });
}

// collect drains an ioredis scan stream (each batch is an array).
function collect(stream) {
  return new Promise((resolve, reject) => {
    const all = [];
    stream.on("data", (batch) => all.push(...batch));
    stream.on("end", () => resolve(all));
    stream.on("error", reject);
  });
}

// pairs turns [k1, v1, k2, v2, ...] into an object.
function pairs(flat) {
  const out = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function stringsAndExpiry(r) {
  check("set", await r.set("greeting", "héllo wörld"), "OK");
  check("get unicode", await r.get("greeting"), "héllo wörld");
  check("set nx on existing", await r.set("greeting", "x", "NX"), null);
  check("incr", await r.incr("visits"), 1);
  check("incrby", await r.incrby("visits", 41), 42);
  check("incrbyfloat", await r.incrbyfloat("price", "1.5"), "1.5");
  check("mset object", await r.mset({ a: "1", b: "2", c: "3" }), "OK");
  check("mget", await r.mget("a", "b", "missing", "c"), ["1", "2", null, "3"]);
  check("getdel", await r.getdel("a"), "1");

  check("set ex", await r.set("session", "tok", "EX", 100), "OK");
  const ttl = await r.ttl("session");
  check("ttl in range", ttl >= 95 && ttl <= 100, true);
  check("persist", await r.persist("session"), 1);
  check("ttl after persist", await r.ttl("session"), -1);
  check("ttl of missing key", await r.ttl("nobody"), -2);
  check("set px", await r.set("flash", "v", "PX", 150), "OK");
  check("pexpire", await r.pexpire("b", 150), 1);
  await sleep(400);
  check("expired get", await r.get("flash"), null);
  check("expired exists", await r.exists("flash", "b"), 0);

  const blob = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from("\r\n\0end")]);
  const key = Buffer.from("bin\0key");
  check("binary set", await r.set(key, blob), "OK");
  check("binary getBuffer", Buffer.compare(await r.getBuffer(key), blob), 0);
  check("binary strlen", await r.strlen(key), blob.length);
}

async function pipelines(r) {
  const p = r.pipeline();
  for (let i = 0; i < 200; i++) p.set(`p:${i}`, i);
  p.incr("p:counter").incr("p:counter").get("p:199");
  p.hset("p:hash", { f1: "v1", f2: "v2" }).hgetall("p:hash");
  const res = await p.exec();
  check("pipeline length", res.length, 205);
  check("pipeline no errors", res.every(([err]) => err === null), true);
  check("pipeline sets", res.slice(0, 200).every(([, v]) => v === "OK"), true);
  check("pipeline tail", res.slice(200).map(([, v]) => v), [1, 2, "199", 2, { f1: "v1", f2: "v2" }]);

  // One failing command does not stop the others; the error keeps its place.
  const mixed = await r
    .pipeline()
    .set("p:str", "x")
    .lpush("p:str", "y")
    .get("p:str")
    .call("SET", "p:k", "v", "BOGUS")
    .incr("p:str")
    .exec();
  check("pipeline ok before error", mixed[0], [null, "OK"]);
  check("pipeline wrongtype in place", mixed[1][0] instanceof ReplyError && mixed[1][0].message.startsWith("WRONGTYPE"), true);
  check("pipeline ok after error", mixed[2], [null, "x"]);
  check("pipeline syntax error in place", mixed[3][0].message, "ERR syntax error");
  check("pipeline not-integer in place", mixed[4][0].message, "ERR value is not an integer or out of range");

  // Auto-pipelining: concurrent commands from one client share round trips.
  const auto = connect({ enableAutoPipelining: true });
  const n = 300;
  const writes = await Promise.all(Array.from({ length: n }, (_, i) => auto.set(`auto:${i}`, `v${i}`)));
  check("autopipeline writes", writes.every((v) => v === "OK"), true);
  const reads = await Promise.all(Array.from({ length: n }, (_, i) => auto.get(`auto:${i}`)));
  check("autopipeline reads in order", reads, Array.from({ length: n }, (_, i) => `v${i}`));
  auto.disconnect();
}

// transactions: multi() with its exec results, an error inside EXEC, an
// EXECABORT, and WATCH with a conflict that makes exec() answer null.
async function transactions(r) {
  const res = await r.multi().set("tx:a", 1).incr("tx:a").get("tx:a").rpush("tx:l", "x", "y").lrange("tx:l", 0, -1).exec();
  check("multi exec results", res, [[null, "OK"], [null, 2], [null, "2"], [null, 2], [null, ["x", "y"]]]);

  // An error inside EXEC keeps its place and stops nothing.
  const mixed = await r.multi().lpush("tx:a", "x").incr("tx:a").exec();
  check("multi wrongtype in place", mixed[0][0] instanceof ReplyError && mixed[0][0].message.startsWith("WRONGTYPE"), true);
  check("multi incr after error", mixed[1], [null, 3]);

  // A command refused while queueing discards the transaction.
  await rejects("multi execabort", r.multi().incr("tx:a").call("SET", "tx:a").exec(),
    "EXECABORT Transaction discarded because of previous errors.");
  check("execabort wrote nothing", await r.get("tx:a"), "3");

  // multi({ pipeline: false }) sends MULTI at once; each command of the
  // client answers QUEUED until exec().
  check("multi without pipeline", await r.multi({ pipeline: false }), "OK");
  check("queued", await r.incr("tx:a"), "QUEUED");
  check("exec without pipeline", await r.exec(), [[null, 4]]);

  // WATCH: another client writes the key, and exec() answers null; the
  // retry, with nothing in between, commits.
  const other = connect();
  const watcher = connect();
  let tries = 0;
  for (;;) {
    tries++;
    await watcher.watch("tx:counter");
    const n = Number(await watcher.get("tx:counter"));
    if (tries === 1) await other.set("tx:counter", 100);
    const done = await watcher.multi().set("tx:counter", n + 1).exec();
    if (done !== null) {
      check("watch exec after retry", done, [[null, "OK"]]);
      break;
    }
    if (tries > 3) fail("watch: exec failed three times");
  }
  check("watch tries", tries, 2);
  check("watched value", await r.get("tx:counter"), "101");

  // UNWATCH ends the watch: the same conflict no longer fails exec().
  await watcher.watch("tx:counter");
  await other.incr("tx:counter");
  check("unwatch", await watcher.unwatch(), "OK");
  check("exec after unwatch", await watcher.multi().incr("tx:counter").exec(), [[null, 103]]);
  other.disconnect();
  watcher.disconnect();
}

async function scans(r) {
  const users = Array.from({ length: 250 }, (_, i) => `user:${i}`);
  const p = r.pipeline();
  for (const k of users) p.set(k, "u");
  for (let i = 0; i < 30; i++) p.sadd(`group:${i}`, "m");
  await p.exec();
  const got = await collect(r.scanStream({ match: "user:*", count: 17 }));
  check("scanStream match", [...new Set(got)].sort(), [...users].sort());
  const sets = await collect(r.scanStream({ type: "set", count: 50 }));
  check("scanStream type", [...new Set(sets)].sort(), Array.from({ length: 30 }, (_, i) => `group:${i}`).sort());

  const fields = {};
  for (let i = 0; i < 300; i++) fields[`field:${i}`] = String(i * i);
  await r.hset("profile", fields);
  check("hscanStream", pairs(await collect(r.hscanStream("profile", { count: 25 }))), fields);
  const members = Array.from({ length: 200 }, (_, i) => `m${i}`);
  await r.sadd("tags", members);
  check("sscanStream", [...new Set(await collect(r.sscanStream("tags", { count: 30 })))].sort(), [...members].sort());
  const board = [];
  for (let i = 0; i < 150; i++) board.push(i, `player${i}`);
  await r.zadd("board", ...board);
  const wantBoard = {};
  for (let i = 0; i < 150; i++) wantBoard[`player${i}`] = String(i);
  check("zscanStream", pairs(await collect(r.zscanStream("board", { count: 40 }))), wantBoard);
}

async function hashes(r) {
  check("hset object", await r.hset("user:ada", { name: "Ada", lang: "go", age: 36 }), 3);
  check("hget", await r.hget("user:ada", "name"), "Ada");
  check("hmget", await r.hmget("user:ada", "lang", "nope", "age"), ["go", null, "36"]);
  check("hincrby", await r.hincrby("user:ada", "age", 1), 37);
  check("hdel", await r.hdel("user:ada", "lang", "nope"), 1);
  check("hgetall", await r.hgetall("user:ada"), { name: "Ada", age: "37" });
  check("hgetall missing", await r.hgetall("user:nobody"), {});
  check("hlen", await r.hlen("user:ada"), 2);
}

async function lists(r) {
  check("rpush", await r.rpush("queue", "a", "b", "c"), 3);
  check("lpush", await r.lpush("queue", "z"), 4);
  check("lrange", await r.lrange("queue", 0, -1), ["z", "a", "b", "c"]);
  check("lpop count", await r.lpop("queue", 2), ["z", "a"]);
  check("rpop", await r.rpop("queue"), "c");
  check("lmove", await r.lmove("queue", "done", "LEFT", "RIGHT"), "b");

  const start = Date.now();
  check("blpop timeout", await r.blpop("empty:q", 1), null);
  check("blpop waited ~1s", Date.now() - start >= 800 && Date.now() - start < 3000, true);
  // A push from another client wakes the waiter.
  const pusher = connect();
  setTimeout(() => pusher.rpush("jobs", "job-1"), 200);
  check("blpop woken", await r.blpop("empty:q", "jobs", 5), ["jobs", "job-1"]);
  pusher.disconnect();
  await r.rpush("jobs", "job-2");
  check("brpop ready", await r.brpop("jobs", 1), ["jobs", "job-2"]);
  check("blmove timeout", await r.blmove("jobs", "working", "LEFT", "RIGHT", 0.5), null);
}

async function sets(r) {
  check("sadd", await r.sadd("s1", "a", "b", "c", "a"), 3);
  await r.sadd("s2", "b", "c", "d");
  check("sismember", await r.sismember("s1", "a"), 1);
  check("smembers", (await r.smembers("s1")).sort(), ["a", "b", "c"]);
  check("sinter", (await r.sinter("s1", "s2")).sort(), ["b", "c"]);
  check("sunionstore", await r.sunionstore("s3", "s1", "s2"), 4);
  check("smismember", await r.smismember("s1", "a", "d"), [1, 0]);
  check("srem", await r.srem("s1", "a", "zz"), 1);
}

async function sortedSets(r) {
  check("zadd", await r.zadd("scores", 10, "alice", 20, "bob", 15, "carol"), 3);
  check("zrange withscores", await r.zrange("scores", 0, -1, "WITHSCORES"), ["alice", "10", "carol", "15", "bob", "20"]);
  check("zrangebyscore limit", await r.zrangebyscore("scores", "-inf", "+inf", "LIMIT", 1, 1), ["carol"]);
  check("zincrby", await r.zincrby("scores", 10, "alice"), "20");
  check("zrevrank", await r.zrevrank("scores", "carol"), 2);
  check("zscore missing", await r.zscore("scores", "nobody"), null);
  check("zpopmin", await r.zpopmin("scores"), ["carol", "15"]);

  const start = Date.now();
  check("bzpopmin timeout", await r.bzpopmin("empty:z", 1), null);
  check("bzpopmin waited ~1s", Date.now() - start >= 800 && Date.now() - start < 3000, true);
  check("bzpopmax ready", await r.bzpopmax("empty:z", "scores", 1), ["scores", "bob", "20"]);
}

async function errors(r) {
  await r.set("plain", "v");
  await rejects("wrongtype lpush", r.lpush("plain", "x"), "WRONGTYPE Operation against a key holding the wrong kind of value");
  await rejects("wrongtype hgetall", r.hgetall("plain"), "WRONGTYPE");
  await rejects("wrongtype zadd", r.zadd("plain", 1, "m"), "WRONGTYPE");
  await rejects("syntax error", r.call("SET", "k", "v", "NOPE"), "ERR syntax error");
  await rejects("not an integer", r.incr("plain"), "ERR value is not an integer or out of range");
  await rejects("unknown command", r.call("NOSUCHCOMMAND", "x"), "ERR unknown command 'NOSUCHCOMMAND'");
  await rejects("wrong arity", r.call("GET"), "ERR wrong number of arguments for 'get' command");
  check("connection usable after errors", await r.get("plain"), "v");
}

// pubsub: a subscriber connection, messages on a channel and a pattern,
// and its subscriptions gone once it disconnects.
async function pubsub(r) {
  const sub = connect();
  sub.on("error", (e) => fail(`subscriber error: ${e.message}`));
  const got = [];
  const twoMessages = new Promise((resolve) => {
    const add = (m) => {
      got.push(m);
      if (got.length === 2) resolve();
    };
    sub.on("message", (channel, message) => add(["message", channel, message]));
    sub.on("pmessage", (pattern, channel, message) => add(["pmessage", pattern, channel, message]));
  });
  check("subscribe", await sub.subscribe("news", "alerts"), 2);
  check("psubscribe", await sub.psubscribe("news.*"), 3);
  check("publish to a channel", await r.publish("news", "hello"), 1);
  check("publish to a pattern", await r.publish("news.tech", "go"), 1);
  check("publish to nobody", await r.publish("sports", "x"), 0);
  await twoMessages;
  check("messages", got, [["message", "news", "hello"], ["pmessage", "news.*", "news.tech", "go"]]);
  check("pubsub numsub", await r.call("PUBSUB", "NUMSUB", "news", "nobody"), ["news", 1, "nobody", 0]);
  check("pubsub numpat", await r.call("PUBSUB", "NUMPAT"), 1);
  check("unsubscribe", await sub.unsubscribe("alerts"), 2);
  sub.disconnect();
  let numsub;
  for (let i = 0; i < 250; i++) {
    numsub = await r.call("PUBSUB", "NUMSUB", "news");
    if (numsub[1] === 0) break;
    await sleep(20);
  }
  check("numsub after the subscriber left", numsub, ["news", 0]);
}

// scripts: Lua as applications run it. Redlock (the redlock package, which
// locks with EVALSHA scripts and falls back to EVAL), ioredis's
// defineCommand, and a sliding-window rate limiter.
async function scripts(r) {
  const redlock = new Redlock([r], { retryCount: 0 });
  const lock = await redlock.acquire(["lock:a", "lock:b"], 10000);
  check("redlock holds", await r.mget("lock:a", "lock:b"), [lock.value, lock.value]);
  await rejects("redlock second acquire", redlock.acquire(["lock:b"], 10000), "The operation was unable to achieve a quorum", ExecutionError);
  const longer = await lock.extend(20000);
  check("redlock extend", (await r.pttl("lock:a")) > 10000, true);
  await longer.release();
  check("redlock released", await r.exists("lock:a", "lock:b"), 0);
  // A lock taken over by someone else is not released by the old holder.
  const mine = await redlock.acquire(["lock:c"], 10000);
  await r.set("lock:c", "someone-else");
  await rejects("redlock release of a stolen lock", mine.release(), "The operation was unable to achieve a quorum", ExecutionError);
  check("stolen lock kept", await r.get("lock:c"), "someone-else");

  r.defineCommand("incrCapped", {
    numberOfKeys: 1,
    lua: "local v = redis.call('incr', KEYS[1]) if v > tonumber(ARGV[1]) then redis.call('set', KEYS[1], ARGV[1]) return tonumber(ARGV[1]) end return v",
  });
  const capped = [];
  for (let i = 0; i < 5; i++) capped.push(await r.incrCapped("capped", 3));
  check("defineCommand", capped, [1, 2, 3, 3, 3]);

  const limiter = `
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - window)
if redis.call('zcard', KEYS[1]) >= limit then return 0 end
redis.call('zadd', KEYS[1], now, ARGV[4])
redis.call('pexpire', KEYS[1], window)
return 1`;
  const allowed = [];
  for (let i = 0; i < 6; i++) allowed.push(await r.eval(limiter, 1, "rate:user1", 1000 + i, 100, 4, `req${i}`));
  check("rate limiter window", allowed, [1, 1, 1, 1, 0, 0]);
  check("rate limiter after the window", await r.eval(limiter, 1, "rate:user1", 1200, 100, 4, "late"), 1);
}

async function server(r) {
  check("ping", await r.ping(), "PONG");
  check("client getname", await r.client("GETNAME"), "shale-e2e-node");
  const info = await r.info();
  check("info has version", /\r\nredis_version:\S+\r\n/.test(info), true);
  const keys = await r.dbsize();
  const m = /\r\ndb0:keys=(\d+),/.exec(await r.info("keyspace"));
  check("info keyspace", m && Number(m[1]), keys);
  check("type", await Promise.all(["plain", "profile", "tags", "done", "board", "nobody"].map((k) => r.type(k))),
    ["string", "hash", "set", "list", "zset", "none"]);
  const other = connect({ db: 3 });
  check("select other db", await other.dbsize(), 0);
  other.disconnect();
  check("flushdb", await r.flushdb(), "OK");
  check("dbsize after flush", await r.dbsize(), 0);
}

// withPassword is an application connecting to a server with requirepass.
async function withPassword(password) {
  const r = connect({ password, db: 2, connectionName: "shale-e2e-node" });
  r.on("error", (e) => fail(`connection error: ${e.message}`));
  check("auth ping", await r.ping(), "PONG");
  check("auth client getname", await r.client("GETNAME"), "shale-e2e-node");
  const p = r.pipeline();
  for (let i = 0; i < 50; i++) p.set(`k${i}`, i);
  check("auth pipeline", (await p.exec()).map(([err, v]) => err || v), Array(50).fill("OK"));
  check("auth selected db", await r.dbsize(), 50);
  const acl = connect({ username: "default", password });
  check("auth as default user", await acl.get("k1"), null); // db 0 is empty

  // Without the password, or with a wrong one, the error event and the
  // command's rejection carry the server's reply.
  for (const [name, opts, want] of [
    ["no password", {}, "NOAUTH Authentication required."],
    ["wrong password", { password: "wrong" }, "WRONGPASS invalid username-password pair or user is disabled."],
  ]) {
    const c = connect(opts);
    const event = new Promise((resolve) => c.once("error", resolve));
    await rejects(name, c.get("k1"), want);
    check(`${name} error event`, (await event).message, want);
    c.disconnect();
  }
  await r.quit();
  await acl.quit();
  console.log(`PASS ${checks} checks`);
}

async function main() {
  // A hung server must fail the run, not stall it.
  setTimeout(() => fail("timed out after 60s"), 60000).unref();
  if (process.argv[3] !== undefined) {
    await withPassword(process.argv[3]);
    return;
  }
  const r = connect({ connectionName: "shale-e2e-node" });
  r.on("error", (e) => fail(`connection error: ${e.message}`));
  check("empty server", await r.dbsize(), 0);
  await stringsAndExpiry(r);
  await pipelines(r);
  await transactions(r);
  await scans(r);
  await hashes(r);
  await lists(r);
  await sets(r);
  await sortedSets(r);
  await errors(r);
  await pubsub(r);
  await scripts(r);
  await server(r);
  await r.quit();
  console.log(`PASS ${checks} checks`);
}

main().catch((e) => fail(`unexpected ${e.stack || e}`));
