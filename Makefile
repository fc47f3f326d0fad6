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
FUZZ      := metadata:FuzzDecodeMeta metadata:FuzzDecodeBook metadata:FuzzDecodeExpireKey metadata:FuzzDecodeMetaKey metadata:FuzzDecodeDBMap metadata:FuzzDecodeStreamMeta subkey:FuzzDecodeSubkey subkey:FuzzScoreOrder subkey:FuzzDecodeScoreKey subkey:FuzzDecodeStream subkey:FuzzDecodeStreamGroup subkey:FuzzDecodeFragKey server/resp:FuzzGuard server/resp:FuzzRequest server/resp:FuzzBinaryArgs server/resp:FuzzFrames server/types:FuzzMatch server/types:FuzzParseNumbers server/types:FuzzParseRanges server/store:FuzzBatchRep server/hll:FuzzValue server/geo:FuzzGeo server:FuzzCommands
PKGS_RUN  := librocksdb-dev build-essential redis-tools
# The e2e tests also drive real Redis, the redis-py and ioredis clients, a
# Celery worker and Redis Sentinel (the failover drill).
PKGS_TEST := $(PKGS_RUN) redis-server redis-sentinel python3-redis python3-celery python3-kombu nodejs npm
# ioredis, Redlock and BullMQ for the e2e tests, pinned by package-lock.json; `npm ci` runs only
# when node_modules is missing or older than the lockfile.
NODE_DIR  := tests/clients/node
NODE_DEPS := $(NODE_DIR)/node_modules/.package-lock.json
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# RocksDB: Debian's shared librocksdb by default. `make rocksdb-release` builds
# the same version from Debian's source package with DEBUG_LEVEL=0 into the
# user's cache directory, keyed by version, so that every clone (and CI run) on
# the machine shares one build; while its librocksdb.a exists, every target
# links it statically (tag grocksdb_no_link, which drops grocksdb's own
# -lrocksdb). ROCKSDB_LINK=system forces the system library anyway;
# `rm -rf $(ROCKSDB_DIR)` goes back for good.
ROCKSDB_VERSION := $(shell dpkg-query -W -f='$${Version}' librocksdb-dev 2>/dev/null)
ROCKSDB_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shale
ROCKSDB_DIR := $(ROCKSDB_CACHE)/rocksdb-$(or $(ROCKSDB_VERSION),none)
ROCKSDB_REL := $(ROCKSDB_DIR)/release
ROCKSDB_LINK ?= $(if $(wildcard $(ROCKSDB_REL)/lib/librocksdb.a),release,system)
ifeq ($(ROCKSDB_LINK),release)
LINKTAGS    := grocksdb_no_link
# Go's build cache knows the flags, not the archive: the archive's mtime in a
# define makes a rebuilt librocksdb.a relink every binary.
export CGO_CFLAGS  := -O2 -I$(ROCKSDB_REL)/include -DSHALE_ROCKSDB_STAMP=$(shell stat -c %Y $(ROCKSDB_REL)/lib/librocksdb.a)
export CGO_LDFLAGS := $(ROCKSDB_REL)/lib/librocksdb.a -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2 -lpthread -ldl
# The e2e tests build the server with `go build $$SHALE_BUILD_FLAGS`.
export SHALE_BUILD_FLAGS := $(strip $(SHALE_BUILD_FLAGS) -tags=$(LINKTAGS))
else
LINKTAGS    :=
export CGO_CFLAGS  ?= -O2
export CGO_LDFLAGS ?= -lrocksdb -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2
endif
# Every go command gets BUILDTAGS; the unit tests add TAGS.
BUILDTAGS   := $(LINKTAGS)

.PHONY: deps deps-run build run test unit e2e lint fuzz soak bench bench-compare pgo-profile clean rocksdb-release bin/shale-server-debianlib

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
	$(GO) build -tags '$(BUILDTAGS)' -o bin/ ./cmd/...

run: build
	./bin/shale-server --bind 127.0.0.1 --port 6379 --dir ./data

lint: deps
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags '$(BUILDTAGS)' ./...
	$(GO) test -tags '$(BUILDTAGS)' -count=1 -run TestLayering ./tests

unit: deps
	$(GO) test -race -tags '$(strip $(TAGS) $(BUILDTAGS))' $$($(GO) list ./... | grep -v /tests)

e2e: deps $(NODE_DEPS)
	$(GO) test -race -tags '$(BUILDTAGS)' -count=1 -timeout 20m ./tests/...

test: lint unit e2e

fuzz: deps
	@for t in $(FUZZ); do \
	  $(GO) test -tags '$(strip $(TAGS) $(BUILDTAGS))' ./$${t%%:*} -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# soak runs the long, bounded tests that `make test` skips: 100 clients of
# mixed commands for SOAKTIME against shale, then against redis-server, with
# throughput and latency percentiles in the output; then the model-based
# test for MODELRUNS x MODELOPS operations.
soak: deps
	SHALE_SOAK=$(SOAKTIME) $(GO) test -tags '$(BUILDTAGS)' -count=1 -timeout 30m -v -run 'Soak' ./tests/
	SHALE_MODEL_OPS=$(MODELOPS) SHALE_MODEL_RUNS=$(MODELRUNS) SHALE_MODEL_SEED=$(MODELSEED) \
	  $(GO) test -tags '$(BUILDTAGS)' -count=1 -timeout $(MODELTIMEOUT) -v -run '^TestModel$$' ./tests/

bench: deps
	$(GO) test -tags '$(BUILDTAGS)' -run '^$$' -bench . -skip '$(HEAVY)' -benchmem -benchtime $(BENCHTIME) -timeout 60m ./...
	$(GO) test -tags '$(BUILDTAGS)' -run '^$$' -bench '$(HEAVY)' -benchmem -benchtime $(HEAVYTIME) -timeout 60m ./server/types ./tests

# rocksdb-release builds RocksDB (the installed librocksdb-dev's version, from
# Debian's source package) with DEBUG_LEVEL=0 into $(ROCKSDB_DIR)/release; 12
# to 25 minutes on 2 cores, once per machine and version. It does nothing when
# the library is there.
rocksdb-release: deps-run
	@./.ci/rocksdb-release "$(ROCKSDB_CACHE)"

# bench-compare runs cmd/shale-bench-compare: redis-benchmark against Shale,
# redis-server and an in-memory Go ceiling in alternating rounds, big-key DEL
# timings, the disk reclaim timeline and RSS against the memory budget. It
# rewrites docs/BENCHMARKS.md and docs/bench/ (about 25 minutes);
# BENCHFLAGS=-quick is a few minutes and writes to bin/bench-quick/ instead.
# It measures the build users should run: it builds the release library first
# when it is missing (rocksdb-release), links bin/shale-server with it, and
# also builds bin/shale-server-debianlib on Debian's library, which the plain
# tests measure beside it.
BENCHFLAGS ?=
bench-compare: deps rocksdb-release
	$(MAKE) --no-print-directory ROCKSDB_LINK=release build
	$(MAKE) --no-print-directory bin/shale-server-debianlib
	./bin/shale-bench-compare $(BENCHFLAGS)

# pgo-profile rewrites cmd/shale-server/default.pgo, the CPU profile with which
# `go build` optimizes the server (profile-guided optimization: hot calls are
# inlined, hot interface calls devirtualized): the release build's, under
# bench-compare's redis-benchmark tests, one round after another, for 90 s.
# Run it again when the hot paths change, and commit the file.
pgo-profile: deps rocksdb-release
	$(MAKE) --no-print-directory ROCKSDB_LINK=release build
	./bin/shale-bench-compare -pgo-profile cmd/shale-server/default.pgo

# bin/shale-server-debianlib is the server on Debian's shared librocksdb,
# whatever ROCKSDB_LINK says: what `make run` builds on a fresh machine.
bin/shale-server-debianlib: deps-run
	CGO_CFLAGS=-O2 CGO_LDFLAGS='-lrocksdb -lstdc++ -lm -lz -lsnappy -llz4 -lzstd -lbz2' \
	  $(GO) build -o $@ ./cmd/shale-server

# bench-scale runs cmd/shale-bench-scale: 1M, 10M and 100M keys (strings plus
# 100-field hashes), with load rate, GET/SET/HGET/HSET throughput and p99
# under uniform and zipfian keys, RSS against the configured bound, disk size
# and restart time at each size, and Redis beside Shale while it fits in
# memory. It rewrites docs/SCALE.md and docs/bench/scale*; -max-time (90
# minutes by default) bounds it, skipping the sizes that would not finish.
# SCALEFLAGS=-quick (100k and 1M keys) is a few minutes and writes to
# bin/scale-quick/ instead.
SCALEFLAGS ?=
.PHONY: bench-scale
bench-scale: deps build
	./bin/shale-bench-scale $(SCALEFLAGS)

clean:
	rm -rf bin
