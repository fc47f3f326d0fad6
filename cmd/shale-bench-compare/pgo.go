package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// profileForPGO writes a CPU profile of Shale under the throughput
// phase's redis-benchmark tests to path: the profile `go build` reads from
// cmd/shale-server/default.pgo to optimize the server for the paths those
// tests take (profile-guided optimization; `make pgo-profile`). A fresh
// Shale serves its Go profiles on a free port; while the profile's window
// of dur runs, the harness sends every workload of a round, with requests
// requests each, over and over, so that the window covers them all in
// proportion to the time each takes.
func profileForPGO(o options, path string, dur time.Duration, requests int) error {
	if _, err := os.Stat(o.ShaleBin); err != nil {
		return fmt.Errorf("%s: %w (run `make build` first)", o.ShaleBin, err)
	}
	if _, err := os.Stat(o.BenchBin); err != nil {
		return fmt.Errorf("%s: %w (`make deps` installs it)", o.BenchBin, err)
	}
	if dur < time.Second || requests < 10 {
		return fmt.Errorf("-pgo-for %v, -pgo-n %d: want at least 1s and 10", dur, requests)
	}
	work, cleanup, err := workDir(o)
	if err != nil {
		return err
	}
	defer cleanup()
	port, err := freePort()
	if err != nil {
		return err
	}
	metrics := "127.0.0.1:" + strconv.Itoa(port)
	shale, err := startShale(o, work, "shale-pgo", fmt.Sprintf("[metrics]\naddr = %q\npprof = true\n", metrics))
	if err != nil {
		return err
	}
	defer shale.Stop()

	type fetched struct {
		profile []byte
		err     error
	}
	done := make(chan fetched, 1)
	go func() {
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", metrics, int(dur.Seconds()))
		resp, err := (&http.Client{Timeout: dur + time.Minute}).Get(url)
		if err != nil {
			done <- fetched{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s: %s", url, resp.Status, body)
		}
		done <- fetched{profile: body, err: err}
	}()

	o.Requests, o.PipelineRequests = requests, requests
	logf("pgo: profiling %s for %v", o.ShaleBin, dur)
	for round := 1; ; round++ {
		o.Rounds = round // for runWorkload's log: "round 3/3" while the third runs
		for _, w := range workloads(o) {
			select {
			case f := <-done:
				if f.err != nil {
					return f.err
				}
				logf("pgo: writing %s (%d bytes)", path, len(f.profile))
				return os.WriteFile(path, f.profile, 0o644)
			default:
			}
			if _, err := runWorkload(o, shale, w, round); err != nil {
				return err
			}
		}
	}
}
