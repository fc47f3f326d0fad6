package server

// A loop's lander lands writes the loop queued while the loop serves the
// rest of its turn. A turn of pipelines (a bulk loader, redis-benchmark
// -P 16) queues hundreds of commands' groups, and their one RocksDB write,
// the memtable inserts mostly, took a third of the loop's time, on the one
// core the loop runs on. Once launchAfter commands are queued and not yet
// handed over, and the turn has connections left to serve, the loop hands
// those groups' writes to its lander goroutine, which leads them on
// another core (writeQueue.lead); land takes the results back before it
// lands the rest. Clients that send one command at a time never queue
// launchAfter of them in a turn: for them a second busy thread, competing
// with the clients for the cores, cost more than it gave (BENCHMARKS.md).
//
// The lander awaits the groups' writes as the loop would have, in the
// order they queued; nothing else changes: their replies still wait for
// the turn's end (finish), and a write the lander leads is not unled, so
// the loop may wait for a lock meanwhile, having landed (land) as before.

// launchAfter is how many commands a loop queues, not yet handed to its
// lander, before it hands them over. Fewer made smaller writes and more
// hand-overs for no gain under redis-benchmark -P 16 (BENCHMARKS.md).
const launchAfter = 128

// landJob is a run of the turn's queued groups that the lander lands:
// l.pending[from : from+len(waits)].
type landJob struct {
	from  int
	waits []func() error
	errs  []error
}

// lander lands the jobs its loop hands it, one at a time, until the loop
// closes landerIn.
func (l *eventLoop) lander() {
	for j := range l.landerIn {
		for i, wait := range j.waits {
			j.errs[i] = wait()
		}
		l.landerOut <- j
	}
}

// launchWrites hands the groups queued since the last hand-over to the
// lander, when they hold launchAfter commands and it is free.
func (l *eventLoop) launchWrites() {
	if l.unlaunched < launchAfter || !l.collect(false) {
		return
	}
	j := &l.job
	j.from = l.launched
	for _, g := range l.pending[l.launched:] {
		j.waits = append(j.waits, g.wait)
	}
	j.errs = append(j.errs[:0], make([]error, len(j.waits))...)
	l.launched, l.unlaunched = len(l.pending), 0
	l.landing = true
	l.s.loops.landerJobs.Add(1)
	l.landerIn <- j
}

// collect takes the lander's job back once its writes have landed,
// waiting for them if wait is set, and reports whether the lander is free.
func (l *eventLoop) collect(wait bool) bool {
	if !l.landing {
		return true
	}
	var j *landJob
	if wait {
		j = <-l.landerOut
	} else {
		select {
		case j = <-l.landerOut:
		default:
			return false
		}
	}
	for i, err := range j.errs {
		g := &l.pending[j.from+i]
		g.err, g.done = err, true
	}
	clear(j.waits)
	j.waits = j.waits[:0]
	l.landing = false
	return true
}
