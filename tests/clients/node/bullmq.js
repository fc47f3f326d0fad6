// BullMQ as an application uses it, against one server on 127.0.0.1.
//
// Run by tests/bullmq_test.go, once against a real redis-server and once
// against shale-server, after `npm ci` in this directory (make e2e does it):
//
//	node bullmq.js PORT
//
// BullMQ keeps its jobs in hashes, lists and sorted sets, moves them with Lua
// scripts, and publishes every transition to a stream that QueueEvents reads
// with XREAD BLOCK. One queue gets 2,000 jobs: prioritized, plain, delayed,
// failing and retried with fixed and exponential backoff, failing for good,
// and the runs of a repeatable job (a job scheduler). Every check is what
// BullMQ reports against Redis: the script has no branch per server. It
// prints one line per check and, when all pass, "PASS <n> checks"; the first
// failure prints "FAIL ..." and exits 1.
"use strict";

const assert = require("node:assert/strict");
const { Queue, Worker, QueueEvents } = require("bullmq");
const Redis = require("ioredis");

const port = Number(process.argv[2]);
const queueName = "shale-e2e";
// BullMQ's workers need maxRetriesPerRequest: null; a dropped connection
// must fail the run rather than be retried until the timeout.
const connection = { host: "127.0.0.1", port, maxRetriesPerRequest: null, retryStrategy: () => null };

// The jobs, by name. prio runs alone first, to check the order of the
// prioritized set; the rest run together. tick is the repeatable job: its
// runs are counted in the 2,000 but not added by the script.
const counts = { prio: 200, plain: 1347, delayed: 200, flaky: 100, doomed: 100, once: 50 };
const ticks = 3;
const total = Object.values(counts).reduce((a, b) => a + b, 0) + ticks;
const wantCompleted = counts.prio + counts.plain + counts.delayed + counts.flaky + ticks;
const wantFailed = counts.doomed + counts.once;
assert.equal(wantCompleted + wantFailed, 2000);

const flakyBackoff = 50; // fixed, ms
const doomedBackoff = 20; // exponential base, ms: waits 20 then 40
const tickEvery = 200; // ms
// The queue writes about 9,500 events. Capping its stream at 5,000 makes
// every XADD trim (MAXLEN ~) while QueueEvents reads, yet leaves a reader
// thousands of events of slack.
const eventsMaxLen = 5000;

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

function fail(msg) {
  console.log(`FAIL ${msg}`);
  process.exit(1);
}

// priorityOf spreads the prio jobs over priorities 1..10, interleaved, so
// the order they run in is the prioritized set's, not the order of adding.
const priorityOf = (i) => 1 + ((i * 7) % 10);
const delayOf = (i) => 50 + (i % 10) * 50;

// processor is the worker's processor. Its return value and errors are what
// the checks below expect of each job name.
async function processor(job) {
  const { i } = job.data;
  switch (job.name) {
    case "flaky":
      // Fails its first two attempts; the third succeeds.
      if (job.attemptsMade < 2) throw new Error(`flaky ${i} attempt ${job.attemptsMade + 1}`);
      return { i, attempts: job.attemptsMade + 1 };
    case "doomed":
      throw new Error(`doomed ${i}`);
    case "once":
      throw new Error(`once ${i}`);
    case "tick":
      return { tick: true };
    default:
      return { i, double: i * 2 };
  }
}

// until resolves when cond() holds, polling every 20ms, and fails the run
// after ms with what it was waiting for.
async function until(what, cond, ms) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  // A hung server must fail the run, not stall it, before the Go test's own
  // 90s limit. Against Redis the run takes a few seconds.
  setTimeout(() => fail("timed out after 60s"), 60000).unref();

  const queue = new Queue(queueName, { connection, streams: { events: { maxLen: eventsMaxLen } } });
  queue.on("error", (e) => fail(`queue error: ${e.message}`));
  await queue.waitUntilReady();
  check("empty queue", await queue.getJobCounts(), {
    active: 0, completed: 0, delayed: 0, failed: 0, prioritized: 0, waiting: 0, "waiting-children": 0,
  });

  // QueueEvents reads the event stream from its start, so it sees every
  // event whenever its first XREAD BLOCK reaches the server; a 1s block
  // also times out, and is reissued, whenever the queue idles.
  const events = new QueueEvents(queueName, { connection, lastEventId: "0-0", blockingTimeout: 1000 });
  events.on("error", (e) => fail(`queue events error: ${e.message}`));
  const completedEvents = new Map(); // jobId -> returnvalue
  const failedEvents = new Map(); // jobId -> failedReason
  let duplicates = 0;
  events.on("completed", ({ jobId, returnvalue }) => {
    if (completedEvents.has(jobId)) duplicates++;
    completedEvents.set(jobId, returnvalue);
  });
  events.on("failed", ({ jobId, failedReason }) => {
    if (failedEvents.has(jobId)) duplicates++;
    failedEvents.set(jobId, failedReason);
  });
  // Every transition of every job, by event name: the scheduler's runs apart,
  // as the number of times it delays its next run depends on the clock.
  const transitions = { jobs: {}, ticks: {} };
  for (const name of ["added", "waiting", "delayed", "active", "completed", "failed", "retries-exhausted"]) {
    events.on(name, ({ jobId }) => {
      const of = jobId.startsWith("repeat:") ? transitions.ticks : transitions.jobs;
      of[name] = (of[name] || 0) + 1;
    });
  }
  await events.waitUntilReady();

  // A second reader, as applications create one: it reads from "$", the
  // stream's end when its first XREAD BLOCK arrives, and so sees at least
  // every job added after the first phase. Two clients block on one stream.
  const live = new QueueEvents(queueName, { connection });
  live.on("error", (e) => fail(`live queue events error: ${e.message}`));
  const liveFinished = new Set();
  live.on("completed", ({ jobId }) => liveFinished.add(jobId));
  live.on("failed", ({ jobId }) => liveFinished.add(jobId));
  await live.waitUntilReady();

  // Phase 1: the prioritized jobs wait for a worker of concurrency 1, which
  // must take them by priority, then in the order they were added.
  const prio = await queue.addBulk(
    Array.from({ length: counts.prio }, (_, i) => ({ name: "prio", data: { i }, opts: { priority: priorityOf(i) } })),
  );
  check("prioritized", await queue.getJobCounts("prioritized"), { prioritized: counts.prio });
  const order = [];
  const worker = new Worker(queueName, processor, { connection, concurrency: 1, autorun: false });
  worker.on("error", (e) => fail(`worker error: ${e.message}`));
  worker.on("completed", (job) => {
    if (job.name === "prio") order.push(job.data.i);
  });
  worker.run().catch((e) => fail(`worker run: ${e.message}`));
  await until("the prioritized jobs", () => order.length === counts.prio, 30000);
  const wantOrder = prio.map((j) => j.data.i).sort((a, b) => priorityOf(a) - priorityOf(b) || a - b);
  check("priority order", order, wantOrder);

  // Phase 2: everything else at once, on 16 concurrent jobs.
  worker.concurrency = 16;
  const bulk = [];
  for (let i = 0; i < counts.plain; i++) bulk.push({ name: "plain", data: { i } });
  for (let i = 0; i < counts.delayed; i++) bulk.push({ name: "delayed", data: { i }, opts: { delay: delayOf(i) } });
  for (let i = 0; i < counts.flaky; i++) {
    bulk.push({ name: "flaky", data: { i }, opts: { attempts: 3, backoff: { type: "fixed", delay: flakyBackoff } } });
  }
  for (let i = 0; i < counts.doomed; i++) {
    bulk.push({ name: "doomed", data: { i }, opts: { attempts: 3, backoff: { type: "exponential", delay: doomedBackoff } } });
  }
  for (let i = 0; i < counts.once; i++) bulk.push({ name: "once", data: { i } });
  for (let k = 0; k < bulk.length; k += 250) await queue.addBulk(bulk.slice(k, k + 250));
  await queue.upsertJobScheduler("tick", { every: tickEvery, limit: ticks }, { name: "tick", data: {} });

  await until(
    "the completed and failed events",
    () => completedEvents.size === wantCompleted && failedEvents.size === wantFailed,
    50000,
  );
  check("job counts", await queue.getJobCounts(), {
    active: 0, completed: wantCompleted, delayed: 0, failed: wantFailed, prioritized: 0, waiting: 0, "waiting-children": 0,
  });

  // Every completed job, as BullMQ reads it back.
  const completed = await queue.getJobs(["completed"], 0, -1);
  check("completed jobs read back", completed.length, wantCompleted);
  const byName = {};
  for (const job of completed) (byName[job.name] ||= []).push(job);
  check("completed by name", Object.fromEntries(Object.entries(byName).map(([n, js]) => [n, js.length]).sort()), {
    delayed: counts.delayed, flaky: counts.flaky, plain: counts.plain, prio: counts.prio, tick: ticks,
  });
  const bad = [];
  for (const job of completed) {
    const { i } = job.data;
    let want;
    switch (job.name) {
      case "flaky":
        want = { returnvalue: { i, attempts: 3 }, attemptsMade: 3 };
        // Two backoffs of flakyBackoff passed between adding and finishing.
        if (job.finishedOn - job.timestamp < 2 * flakyBackoff) bad.push(`${job.id} flaky finished too early`);
        break;
      case "tick":
        want = { returnvalue: { tick: true }, attemptsMade: 1 };
        break;
      default:
        want = { returnvalue: { i, double: i * 2 }, attemptsMade: 1 };
    }
    if (job.name === "delayed" && job.processedOn < job.timestamp + delayOf(i)) {
      bad.push(`${job.id} delayed ${delayOf(i)}ms ran after ${job.processedOn - job.timestamp}ms`);
    }
    try {
      assert.deepStrictEqual({ returnvalue: job.returnvalue, attemptsMade: job.attemptsMade }, want);
    } catch (e) {
      bad.push(`${job.id} ${job.name}: ${JSON.stringify({ returnvalue: job.returnvalue, attemptsMade: job.attemptsMade })}`);
    }
  }
  check("completed jobs as expected", bad.slice(0, 5), []);

  // The completed events carry the same jobs and return values.
  const eventBad = [];
  for (const job of completed) {
    const rv = completedEvents.get(job.id);
    if (rv === undefined) eventBad.push(`${job.id} no event`);
    else if (JSON.stringify(rv) !== JSON.stringify(job.returnvalue)) eventBad.push(`${job.id} event ${JSON.stringify(rv)}`);
  }
  check("completed events", eventBad.slice(0, 5), []);

  // Every failed job: its reason, and how many attempts it had.
  const failed = await queue.getJobs(["failed"], 0, -1);
  check("failed jobs read back", failed.length, wantFailed);
  const failBad = [];
  for (const job of failed) {
    const { i } = job.data;
    const want = job.name === "doomed"
      ? { failedReason: `doomed ${i}`, attemptsMade: 3, stacktrace: 3 }
      : { failedReason: `once ${i}`, attemptsMade: 1, stacktrace: 1 };
    const got = { failedReason: job.failedReason, attemptsMade: job.attemptsMade, stacktrace: job.stacktrace.length };
    if (JSON.stringify(got) !== JSON.stringify(want)) failBad.push(`${job.id} ${job.name}: ${JSON.stringify(got)}`);
    // Exponential backoff waited doomedBackoff, then twice that.
    if (job.name === "doomed" && job.finishedOn - job.timestamp < 3 * doomedBackoff) {
      failBad.push(`${job.id} doomed finished too early`);
    }
    if (failedEvents.get(job.id) !== job.failedReason) failBad.push(`${job.id} event ${JSON.stringify(failedEvents.get(job.id))}`);
  }
  check("failed jobs as expected", failBad.slice(0, 5), []);
  const prioIds = new Set(prio.map((j) => j.id));
  const missed = [...completed, ...failed].filter((j) => !prioIds.has(j.id) && !liveFinished.has(j.id)).map((j) => j.id);
  check("live reader saw the second phase", missed.slice(0, 5), []);
  check("no duplicate events", duplicates, 0);
  // Every job waits once, a delayed job after its delay; each retry is
  // delayed by its backoff, then waits again.
  const added = total - ticks;
  const retries = 2 * (counts.flaky + counts.doomed);
  check("job events", transitions.jobs, {
    added,
    waiting: added + retries,
    delayed: counts.delayed + retries,
    active: added + retries,
    completed: wantCompleted - ticks,
    failed: wantFailed,
    "retries-exhausted": wantFailed,
  });
  const { added: tickAdded, active: tickActive, completed: tickCompleted } = transitions.ticks;
  check("scheduler events", { added: tickAdded, active: tickActive, completed: tickCompleted }, { added: ticks, active: ticks, completed: ticks });

  // "~" trims whole nodes of at most 100 entries: a few more may stay.
  const r = new Redis(connection);
  const eventsLen = await r.xlen(queue.keys.events);
  check(`event stream trimmed (XLEN ${eventsLen})`, eventsLen >= eventsMaxLen && eventsLen < eventsMaxLen + 100, true);
  await r.quit();

  // The scheduler stays, having run up to its limit.
  const { key, name, iterationCount, limit, every } = await queue.getJobScheduler("tick");
  check("job scheduler", { key, name, iterationCount, limit, every }, { key: "tick", name: "tick", iterationCount: ticks, limit: ticks, every: tickEvery });
  check("job scheduler removed", await queue.removeJobScheduler("tick"), true);

  await worker.close();
  await events.close();
  await live.close();
  await queue.obliterate({ force: true });
  await queue.close();
  console.log(`PASS ${checks} checks`);
}

main().catch((e) => fail(`unexpected ${e.stack || e}`));
