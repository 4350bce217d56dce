# Developer tasks. Each target says what it needs; none of them runs at server run time.

GOBIN ?= $(shell go env GOPATH)/bin

# Versions of the protobuf generators: protoc-gen-go matches the google.golang.org/protobuf
# runtime in go.mod (v1.36.6); protoc-gen-go-grpc v1.3.0 emits code for grpc >= 1.52 and
# SupportPackageIsVersion7, which grpc v1.61.0 (go.mod) provides (v1.4+ needs grpc 1.62).
PROTOC_GEN_GO_VERSION      := v1.36.6
PROTOC_GEN_GO_GRPC_VERSION := v1.3.0

.PHONY: generate generate-tools
## generate: regenerate the plugin protocol's Go code from plugins/proto/scorer.proto.
generate: generate-tools
	PATH="$(GOBIN):$$PATH" protoc -I plugins/proto \
		--go_out=. --go_opt=module=github.com/mcp-pruner/mcp-pruner \
		--go-grpc_out=. --go-grpc_opt=module=github.com/mcp-pruner/mcp-pruner \
		plugins/proto/scorer.proto

## generate-tools: install protoc from Debian and the Go generators from the module proxy.
generate-tools:
	command -v protoc >/dev/null || (apt-get update && apt-get install -y protobuf-compiler)
	GOFLAGS=-mod=mod go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOFLAGS=-mod=mod go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

# Extra flags for the benchmark run, e.g. make bench BENCH_FLAGS="--limit 20 --parallel 1".
BENCH_FLAGS ?=

.PHONY: bench
## bench: run every scorer, the baselines and the oracle (the ceiling) on ../shared/bench through the engine and regenerate
## the harness's section of benchmarks/RESULTS.md, plus benchmarks/results.json and recall.svg.
BENCH_SCORERS ?= structural,heuristic,onnx:models/linerank,reference,bm25,grep,head,tail,head_tail,random,oracle
bench:
	scripts/install-onnxruntime.sh
	go build -o bin/pruner ./cmd/pruner
	./bin/pruner bench --scorers $(BENCH_SCORERS) --json benchmarks/results.json --svg benchmarks/recall.svg \
		--results benchmarks/RESULTS.md $(BENCH_FLAGS)

.PHONY: bench-debian
## bench-debian: the out-of-sample check. Build the Debian fix sets (every language: 4,111 cases
## from 1,215 packages on 2026-11-26; needs the Debian mirror, python3, tar, xz, patch and git;
## about 13 minutes, downloads kept in DEBIAN_DIR for the next run), then compare the code
## scorers on them, one row per language. Nothing is written into the repository.
DEBIAN_DIR ?= /tmp/debian-fixes
DEBIAN_SCORERS ?= heuristic,structural,bm25,head,tail,oracle
bench-debian:
	go build -o bin/pruner ./cmd/pruner
	scripts/build-debian-fixes.py --pruner bin/pruner --work $(DEBIAN_DIR) --out $(DEBIAN_DIR)/default.jsonl.gz
	scripts/build-debian-fixes.py --pruner bin/pruner --work $(DEBIAN_DIR) --out $(DEBIAN_DIR)/other.jsonl.gz \
		--langs rust,java,ruby,php,c,cpp,csharp,shell
	./bin/pruner bench --data $(DEBIAN_DIR)/default.jsonl.gz --data $(DEBIAN_DIR)/other.jsonl.gz \
		--scorers $(DEBIAN_SCORERS) --modes budget --budgets 0.1,0.2,0.3 --compare heuristic,structural $(BENCH_FLAGS)

.PHONY: setup test lint race fuzz serve
## setup: everything the tests need beyond Go modules: the onnxruntime library (from npm) and
## the TypeScript SDK used by the interoperability test (npm ci). Idempotent.
setup:
	scripts/install-onnxruntime.sh
	cd interop && npm ci --no-audit --no-fund --loglevel=error

## test: the README's test command and what CI runs: set-up, vet, staticcheck, every test (the fuzz
## tests run their seed corpus), then every test again under the race detector. The server
## prunes concurrently through parser pools, shared onnxruntime sessions, plugin clients and
## the recovery store, so a data race is a bug a plain run cannot see (the race pass takes
## about 4 minutes on 2 cores). Tests that need ../shared/bench skip without it.
test: setup
	go vet ./...
	$(MAKE) --no-print-directory lint
	go test -count=1 -timeout 40m ./...
	$(MAKE) --no-print-directory race

## lint: every Go file as gofmt writes it, then staticcheck (bugs, deprecated APIs,
## simplifications and style checks vet lacks), at a pinned version fetched from the module
## proxy on first use; go.mod does not change. About 15 s.
STATICCHECK_VERSION := v0.8.2
lint:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "not gofmt-ed (run gofmt -w):"; echo "$$unformatted"; exit 1; fi
	go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

## race: every test under the race detector (needs cgo and a C compiler, as the build does).
race:
	go test -race -count=1 -timeout 40m ./...

## fuzz: run the engine's invariant fuzzer for FUZZTIME (default 5m), then the structural
## scorer's split-point fuzzer for SPLITFUZZTIME (default 1m), then the scorer contract's fuzz
## property on the heuristic, structural and onnx scorers for SCOREFUZZTIME each (default 1m)
## and the heuristic's scan in parts against one scan for as long, then the /rpc handler's two fuzzers for WIREFUZZTIME each (default 1m): any body gets an
## answer of the contract's shape, and a prune_text call loses nothing on the wire; then the
## stdio screen's agreement with the go-sdk's decoder, and whole stdio sessions (one answer per
## call and per bad line), for WIREFUZZTIME each.
## Minimising each new coverage input is capped at 3s: the seeds are whole golden files, and
## the default 60s spent the run minimising instead of exploring.
FUZZTIME ?= 5m
SPLITFUZZTIME ?= 1m
SCOREFUZZTIME ?= 1m
WIREFUZZTIME ?= 1m
fuzz:
	go test ./engine -run '^$$' -fuzz FuzzPrune -fuzztime $(FUZZTIME) -fuzzminimizetime 3s
	go test ./scorers/structural -run '^$$' -fuzz FuzzSplitPoint -fuzztime $(SPLITFUZZTIME) -fuzzminimizetime 3s
	go test ./scorers/heuristic -run '^$$' -fuzz FuzzScore -fuzztime $(SCOREFUZZTIME) -fuzzminimizetime 3s
	go test ./scorers/heuristic -run '^$$' -fuzz FuzzAnalysisInParts -fuzztime $(SCOREFUZZTIME) -fuzzminimizetime 3s
	go test ./scorers/structural -run '^$$' -fuzz FuzzScore -fuzztime $(SCOREFUZZTIME) -fuzzminimizetime 3s
	go test ./scorers/onnx -run '^$$' -fuzz FuzzScore -fuzztime $(SCOREFUZZTIME) -fuzzminimizetime 3s
	go test ./server -run '^$$' -fuzz '^FuzzRPCBody$$' -fuzztime $(WIREFUZZTIME) -fuzzminimizetime 3s
	go test ./server -run '^$$' -fuzz '^FuzzRPCPruneRoundTrip$$' -fuzztime $(WIREFUZZTIME) -fuzzminimizetime 3s
	go test ./server -run '^$$' -fuzz '^FuzzScreenAgreesWithSDK$$' -fuzztime $(WIREFUZZTIME) -fuzzminimizetime 3s
	go test ./server -run '^$$' -fuzz '^FuzzStdioSession$$' -fuzztime $(WIREFUZZTIME) -fuzzminimizetime 3s

## serve: build and start the default server on 127.0.0.1:8006.
serve:
	go run ./cmd/pruner serve

.PHONY: interop loadtest
## interop: install the pinned TypeScript MCP SDK client (interop/, npm registry) and run the
## interop test that drives pruner stdio and pruner serve's /mcp with it.
interop:
	cd interop && npm ci --no-audit --no-fund
	go test ./server -run TestInteropTypeScriptSDK -count=1 -v

## loadtest: requests/s and p50/p99 of /rpc prunes (200 and 5,000 lines of Go at 1, 8, 32 clients)
## against an in-process server on 127.0.0.1:0 with pruner serve's default scorers;
## LOADTEST_FLAGS="-url http://127.0.0.1:8006/rpc" measures a running pruner serve instead, and
## LOADTEST_FLAGS=-distinct sends a text never seen before with every request (by default
## every request repeats one text, and the scorers' caches answer), and LOADTEST_FLAGS="-lines
## 200 -clients 32 -rate 2000" sends 2,000 requests a second, timing each from when it was due.
loadtest:
	go run ./server/loadtest $(LOADTEST_FLAGS)

.PHONY: onnxruntime train
## onnxruntime: fetch the onnxruntime library the onnx scorer loads (npm onnxruntime-node 1.30.0) into .tools/.
onnxruntime:
	scripts/install-onnxruntime.sh

## train: retrain models/linerank on ../shared/bench with grouped 5-fold cross-validation
## (writes model.onnx, model.json and MODEL_CARD.md; deterministic).
train:
	go run ./cmd/pruner train --out models/linerank
