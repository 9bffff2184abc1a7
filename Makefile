# trtmc-qual: two commands do everything. `make qualify` runs the main job, `make test` the tests.
SHELL := /bin/bash
export GOFLAGS ?= -mod=mod
export CGO_ENABLED := 1
# The reaper image cannot be pulled on an offline machine, and testcontainers would otherwise
# guess the docker host from inside what looks like a container: see README, "Containers".
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE ?= localhost
export QUAL_CACHE ?= $(HOME)/.cache/trtmc-qual
export QUAL_PARITY_PYTHON ?= $(QUAL_CACHE)/parity-venv/bin/python

.PHONY: help deps test bench
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

deps: ## install every dependency (apt packages, Go modules, parity venv)
	bash harness/scripts/deps.sh

test: ## run the whole test suite
	go vet ./...
	go test -count=1 ./...

bench: ## run the benchmarks and print their figures
	bash harness/metrics/bench.sh
	go test -run '^$$' -bench . -benchtime 3x ./native/families/sphinx/
