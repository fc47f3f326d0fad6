package store

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/shaledb/shale/conf"
	"github.com/shaledb/shale/subkey"
)

// TestLeaderLetsReadyWritersJoin: writers made ready at the same moment
// share DB.Write calls. The first to queue leads, and lets the others run
// before it takes the queue, so that they queue behind it and its write
// carries theirs. With one P the others run only when the leader lets them
// (or the runtime's monitor takes the P from a long write): without the
// yield, each batch went alone, 160 writes for 160 batches; with it, most
// bursts take one write (the scheduler sometimes runs the leader again
// first: it checks the global run queue, where a yield puts it, every 61st
// turn).
func TestLeaderLetsReadyWritersJoin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	st, _ := openTestStore(t, conf.Default())
	const writers, bursts = 8, 20
	before := st.WaitStats().QueueWrites
	for burst := range bursts {
		start := make(chan struct{})
		errs := make(chan error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				b := st.NewBatch()
				defer b.Release()
				b.Put(CFSubkey, subkey.AppendKey(nil, 1, fmt.Appendf(nil, "f%d.%d", burst, i)), []byte("v"))
				errs <- st.Write(b)
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := st.WaitStats().QueueWrites - before; got > bursts*3/2 {
		t.Errorf("%d bursts of %d writers ready together made %d DB.Write calls, want at most %d", bursts, writers, got, bursts*3/2)
	} else {
		t.Logf("%d bursts of %d writers: %d DB.Write calls", bursts, writers, got)
	}
}
