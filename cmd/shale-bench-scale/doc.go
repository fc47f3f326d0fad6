// Command shale-bench-scale measures how Shale's costs grow with the size of
// its data, with a real redis-server beside it while Redis fits in memory,
// and writes the results as Markdown (docs/SCALE.md), CSV and PNG plots
// (docs/bench/scale*). `make bench-scale` runs it.
//
// It starts one Shale (default configuration) and one Redis (no automatic
// persistence) on loopback ports, and for each size of -sizes, smallest
// first:
//
//   - loads the keys the size adds to the previous one (keys.go: 100-byte
//     strings, and a tenth as many hashes of 100 small fields) with its own
//     pipelining loader (load.go), into Shale and then into Redis;
//   - waits, at most -settle, for Shale's compactions to finish;
//   - runs GET, SET, HGET and HSET under uniform and Zipf-distributed key
//     choice, 50 clients with one request in flight each, for -for per run,
//     in -rounds alternating rounds (Shale, Redis, Shale, Redis, ...), and
//     records throughput and latency percentiles (workload.go, histogram.go);
//   - samples each server's RSS throughout and reads VmHWM, and compares
//     Shale's with the bound its configuration implies (budget.go);
//   - runs SAVE and measures the data on disk;
//   - stops each server with SIGTERM and restarts it on the same data,
//     timing until it answers PING and serves a GET of a loaded key.
//
// The run is bounded by -max-time: a size whose load (estimated from the
// previous size's rate) and tests would end after it is skipped, and a load
// still running at the deadline is stopped. A size that would not fit on the
// work directory's disk is skipped too; Redis stops at the first size whose
// memory, estimated from the previous size, exceeds -redis-max-bytes. The
// report says what was skipped and why. It is rewritten after every size, so
// an interrupted run keeps what it measured.
//
// The machine is shared and the load generator runs on it, so absolute
// figures are noisy: Shale / Redis ratios are measured side by side at each
// size, and the figures of different sizes minutes apart.
//
// The harness starts every process itself and stops each by its PID,
// including on SIGINT or SIGTERM. It imports nothing of Shale's: it speaks
// RESP over TCP (resp.go) and reads /proc.
package main
