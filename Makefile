# Shale build. `make run` and `make test` are the two commands a new user needs;
# both install the missing Debian packages first.
# Go from PATH, or where the official tarball installs it.
GO        ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
TAGS      ?= invariants
# The e2e tests run `go build` themselves.
export PATH := $(dir $(GO)):$(PATH)
FUZZTIME  ?= 20s
# How long the load soak of `make soak` runs against each server.
SOAKTIME  ?= 60s
# The model soak of `make soak`: MODELRUNS model-based runs at once (seeds
# MODELSEED, MODELSEED+1, ...; MODELSEED=N replays a failure), MODELOPS
# operations each, together at least 1,000,000; MODELTIMEOUT bounds them.
MODELOPS     ?= 250000
MODELRUNS    ?= 4
MODELSEED    ?= random
MODELTIMEOUT ?= 3h
BENCHTIME ?= 1s
# Benchmarks that build a million-element key per iteration run a fixed count.
HEAVY     := BenchmarkDel$$|BenchmarkReclaimAfterDel$$|BenchmarkDelHash$$|BenchmarkDelZSet$$|BenchmarkDelList$$|BenchmarkDelSet$$
HEAVYTIME ?= 3x
FUZZ      := metadata:FuzzDecodeMeta metadata:FuzzDecodeBook metadata:FuzzDecodeExpireKey metadata:FuzzDecodeMetaKey subkey:FuzzDecodeSubkey subkey:FuzzScoreOrder subkey:FuzzDecodeScoreKey server:FuzzRespGuard server:FuzzRespRequest server:FuzzRespBinaryArgs server/types:FuzzMatch server/types:FuzzParseNumbers server/types:FuzzParseRanges
PKGS_RUN  := librocksdb-dev build-essential redis-tools
# The e2e tests also drive real Redis and the redis-py and ioredis clients.
PKGS_TEST := $(PKGS_RUN) redis-server python3-redis nodejs npm
# ioredis for the e2e tests, pinned by package-lock.json; `npm ci` runs only
# when node_modules is missing or older than the lockfile.
NODE_DIR  := tests/clients/node
NODE_DEPS := $(NODE_DIR)/node_modules/.package-lock.json
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

export CGO_CFLAGS  ?= -O2
export CGO_LDFLAGS ?= -lrocksdb -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2

.PHONY: deps deps-run build run test unit e2e lint fuzz soak bench bench-compare clean

# deps-run installs what `make run` needs; deps adds redis-server and the
# client libraries for the e2e tests. Both do nothing when every package is
# already installed.
deps-run:
	@./.ci/install-deps $(PKGS_RUN)
deps:
	@./.ci/install-deps $(PKGS_TEST)

$(NODE_DEPS): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json | deps
	cd $(NODE_DIR) && npm ci --no-audit --no-fund
	@touch $@

build: deps-run
	$(GO) build -o bin/ ./cmd/...

run: build
	./bin/shale-server --bind 127.0.0.1 --port 6379 --dir ./data

lint: deps
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -run TestLayering ./tests

unit: deps
	$(GO) test -race -tags '$(TAGS)' $$($(GO) list ./... | grep -v /tests)

e2e: deps $(NODE_DEPS)
	$(GO) test -race -count=1 -timeout 20m ./tests/...

test: lint unit e2e

fuzz: deps
	@for t in $(FUZZ); do \
	  $(GO) test ./$${t%%:*} -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# soak runs the long, bounded tests that `make test` skips: 100 clients of
# mixed commands for SOAKTIME against shale, then against redis-server, with
# throughput and latency percentiles in the output; then the model-based
# test for MODELRUNS x MODELOPS operations.
soak: deps
	SHALE_SOAK=$(SOAKTIME) $(GO) test -count=1 -timeout 30m -v -run 'Soak' ./tests/
	SHALE_MODEL_OPS=$(MODELOPS) SHALE_MODEL_RUNS=$(MODELRUNS) SHALE_MODEL_SEED=$(MODELSEED) \
	  $(GO) test -count=1 -timeout $(MODELTIMEOUT) -v -run '^TestModel$$' ./tests/

bench: deps
	$(GO) test -run '^$$' -bench . -skip '$(HEAVY)' -benchmem -benchtime $(BENCHTIME) -timeout 60m ./...
	$(GO) test -run '^$$' -bench '$(HEAVY)' -benchmem -benchtime $(HEAVYTIME) -timeout 60m ./server/types ./tests

# bench-compare runs cmd/shale-bench-compare: redis-benchmark against Shale,
# redis-server and an in-memory Go ceiling in alternating rounds, big-key DEL
# timings, the disk reclaim timeline and RSS against the memory budget. It
# rewrites docs/BENCHMARKS.md and docs/bench/ (about 20 minutes);
# BENCHFLAGS=-quick is a few minutes and writes to bin/bench-quick/ instead.
BENCHFLAGS ?=
bench-compare: deps build
	./bin/shale-bench-compare $(BENCHFLAGS)

clean:
	rm -rf bin
