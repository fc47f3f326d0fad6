package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// minCeleryChecks guards against a driver that exits 0 having checked little.
const minCeleryChecks = 25

// TestClientCelery runs clients/celery/driver.py with Debian's Celery: a
// worker whose broker (kombu's Redis transport: lists, a sorted set, a hash,
// PUBLISH for broadcasts) and result backend (MULTI/EXEC pipelines to store,
// SUBSCRIBE to wait) are both the server under test runs tasks, a group and
// a chord, and answers inspect ping.
func TestClientCelery(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(debianPython, "-c", "import celery, kombu; print(celery.__version__, kombu.__version__)").CombinedOutput()
	if err != nil {
		t.Fatalf("%s cannot import celery (make deps installs python3-celery and python3-kombu): %v\n%s", debianPython, err, out)
	}
	if v := strings.Fields(string(out)); len(v) == 2 {
		t.Logf("celery %s, kombu %s", v[0], v[1])
	}
	dir := filepath.Join("clients", "celery")
	forEachBackend(t, func(t *testing.T, _ *redis.Client, b backend) {
		runClientScript(t, b, minCeleryChecks, debianPython, dir, "driver.py")
	})
}
