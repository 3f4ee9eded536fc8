# Assay — make targets. Every target puts Node 24 and the Temporal CLI on PATH first
# (scripts/env.sh installs them into ~/.cache/assay when missing).
SHELL := /bin/bash
ENV := . scripts/env.sh &&
# glibc's malloc arenas, one per load thread (one per core by default), fragment: two keep a
# worker's RSS flat (docs/benchmarks.md "Load threads' memory"; the image sets the same).
ARENAS := MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2}
STAMP := node_modules/.assay-install-stamp
# mocha for a subset of the suite: without .mocharc.json, whose spec list would be added to the files named.
MOCHA_ONLY := npx mocha --no-config --require dist/test/setup.js --timeout 60000 --exit --node-option no-node-snapshot --node-option enable-source-maps --node-option expose-gc

.PHONY: install build dev run bundler test postman-corpus test-unit test-workflows lint bench bench-openapi bench-cluster demo up down record-histories clean screenshots cluster cluster-down cluster-status test-cluster

## install: project dependencies (npm ci) and the compiled build
install: $(STAMP) build

# `npm install`, not `npm ci`: the registry these machines reach lacks some optional platform
# packages of @swc/core (404), so npm records no lockfile entry for them and `npm ci` refuses the
# lockfile. `npm install` installs the versions the lockfile pins all the same.
$(STAMP): package.json package-lock.json
	@$(ENV) npm install --no-audit --no-fund
	@touch $(STAMP)

## build: TypeScript to dist/ and the prebuilt workflow bundle
build: $(STAMP)
	@$(ENV) npm run --silent build

## dev: everything locally (Temporal dev server + Web UI, store, API, worker); prints URLs and the dev key
dev: install
	@$(ENV) $(ARENAS) node --no-node-snapshot --enable-source-maps dist/bin/main.js dev

## run: API and worker in one process against TEMPORAL_ADDRESS (no dev server)
run: install
	@$(ENV) $(ARENAS) node --no-node-snapshot --enable-source-maps dist/bin/main.js all

## bundler: the bundler service alone on ASSAY_BUNDLER_PORT (default 8081); docs/bundler.md
bundler: install
	@$(ENV) node --enable-source-maps dist/bin/main.js bundler

# The other Nodes test/integration/cli/node-versions.test.ts runs the one-file CLI with (besides
# Node 24): the oldest release it supports, and an older major that it must refuse in one line.
CLI_TEST_NODES := 22.0.0 20

## test: the whole suite (unit, store on MySQL/MariaDB and SQLite, API, runs on Temporal, replay, the console in Chromium, the CLI on Node 22 and 24)
test: install lint
	@scripts/ensure-chromium.sh
	@$(ENV) for v in $(CLI_TEST_NODES); do scripts/ensure-node.sh $$v >/dev/null || exit 1; done
	@$(ENV) npx mocha

## screenshots: the browser tests, saving their screenshots into docs/console/ (docs/console.md)
screenshots: install
	@scripts/ensure-chromium.sh
	@$(ENV) ASSAY_SCREENSHOTS=1 $(MOCHA_ONLY) 'dist/test/browser/**/*.test.js'

## test-unit: only the unit tests (no services)
test-unit: install
	@$(ENV) $(MOCHA_ONLY) 'dist/test/unit/**/*.test.js'

## test-workflows: the run and loop segment workflows with stubbed activities (a Temporal dev server of their own, no database; docs/development.md)
test-workflows: install
	@$(ENV) $(MOCHA_ONLY) 'dist/test/workflows/**/*.test.js'

## lint: ESLint, the TypeScript checker, and Spectral on the API's own OpenAPI document (docs/api.md)
lint: $(STAMP)
	@$(ENV) npm run --silent lint

## bench: run overhead against Newman and an undici loop; the CLI against the Newman CLI; script hooks against postman-sandbox; mocks against bare node:http and Prism (npm peers installed on demand into ~/.cache/assay/peers); stateful CRUD mocks on SQLite and MySQL/MariaDB against Mockoon's CRUD routes; OpenAPI mocks against their own contract tests; bundler cold and cached against plain esbuild; worker-kill cost and polling latency; load generation against autocannon and k6; live control latency of a performance run (command → every shard); scaling with worker processes; durability modes node and testCase (one run and 20 at once) against Newman and undici loops; parallel suites (concurrency 1/4/16, both modes) against Newman; an OAuth 2.0 auth profile against a static bearer header under load; one test case's history over 10,000 runs on SQLite and MySQL/MariaDB; 1,000 runs waiting at Callback nodes (BENCH_CALLBACK_RUNS); Poll delays on Temporal's default timer settings and on Assay's dev server; the payload codec per payload, ring key against workspace keys and sealed secrets (docs/benchmarks.md)
bench: install
	@$(ENV) node --no-node-snapshot dist/bench/run-overhead.js
	@$(ENV) node --no-node-snapshot dist/bench/cli.js
	@$(ENV) node --no-node-snapshot dist/bench/sandbox.js
	@$(ENV) node --no-node-snapshot dist/bench/mocks.js
	@$(ENV) node --no-node-snapshot dist/bench/mock-crud.js
	@$(ENV) node --no-node-snapshot dist/bench/openapi-contract.js
	@$(ENV) node --no-node-snapshot dist/bench/openapi-vendors.js
	@$(ENV) node dist/bench/bundler.js
	@$(ENV) node --no-node-snapshot dist/bench/durability.js
	@$(ENV) scripts/k6.sh && $(ARENAS) node --no-node-snapshot dist/bench/load.js
	@$(ENV) node --no-node-snapshot dist/bench/scaling.js
	@$(ENV) node --no-node-snapshot dist/bench/durability-modes.js
	@$(ENV) node --no-node-snapshot dist/bench/parallel-suite.js
	@$(ENV) node --no-node-snapshot dist/bench/load-control.js
	@$(ENV) node --no-node-snapshot dist/bench/oauth-profile.js
	@$(ENV) node --no-node-snapshot dist/bench/history-query.js
	@$(ENV) node --no-node-snapshot dist/bench/callbacks.js
	@$(ENV) node --no-node-snapshot dist/bench/timers.js
	@$(ENV) node dist/bench/codec.js

## bench-openapi: every public OpenAPI description imported end to end as a user does it (CLI, mocks, runs; about an hour here): imports with mocks, contract tests passing, 5xx, import times (docs/benchmarks.md "OpenAPI descriptions end to end"); BENCH_OPENAPI_FILES=a,b for some
bench-openapi: install
	@$(ENV) node --no-node-snapshot dist/bench/openapi-vendors.js

## bench-cluster: the scaling bench (1 and 2 worker processes) on the Temporal server of `make cluster` (started when not running)
bench-cluster: cluster
	@$(ENV) TEMPORAL_ADDRESS=127.0.0.1:$${CLUSTER_TEMPORAL_PORT:-7233} BENCH_SCALING_LABEL="cluster (Temporal 1.30.8 on PostgreSQL)" node --no-node-snapshot dist/bench/scaling.js

## demo: go-httpbin on loopback, a demo suite through the API, results printed
demo: install
	@$(ENV) scripts/demo.sh

## cluster: the production topology on this machine, no Docker: a Temporal server on PostgreSQL (+ its Web UI), the API, ASSAY_WORKERS (2) workers and the bundler as separate processes; prints URLs and the dev key (docs/cluster.md)
cluster: install
	@scripts/ensure-postgres.sh && scripts/ensure-mariadb.sh && scripts/ensure-temporal-server.sh
	@$(ENV) node dist/bin/cluster.js up

## cluster-down: stops every process of `make cluster`
cluster-down:
	@$(ENV) node dist/bin/cluster.js down

## cluster-status: one line per cluster process
cluster-status:
	@$(ENV) node dist/bin/cluster.js status

## test-cluster: the cluster suite (REST smoke, a run, a schedule, a webhook, kill -9 chaos) against the running `make cluster`; no rebuild, so the cluster's dist/ stays as it runs; load from two hosts on network namespaces (test/cluster/load-hosts.test.ts) and a parallel suite over 1, 2 and 4 worker hosts (test/cluster/suite-hosts.test.ts; both root only, need no cluster)
test-cluster: $(STAMP)
	@$(ENV) ASSAY_CLUSTER=1 $(MOCHA_ONLY) --timeout 300000 'dist/test/cluster/**/*.test.js'

## postman-corpus: Newman's own integration collections (test/fixtures/postman/newman-corpus) run by Newman and, imported, by Assay against loopback servers: the share of tests giving Newman's result (docs/import-postman.md "Side by side with Newman"; a few minutes, not part of `make test`)
postman-corpus: install
	@$(ENV) $(MOCHA_ONLY) --timeout 1800000 'dist/test/corpus/**/*.test.js'

## up / down: the docker-compose stack, the same topology as `make cluster` (PostgreSQL 15 + Temporal on deploy/temporal/config.yaml, Temporal UI, MySQL 8, API, workers, bundler)
up:
	docker compose up -d --build
down:
	docker compose down

## record-histories: refresh test/fixtures/histories (only for a deliberately compatible workflow change)
record-histories: install
	@$(ENV) ASSAY_RECORD_HISTORIES=1 npx mocha --no-config --require dist/test/setup.js --timeout 120000 --exit --node-option no-node-snapshot \
		dist/test/integration/runs/runs.test.js dist/test/integration/durability/worker-restart.test.js dist/test/integration/runs/flows.test.js dist/test/integration/deployments/deployments.test.js \
		dist/test/integration/history/rerun-replay.test.js dist/test/integration/durability/test-case-mode.test.js \
		dist/test/integration/durability/parallel-crash.test.js

clean:
	rm -rf dist node_modules/.assay-install-stamp
