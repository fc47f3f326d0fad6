package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
)

// minBullMQChecks is how many checks clients/node/bullmq.js passes.
const minBullMQChecks = 17

// TestClientBullMQ runs clients/node/bullmq.js, a BullMQ queue, worker and
// QueueEvents over 2,000 jobs, with the bullmq that package-lock.json pins;
// make e2e runs `npm ci` first. BullMQ drives Lua scripts over hashes, lists
// and sorted sets, and reads its event stream with XREAD BLOCK.
func TestClientBullMQ(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("clients", "node")
	installed := filepath.Join(dir, "node_modules", "bullmq", "package.json")
	if _, err := os.Stat(installed); err != nil {
		t.Fatalf("bullmq is not installed: run `make e2e`, or `npm ci` in tests/%s (%v)", dir, err)
	}
	forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
		runClientScript(t, b, minBullMQChecks, nodeBin, dir, "bullmq.js")
	})
}
