# Assay — make targets. Every target puts Node 24 and the Temporal CLI on PATH first
# (scripts/env.sh installs them into ~/.cache/assay when missing).
SHELL := /bin/bash
ENV := . scripts/env.sh &&
STAMP := node_modules/.assay-install-stamp
# mocha for a subset of the suite: without .mocharc.json, whose spec list would be added to the files named.
MOCHA_ONLY := npx mocha --no-config --require dist/test/setup.js --timeout 60000 --exit --node-option no-node-snapshot --node-option enable-source-maps --node-option expose-gc

.PHONY: install build dev run bundler test test-unit lint bench demo up down record-histories clean screenshots

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
	@$(ENV) node --no-node-snapshot --enable-source-maps dist/bin/main.js dev

## run: API and worker in one process against TEMPORAL_ADDRESS (no dev server)
run: install
	@$(ENV) node --no-node-snapshot --enable-source-maps dist/bin/main.js all

## bundler: the bundler service alone on ASSAY_BUNDLER_PORT (default 8081); docs/bundler.md
bundler: install
	@$(ENV) node --enable-source-maps dist/bin/main.js bundler

## test: the whole suite (unit, store on MySQL/MariaDB and SQLite, API, runs on Temporal, replay, the console in Chromium)
test: install lint
	@scripts/ensure-chromium.sh
	@$(ENV) npx mocha

## screenshots: the browser tests, saving their screenshots into docs/console/ (docs/console.md)
screenshots: install
	@scripts/ensure-chromium.sh
	@$(ENV) ASSAY_SCREENSHOTS=1 $(MOCHA_ONLY) 'dist/test/browser/**/*.test.js'

## test-unit: only the unit tests (no services)
test-unit: install
	@$(ENV) $(MOCHA_ONLY) 'dist/test/unit/**/*.test.js'

## lint: ESLint and the TypeScript checker
lint: $(STAMP)
	@$(ENV) npm run --silent lint

## bench: run overhead against Newman and an undici loop; the CLI against the Newman CLI; script hooks against postman-sandbox; mocks against bare node:http; bundler cold and cached against plain esbuild; worker-kill cost and polling latency; load generation against autocannon and k6 (docs/benchmarks.md)
bench: install
	@$(ENV) node --no-node-snapshot dist/bench/run-overhead.js
	@$(ENV) node --no-node-snapshot dist/bench/cli.js
	@$(ENV) node --no-node-snapshot dist/bench/sandbox.js
	@$(ENV) node --no-node-snapshot dist/bench/mocks.js
	@$(ENV) node dist/bench/bundler.js
	@$(ENV) node --no-node-snapshot dist/bench/durability.js
	@$(ENV) scripts/k6.sh && node --no-node-snapshot dist/bench/load.js

## demo: go-httpbin on loopback, a demo suite through the API, results printed
demo: install
	@$(ENV) scripts/demo.sh

## up / down: the docker-compose stack (MySQL 8, Temporal on MySQL, Temporal UI, API, worker)
up:
	docker compose up -d --build
down:
	docker compose down

## record-histories: refresh test/fixtures/histories (only for a deliberately compatible workflow change)
record-histories: install
	@$(ENV) ASSAY_RECORD_HISTORIES=1 npx mocha --no-config --require dist/test/setup.js --timeout 120000 --exit --node-option no-node-snapshot \
		dist/test/integration/runs.test.js dist/test/integration/worker-restart.test.js dist/test/integration/flows.test.js dist/test/integration/deployments.test.js

clean:
	rm -rf dist node_modules/.assay-install-stamp
