# trtmc-qual: two commands do everything. `make qualify` runs the main job, `make test` the tests.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export CGO_ENABLED := 1
# The reaper image cannot be pulled on an offline machine (cleanup is DeferCleanup's job), and
# testcontainers would otherwise guess the Docker host from inside what looks like a container.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE ?= localhost
export QUAL_CACHE ?= $(HOME)/.cache/trtmc-qual
export QUAL_PARITY_PYTHON ?= $(QUAL_CACHE)/parity-venv/bin/python

GINKGO := go tool ginkgo
# The test runner; CI sets GOTEST="go tool gotestsum --junitfile FILE --" for a JUnit report.
GOTEST ?= go test
# One setting, two spellings: make's TARGET/TRTMC_ROOT/SHARD default to the QUAL_* variables every
# qual command reads, so an exported QUAL_TARGET is honoured by make too.
# With a TRTMC checkout and no target, the TRTMC target file that reads the checkout's layout.
TARGET ?= $(or $(QUAL_TARGET),$(if $(TRTMC_ROOT),$(TRTMC_TARGET),suites/targets/reference.yaml))
TRTMC_ROOT ?= $(QUAL_TRTMC_ROOT)
SHARD ?= $(QUAL_SHARD)
# Run what you need: STAGE=asr (stages), ROWS=sphinx-en-us,whisper-tiny-en (profiles), RERUN=reports/<run>
# (that run's failed rows), each narrowing the next. harness/config reads them as QUAL_STAGE, QUAL_ROWS
# and QUAL_RERUN; the suites run the selected rows alone and record every other row "not selected",
# so the verdict says the run is not a qualification (`build/bin/qual config` prints the selection).
STAGE ?= $(QUAL_STAGE)
ROWS ?= $(QUAL_ROWS)
RERUN ?= $(QUAL_RERUN)
# The suites' console: V=1 (QUAL_VERBOSE) prints every spec's detail; by default each row shows
# its first line, progress, a line per claim, its [time] line, and failures in full.
V ?= $(QUAL_VERBOSE)
# Expanded once: every step of one `make qualify` (deps included) names the same run.
ifeq ($(origin RUN_ID),undefined)
RUN_ID := $(shell date -u +%Y%m%d-%H%M%S)
endif
RUN_DIR ?= reports/$(RUN_ID)
# Every stage suite (a package under suites/ with a *_suite_test.go): a new stage needs no line here.
SUITES := $(sort $(patsubst %/,./%,$(dir $(wildcard suites/*/*_suite_test.go))))
# The target, checkout and shard a run uses, as the suites and `qual config` read them.
QUAL_ENV = QUAL_TARGET=$(TARGET) QUAL_TRTMC_ROOT=$(if $(TRTMC_ROOT),$(abspath $(TRTMC_ROOT))) QUAL_SHARD=$(SHARD) \
  QUAL_STAGE=$(STAGE) QUAL_ROWS=$(ROWS) QUAL_RERUN=$(RERUN) QUAL_VERBOSE=$(V)
# verify re-reads a TRTMC row's manifest (a testcase's own test_prompt) in the checkout the run used.
VERIFY_ENV = $(if $(TRTMC_ROOT),QUAL_TRTMC_ROOT=$(abspath $(TRTMC_ROOT)))
# Where the wall time of a run goes: each timed step appends "step<TAB>seconds", and the end of
# qualify-all prints the breakdown (harness/scripts/timings.sh) with each stage suite's own time.
TIMINGS = $(CURDIR)/build/timings/$(RUN_ID).tsv
# qual, built by `make bin` (with the commit stamped, which `go run` leaves out, and keeping qual's
# exit statuses, which `go run` turns into 1), and qual-run beside it for images and capacity.
QUAL := $(CURDIR)/build/bin/qual
# A dry run (make -n) still runs the recipe lines that call $(MAKE): there timed runs the step
# alone (itself a dry run) and deps keeps no images log, so that make -n writes no file.
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
timed = $(if $(DRY_RUN),$(2),{ mkdir -p $(dir $(TIMINGS)); t0=$$(date +%s); rc=0; $(2) || rc=$$?; echo "$(1)	$$(( $$(date +%s) - t0 ))" >> $(TIMINGS); (exit $$rc); })

.PHONY: help deps engine bin FORCE images test test-run qualify capacity qualify-all smoke qualify-trtmc-double inventory inventory-check verify bench fuzz load compare-ab
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{n[NR]=$$1; d[NR]=$$2; if (length($$1) > w) w = length($$1)} \
	  END {for (i = 1; i <= NR; i++) printf "  %-" w "s  %s\n", n[i], d[i]}'

deps: ## install everything: apt packages, Go modules, parity venv, Docker engine, images
	@$(call timed,deps,bash harness/scripts/deps.sh && bash containers/engine/ensure-docker.sh)
	@$(call timed,images,$(MAKE) --no-print-directory images $(if $(DRY_RUN),,2> >(tee $(TIMINGS:.tsv=.images.log) >&2)))

engine: ## start the Docker engine (installs docker.io when missing)
	bash containers/engine/ensure-docker.sh

# qual builds without cgo (it links no family runtime and no container client, so `go install`
# works without apt packages); qual-run, which images and capacity run in, links the container client. go build in a git checkout stamps the commit.
# Rebuilt on every make (FORCE): go build is incremental and caches, so an up-to-date one costs ~1 s.
bin: build/bin/qual build/bin/qual-run ## build qual (CGO_ENABLED=0) and qual-run into build/bin
# The commit is stamped with -X too: the toolchain stamps none in a git worktree or with
# GOFLAGS=-buildvcs=false.
build/bin/qual: FORCE
	@rev=$$(git rev-parse HEAD 2>/dev/null || true); mod=$$([ -z "$$(git status --porcelain 2>/dev/null)" ] || echo true); \
	CGO_ENABLED=0 go build -ldflags "-X main.linkerCommit=$$rev -X main.linkerModified=$$mod" -o $@ ./harness/cmd/qual
build/bin/qual-run: FORCE
	@go build -o $@ ./harness/cmd/qual-run
FORCE:

images: bin ## build or find the base, trtmc-server and AIPerf images (cached by input hash)
	@start=$$(date +%s); $(QUAL) images >/dev/null; echo "[images] make images took $$(( $$(date +%s) - start ))s"

# make test runs the stage suites once, in a reduced form (fewer AIPerf requests) that proves the
# whole path, as `make qualify-all` runs them (report, sign, verify: a failed spec or check fails
# make test); `make qualify` runs the full counts. Every other package's tests then get that run
# as QUAL_TEST_RUN (harness/verify copies it instead of running the suites again).
TEST_RUN_DIR = build/test-run/$(RUN_ID)/reference
# go test's packages: all but the stage suites, which the reduced run above has just run (listed
# out, so they are neither run twice nor counted as passing by a skip).
TEST_PKGS = $$(go list ./... | grep -vxF -f <(go list $(SUITES)))
test: deps ## run every test (after deps, as qualify): unit, parity, integration, containers, the suites in reduced form, and the TRTMC target on its contract double
	go vet ./...
	@echo "[test] the stage suites once, in a reduced form, as make qualify-all runs them ($(TEST_RUN_DIR)):"
	@$(call timed,test-suites,$(MAKE) --no-print-directory test-run RUN_ID=$(RUN_ID)-reference RUN_DIR=$(TEST_RUN_DIR))
	@echo "[test] every other package, with that run as QUAL_TEST_RUN:"
	@$(call timed,test-go,QUAL_TEST_RUN=$(CURDIR)/$(TEST_RUN_DIR) QUAL_RUN_DIR=$(CURDIR)/build/test-run/$(RUN_ID)/go-test $(TEST_LOAD) \
	  $(GOTEST) -count=1 -timeout 60m $(TEST_PKGS))
	@echo "[test] the TRTMC target end to end against the CPU contract double (labelled as such, never a TRTMC result):"
	@$(call timed,test-trtmc-double,$(MAKE) --no-print-directory qualify-trtmc-double RUN_ID=$(RUN_ID)-trtmc-double RUN_DIR=build/test-run/$(RUN_ID)/trtmc-double \
	  QUAL_ASR_WARMUP=1 QUAL_ASR_REQUESTS=4 QUAL_ASR_RUNS=1 QUAL_T2I_WARMUP=1 QUAL_T2I_REQUESTS=2 QUAL_T2I_RUNS=1)
	@bash harness/scripts/timings.sh $(TIMINGS) /dev/null

# The reduced run of the reference target's stage suites that make test makes first, and that a
# package test needing a real run makes itself when run alone (harness/verify): RUN_DIR relative
# to the checkout, as for qualify-all. FAIL_ON=failed: a failed spec, sign or verify or a FAILED
# stage fails it, while the reduced counts' verdict is not a qualification to gate on.
TEST_LOAD := QUAL_ASR_WARMUP=2 QUAL_ASR_REQUESTS=8 QUAL_ASR_RUNS=2 QUAL_T2I_WARMUP=1 QUAL_T2I_REQUESTS=4 QUAL_T2I_RUNS=2
test-run: bin ## the stage suites once at make test's reduced load (a REDUCED LOAD run, never a qualification)
	@$(MAKE) --no-print-directory qualify-all TARGET=suites/targets/reference.yaml TRTMC_ROOT= SHARD= RUN_ID=$(RUN_ID) RUN_DIR=$(RUN_DIR) FAIL_ON=failed $(TEST_LOAD)

qualify: deps ## the main job: all stages against the reference target, evidence in reports/ (STAGE=, ROWS=, RERUN=reports/<run> run part of it)
	@$(MAKE) --no-print-directory qualify-all TARGET=$(TARGET) RUN_ID=$(RUN_ID)

capacity: bin ## per counted ASR and image row: the highest concurrency within the stage's latency objective (CAPACITY_FLAGS="--levels 1,2 --runs 2")
	$(QUAL_ENV) QUAL_RUN_DIR=$(CURDIR)/reports/capacity-$(RUN_ID) $(QUAL) capacity $(CAPACITY_FLAGS)

# qualify-all runs the suites against any target (TRTMC: TARGET=suites/targets/trtmc.yaml
# TRTMC_ROOT=/path/to/checkout), optionally one shard (SHARD=i/n), then assembles and verifies.
# Without SHARD the shard comes from the engine when it gives one (Kubernetes Indexed Job:
# JOB_COMPLETION_INDEX + QUAL_SHARD_TOTAL; GitLab parallel: CI_NODE_INDEX/CI_NODE_TOTAL).
# --keep-going: a failing stage must not skip the later stages (a shard would lose them, and
# shard 1 alone runs the stage-level audits, so the merged report would miss a stage).
# Each suite writes its own JUnit (suites/junit) to RUN_DIR/junit/<stage>.xml; AIPerf runs print
# progress lines (live, with or without V=1), so no --poll-progress-after stack dumps. The suites
# pick their console from QUAL_VERBOSE (suites/qualify), so no -v here.
# The exit status follows the verdict: 1 unless QUALIFIED, or with FAIL_ON=failed (QUAL_FAIL_ON)
# only when a stage FAILED; a failed spec, sign or verify is non-zero too. The last line is the verdict.
# A shard is part of a run (stage 9's audit is in shard 1 only), so its own verdict is never
# QUALIFIED: a shard fails only on a FAILED stage unless FAIL_ON says otherwise; the merged run's
# verdict is the one to gate on (qual report --fail-on on the merged run).
# A selection (STAGE, ROWS, RERUN) is never a qualification either: like a shard it fails only on a
# FAILED stage unless FAIL_ON says otherwise.
FAIL_ON ?= $(or $(QUAL_FAIL_ON),$(if $(SHARD)$(JOB_COMPLETION_INDEX)$(CI_NODE_INDEX)$(STAGE)$(ROWS)$(RERUN),failed))
qualify-all: bin ## qualify TARGET (optionally TRTMC_ROOT, SHARD=i/n, STAGE=, ROWS=, RERUN=reports/<run>, FAIL_ON=failed); fails unless the verdict passes
	@cfg=$$($(QUAL_ENV) $(QUAL) config) || { echo "[qualify] nothing was run: fix the line above (build/bin/qual config --list shows every variable)"; exit 2; }; \
	  grep '^selection' <<<"$$cfg" | sed 's/^/[qualify] /' || true
	@$(QUAL_ENV) $(QUAL) doctor --allow-planned || { echo "[qualify] nothing was run: fix the MISSING line(s) above"; exit 1; }
	@mkdir -p $(RUN_DIR)/junit
	@echo "[qualify] run $(RUN_ID): target $(TARGET) $(if $(SHARD),shard $(SHARD),$(if $(JOB_COMPLETION_INDEX)$(CI_NODE_INDEX),shard from the engine (harness/shard)))"
	@mkdir -p $(dir $(TIMINGS)); status=0; t0=$$(date +%s); $(QUAL_ENV) QUAL_RUN_DIR=$(CURDIR)/$(RUN_DIR) \
	  $(GINKGO) --keep-going --timeout=6h $$([ -t 1 ] || echo --no-color) $(SUITES) || status=$$?; \
	echo "suites	$$(( $$(date +%s) - t0 ))" >> $(TIMINGS); \
	verdict=0; $(call timed,report,$(QUAL) report $(if $(FAIL_ON),--fail-on $(FAIL_ON)) $(RUN_DIR)) || verdict=$$?; \
	if [ -f $(RUN_DIR)/evidence.json ]; then $(call timed,sign,$(QUAL) sign $(RUN_DIR)) && \
	  $(call timed,verify,$(VERIFY_ENV) $(QUAL) verify $(RUN_DIR)) || status=$$?; fi; \
	bash harness/scripts/timings.sh $(TIMINGS) $(RUN_DIR); \
	if [ -f $(RUN_DIR)/qualification.md ]; then [ "$(RUN_DIR)" != "reports/$(RUN_ID)" ] || ln -sfn $(RUN_ID) reports/latest; \
	else echo "[qualify] the run produced no report: reports/latest not moved"; [ $$status -ne 0 ] || status=1; fi; \
	[ $$status -ne 0 ] || status=$$verdict; \
	if [ -f $(RUN_DIR)/evidence.json ]; then \
	  echo "[qualify] Verdict: $$(sed -n 's/^\*\*Verdict: \(.*\)\*\*$$/\1/p' $(RUN_DIR)/qualification.md) (exit $$status; fail-on $(or $(FAIL_ON),not-qualified)): see $(RUN_DIR)/qualification.md"; fi; \
	exit $$status

# smoke: one counted row per stage of the reference target, end to end (build, gate, serve, AIPerf,
# join, identity, timing, report, sign, verify), with the fewest requests: a first try, and a
# pre-merge check. The other rows are not run, so the stages are not qualified by it (FAIL_ON=failed).
SMOKE_ROWS := sphinx-tidigits,procdiff-small,sphinxqa-en-us
smoke: ## one counted row per stage end to end with the fewest requests (a first try; pre-merge CI)
	@echo "[smoke] a smoke run, not a qualification: its verdict covers only the rows it runs ($(SMOKE_ROWS))"
	@$(MAKE) --no-print-directory qualify-all TARGET=suites/targets/reference.yaml RUN_ID=smoke-$(RUN_ID) FAIL_ON=failed \
	  ROWS=$(SMOKE_ROWS) STAGE= RERUN= QUAL_SCOPE=smoke \
	  QUAL_ASR_WARMUP=1 QUAL_ASR_REQUESTS=1 QUAL_ASR_RUNS=1 QUAL_T2I_WARMUP=1 QUAL_T2I_REQUESTS=1 QUAL_T2I_RUNS=1 \
	  QUAL_AUDIOQA_WARMUP=1 QUAL_AUDIOQA_REQUESTS=1 QUAL_AUDIOQA_RUNS=1

# compare-ab: an interleaved, paired A/B comparison of two builds on one row (harness/compare/README.md).
# Separate runs cannot cancel a shared machine's load drift, so the two builds take turns: PAIRS
# pairs of one-run qualifies, each pair run back to back in alternating order (A1 B1, B2 A2, A3 B3 …:
# a linear drift cancels over two pairs), each a normal, signed, verified run in AB_DIR/A<i>, AB_DIR/B<i>;
# then `qual compare --paired AB_DIR` decides on ln(new/base) per pair. A build is its GOFLAGS (B:
# NEW_GOFLAGS=-tags=qual_slowdown); each build's server image has its own input-hash tag, so the
# turns reuse both images after the first pair. Only ROWS (and STAGE) run; a failed run stops.
# PAIR_FROM=i AB_DIR=reports/ab-<id> adds pairs i…PAIRS to an earlier comparison (decide the count
# before looking: adding pairs until it decides would raise the false-alarm rate).
# 8 pairs: on an idle 2-core machine (pairs' spread 10%) they decided whisper-tiny-en's injected
# slowdown red and detect ≈ 12.5%; with other work beside them (spread 14–17%) ≈ 16–18%, 4 pairs
# ≈ 24–28% (harness/compare/README.md, "Measured at k = 8 on an idle machine").
PAIRS ?= 8
PAIR_FROM ?= 1
BASE_GOFLAGS ?=
NEW_GOFLAGS ?=
AB_DIR ?= reports/ab-$(RUN_ID)
AB_ONE_RUN := QUAL_ASR_RUNS=1 QUAL_T2I_RUNS=1 QUAL_AUDIOQA_RUNS=1
compare-ab: bin ## paired A/B of two builds on ROWS: make compare-ab ROWS=whisper-tiny-en NEW_GOFLAGS=-tags=qual_slowdown (PAIRS=8)
	@test -n "$(ROWS)" || { echo "[compare-ab] set ROWS (the row(s) to compare)"; exit 2; }
	@for i in $$(seq $(PAIR_FROM) $(PAIRS)); do \
	  order="A B"; [ $$((i % 2)) -eq 1 ] || order="B A"; \
	  for side in $$order; do \
	    flags='$(BASE_GOFLAGS)'; [ $$side = A ] || flags='$(NEW_GOFLAGS)'; \
	    echo "[compare-ab] pair $$i/$(PAIRS), side $$side (GOFLAGS=$$flags) at $$(date -u +%H:%M:%S), load $$(cut -d' ' -f1 /proc/loadavg)"; \
	    start=$$(date +%s); \
	    GOFLAGS="$$flags" $(MAKE) --no-print-directory qualify-all STAGE=$(STAGE) ROWS=$(ROWS) RERUN= FAIL_ON=failed \
	      RUN_ID=$(notdir $(AB_DIR))-$$side$$i RUN_DIR=$(AB_DIR)/$$side$$i $(AB_ONE_RUN) || exit $$?; \
	    echo "[compare-ab] pair $$i/$(PAIRS), side $$side took $$(( $$(date +%s) - start ))s, load $$(cut -d' ' -f1 /proc/loadavg) at its end"; \
	  done; \
	done
	@$(MAKE) --no-print-directory bin
	$(QUAL) compare --paired -o $(AB_DIR) $(AB_DIR)

inventory: bin ## print the inventory of TARGET (TRTMC_ROOT for a TRTMC checkout)
	$(QUAL) inventory --target $(TARGET) $(if $(TRTMC_ROOT),--trtmc-root $(TRTMC_ROOT))

# The target file follows the checkout's layout: families/ (newer) or tests/e2e/models/ (older).
TRTMC_TARGET = $(if $(wildcard $(TRTMC_ROOT)/families),suites/targets/trtmc.yaml,suites/targets/trtmc-older.yaml)
inventory-check: bin ## inventory a real TRTMC checkout: make inventory-check TRTMC_ROOT=/path/to/TensorRT-Model-Connect
	@test -n "$(TRTMC_ROOT)" || { echo "set TRTMC_ROOT to a TensorRT-Model-Connect checkout"; exit 2; }
	$(QUAL) inventory --check --target $(TRTMC_TARGET) --trtmc-root $(abspath $(TRTMC_ROOT))

# The TRTMC target file itself, run on the CPU against the contract double: every row it produces
# is labelled as the double's and is never a TRTMC result (suites/targets/testdata/trtmc-double).
# All three stages (FAIL_ON=failed: stage 9 is blocked, so the verdict is PARTIAL at best); the serving image is built from the double's own Dockerfile by the code path that
# builds TRTMC's. Stage 9 is blocked (no profile has an audio question-answering Task) and its probe
# gets TRTMC's documented refusal from the double (404 route_not_served, no record).
TRTMC_DOUBLE := $(CURDIR)/suites/targets/testdata/trtmc-double
qualify-trtmc-double: images ## run suites/targets/trtmc.yaml against the CPU contract double (not a TRTMC result)
	@$(MAKE) --no-print-directory qualify-all TARGET=suites/targets/trtmc.yaml TRTMC_ROOT=$(TRTMC_DOUBLE) RUN_ID=$(RUN_ID) FAIL_ON=failed \
	  SUITES="./suites/asr ./suites/t2i ./suites/audioqa" \
	  QUAL_TRTMC_TRTMC_BINARY=$(TRTMC_DOUBLE)/bin/trtmc QUAL_TRTMC_CUDA_IMAGE='{reference_server_image}' QUAL_TRTMC_GPU=none QUAL_TRTMC_PYTHON=python3 \
	  TRTMC_DOUBLE_NATIVE=$(CURDIR)/build/bin/trtmc-native TRTMC_DOUBLE_SERVER=$(CURDIR)/build/bin/trtmc-server

# Without RUN_DIR on the command line, verify checks the newest run (reports/latest).
verify: bin ## re-check a published run offline (default reports/latest): make verify [RUN_DIR=reports/<run>] [KEY=signer.pub] [TRTMC_ROOT=<checkout>]
	$(VERIFY_ENV) $(QUAL) verify $(if $(KEY),--key $(KEY)) $(if $(filter command line environment,$(origin RUN_DIR)),$(RUN_DIR),reports/latest)

# The server build the body-memory attacks are also run against, as "before".
BENCH_BASELINE ?= f75aeb2
bench: ## run the benchmarks and print their figures
	bash harness/metrics/bench.sh
	go test -run '^$$' -bench . -benchtime 3x ./native/families/sphinx/ ./native/families/procdiff/
	go test -run '^$$' -bench 'ServerOverhead|TranscribeHandler' -benchtime 2000x ./server/
	go test -run '^$$' -bench ServerSphinxThroughput -benchtime 2x ./server/
	go test -run '^$$' -bench ChatAudioPeakRSS -benchtime 1x ./server/
	base=$$(mktemp -d) && git archive $(BENCH_BASELINE) | tar -x -C $$base && (cd $$base && go build -o trtmc-server ./server/cmd/trtmc-server) && \
	  SERVERTEST_BASELINE_BIN=$$base/trtmc-server go test -run '^$$' -bench BodyMemoryAttacksPeakRSS -benchtime 1x ./server/; rc=$$?; rm -rf $$base; exit $$rc
	QUAL_PEER_PYTHON=$$(bash server/peerbench/setup.sh) go test -run '^$$' -bench PeerOverhead -benchtime 1x ./server/
	go test -run '^$$' -bench Whisper -benchtime 2x ./native/families/whisper/

FUZZTIME ?= 10m
fuzz: ## run each fuzz target for FUZZTIME (default 10m); `make test` runs their seed corpora
	go test -run '^$$' -fuzz '^FuzzDecodeWAV$$' -fuzztime $(FUZZTIME) ./native/audio/
	go test -run '^$$' -fuzz '^FuzzStreamIsDecodeWAV$$' -fuzztime $(FUZZTIME) ./native/audio/
	go test -run '^$$' -fuzz '^FuzzTranscriptionMultipart$$' -fuzztime $(FUZZTIME) ./server/
	go test -run '^$$' -fuzz '^FuzzChatContent$$' -fuzztime $(FUZZTIME) ./server/
	go test -run '^$$' -fuzz '^FuzzJSONBodies$$' -fuzztime $(FUZZTIME) ./server/

load: ## the full load test: concurrency 64 for 2 minutes against the real server, with figures
	QUAL_LOAD_CONCURRENCY=64 QUAL_LOAD_SECONDS=120 go test -count=1 -v -run 'TestLoad|TestRSS' ./server/ | grep -E 'load:|RSS|^(---|ok|FAIL)'
