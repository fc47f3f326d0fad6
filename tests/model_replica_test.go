package tests

import "testing"

// modelReplicaOps is the length of TestModelReplica's run, and
// modelReplicaRestartEvery the mean number of its steps between two
// restarts (half of them SIGKILLs) of the primary.
const (
	modelReplicaOps          = 3000
	modelReplicaRestartEvery = 300
)

// TestModelReplica runs the model test's sequence on a primary that a
// replica follows: every step is checked against the model on the
// primary, and after every restart or SIGKILL of the primary (which
// starts a new history the replica resumes in, on the primary's new
// port) and at the end, the replica must hold the same keyspace.
// Transactions, scripts, expiry, compactions and the reclaimer all reach
// the replica as the primary's batches.
func TestModelReplica(t *testing.T) {
	t.Parallel()
	const seed = modelDefaultSeed + 21
	gen := newOpGen(seed, modelReplicaRestartEvery)
	r := &modelRunner{t: t, m: newModel(), withReplica: true}
	res := runModelOn(r, modelReplicaOps, gen.next)
	if res.err != nil {
		t.Fatalf("model with a replica: seed %d: step %d failed: %v", seed, res.failed, res.err)
	}
	if res.restarts == 0 {
		t.Fatalf("the run restarted the primary %d times; it needs restarts to test resyncs", res.restarts)
	}
	t.Logf("model with a replica: %d operations, %d restarts of the primary, replica in sync after each", res.steps, res.restarts)
}
