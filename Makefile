# Every target runs with a Node.js that satisfies package.json "engines": the machine's own when
# it is new enough, else the pinned LTS that scripts/ensure-node.sh installs into a user cache.
#
# `make help` lists the targets with the text after their `##`. Targets are declared .PHONY in
# small groups, each beside the targets it names, rather than on one shared line: a branch that
# adds targets adds a .PHONY line of its own and does not collide with another branch on the list.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

# `make help` reads only this file, so it needs no Node.js.
ifneq ($(MAKECMDGOALS),help)
NODE_BIN := $(shell ./scripts/ensure-node.sh)
ifeq ($(NODE_BIN),)
$(error could not provision Node.js; see scripts/ensure-node.sh)
endif
export PATH := $(NODE_BIN):$(PATH)
endif

STAMP := node_modules/.install-stamp

.PHONY: build deps compile test format lint typecheck unit integration generate crds manifests verify bench bench-operator bench-api bench-ui bench-queue bench-container-start golden clean step-runner cluster-build cluster-up cluster-down dev

.PHONY: help
help: ## list the targets with what each does (from their ## comments in this Makefile)
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-zA-Z0-9_.-]+:[^=]*## / { printf "  %-22s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(STAMP) ## install the npm dependencies (npm ci) when package.json or package-lock.json changed

build: deps compile ui ## install dependencies, compile to dist/ and build the web UI into dist/ui/

compile: deps ## compile the TypeScript sources to dist/
	npx tsc -p tsconfig.build.json

lint: deps ## Prettier's check, eslint over the repository, no import circle anywhere (dpdm) and no two folders importing each other
	npx prettier --check . --log-level warn
	npx eslint .
	@# An import circle anywhere fails: every folder's TypeScript, type-only imports included.
	npx dpdm --no-tree --no-warning --no-progress --exit-code circular:1 --tsconfig tsconfig.json $(foreach d,core operator apiserver step cli cluster image build scripts bench test,'$(d)/**/*.ts') 'ui/src/**/*.ts' 'ui/src/**/*.tsx'
	node scripts/folder-pairs.ts

typecheck: deps ## type check the sources and the web UI without emitting
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p ui/tsconfig.json --noEmit

.PHONY: ui ui-dev
UI_SOURCES := $(shell find ui -type f -not -name '*.test.ts')

dist/ui/index.html: $(STAMP) $(UI_SOURCES)
	npx vite build --config ui/vite.config.ts --logLevel warn

ui: dist/ui/index.html ## build the web UI into dist/ui/ (the API server serves it at /); only when its sources changed

ui-dev: deps ## the web UI from Vite's dev server with hot reload, /api proxied to the API server of `make dev` (KUBEDAG_API_PORT, else the stack in KUBEDAG_DEV_DIR or .dev)
	npx vite --config ui/vite.config.ts

.PHONY: test-servers
test-servers: ## servers the unit tests start on loopback (OpenSSH sshd from Debian's openssh-server for the executors, PostgreSQL from Debian's postgresql for the history store), installed when missing
	./scripts/ensure-sshd.sh >/dev/null
	./scripts/ensure-postgres.sh >/dev/null

unit: deps ## pure tests of modules, beside them (*.test.ts): no server, no cluster
	@mkdir -p .dev
	npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=.dev/vitest-unit.json

.PHONY: loopback
loopback: deps test-servers ## tests of modules against real servers they start on loopback (*.loopback.test.ts: sshd, SMTP, PostgreSQL, OTLP, HTTP)
	@mkdir -p .dev
	npx vitest run --project loopback --reporter=default --reporter=json --outputFile.json=.dev/vitest-loopback.json

.PHONY: test-browser
test-browser: ## the headless Chromium of the web UI's browser tests (Debian's chromium), installed when missing
	./scripts/ensure-chromium.sh >/dev/null

.PHONY: test-oidc
test-oidc: ## Dex, the OpenID Connect provider of the sign-in tests, built from its Go module into ~/.cache/kubedag when missing (needs Go)
	node scripts/ensure-dex.ts >/dev/null

integration: deps ui test-browser test-image-tools test-oidc ## tests against a fresh local control plane (builds its binaries once; needs Go); the web UI's in a headless Chromium
	@mkdir -p .dev
	npx vitest run --project integration --reporter=default --reporter=json --outputFile.json=.dev/vitest-integration.json

test: build verify lint typecheck unit loopback integration real-node ## everything CI checks
	@node scripts/test-summary.ts .dev/vitest-unit.json .dev/vitest-loopback.json .dev/vitest-integration.json .dev/vitest-real-node.json .dev/vitest-e2e.json

.PHONY: real-node
real-node: deps ## as root: the real-node suite (test-real-node), then the chart from make image with the e2e suite on a real node (real-node-e2e); without root both are skipped, said so
	@rm -f .dev/vitest-real-node.json .dev/vitest-e2e.json
	@if [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory test-real-node real-node-e2e; else echo 'real-node: skipped, a real kubelet and containerd need root (docs/real-node.md)'; fi

.PHONY: image image-lock test-image-tools
image: deps ui ## the OCI image (operator, API server, web UI, step runner, CLI) without a container engine: dist/image/kubedag-<tag>.oci.tar and its CycloneDX SBOM beside it
	node image/build.ts

image-lock: deps ## pin the image's Debian packages to the versions this machine's apt offers now (image/debian.lock.json)
	node image/lock.ts

.PHONY: kind-e2e
kind-e2e: deps ui test-browser ## on a machine with Docker and kind: make image, load it into a kind cluster (KIND_CLUSTER), install the chart with it and run the e2e suite (test/e2e) against it
	node scripts/kind-e2e.ts

test-image-tools: ## skopeo and umoci (Debian's), which the image's tests read the archive with, installed when missing
	./scripts/ensure-image-tools.sh

generate: deps ## regenerate checked-in files from their TypeScript sources
	node scripts/generate.ts

crds: generate ## regenerate crds/ (and every other generated file) from core/resources/schemas.ts

manifests: deps ## render manifests/kubedag.yaml from the Helm chart (needs the control-plane binaries for helm; the chart test checks it is current)
	node scripts/manifests.ts

format: deps ## rewrite every TypeScript, JavaScript, CSS and HTML file in Prettier's layout (.prettierrc.json); make lint checks it
	npx prettier --write . --log-level warn

verify: deps ## fail when a generated file differs from its source
	node scripts/generate.ts --check

golden: deps ## rewrite the golden files of the normalised model
	UPDATE_GOLDEN=1 npx vitest run --project unit core/dag/golden.test.ts

bench: deps ## parse and validate benchmarks (figures, not pass/fail)
	node bench/dag-parse.bench.ts

bench-operator: deps ## operator benchmark on a fresh local control plane (figures, not pass/fail)
	node bench/operator.bench.ts

bench-api: deps ## API server benchmark: 1,000 DAGs, 10,000 runs, on a fresh local control plane (figures, not pass/fail)
	node bench/api.bench.ts

bench-ui: deps ui test-browser ## web UI render times in headless Chromium with 1,000 DAGs and 10,000 runs, on a fresh local control plane (figures, not pass/fail)
	node bench/ui.bench.ts

bench-queue: deps ## queue admission latency with 1,000 queued runs, on a fresh local control plane (figures, not pass/fail)
	node bench/queue.bench.ts

.PHONY: bench-scale
bench-scale: deps ## issue 23's scale figures on a fresh local control plane: big graph and chain runs (BENCH_STEPS, BENCH_CHAIN_STEPS), retained history (BENCH_RUNS, BENCH_DAGS); BENCH_OUT=file for JSON (figures, not pass/fail)
	node bench/scale.bench.ts

.PHONY: api-fuzz
API_FUZZ_EXAMPLES ?= 50
API_FUZZ_SEED ?= 1
API_FUZZ_STACK ?= fuzz
API_FUZZ_API ?= v2
api-fuzz: deps ## schemathesis (every check and phase) against the API server on a fresh local control plane of its own; fails on any failure (API_FUZZ_EXAMPLES cases per operation and phase, API_FUZZ_SEED; API_FUZZ_STACK=dev for the programs as make dev runs them; API_FUZZ_API=v1 for Dagu 2.x's /api/v1)
	node scripts/api-fuzz.ts --max-examples=$(API_FUZZ_EXAMPLES) --seed=$(API_FUZZ_SEED) --stack=$(API_FUZZ_STACK) --api=$(API_FUZZ_API)

bench-container-start: deps ## node agent container start latency, bare and sandboxed (figures, not pass/fail; needs root)
	node bench/container-start.bench.ts

.PHONY: chaos
chaos: deps ## failure tests, long variant, on a control plane of their own: 100 runs through 20 operator SIGKILLs, kube-apiserver restarted, etcd paused, a node agent killed (KUBEDAG_CHAOS_* sizes, see test/chaos/sizes.ts; figures in .dev/chaos.json)
	node test/chaos/main.ts

step-runner: deps ## bundle kubedag-step (the http/jq/mail/ssh step runner) into the world-readable cache the local cluster's node agents put on containers' PATH; prints its bin directory
	node scripts/step-runner.ts

.PHONY: real-node-build test-real-node real-node-e2e
real-node-build: deps ## what the real node needs (docs/real-node.md): kubelet, kube-proxy, containerd built from Go modules into ~/.cache/kubedag, runc and the CNI plugins from Debian, the pause and busybox images (once per machine; needs root and Go)
	node cluster/cli.ts build --real-node

test-real-node: deps real-node-build ## the real-node suite (test/real-node): a cluster in a network namespace of its own with one real kubelet on containerd and runc, Pods of the busybox image built here; needs root (figures in .dev/real-node-figures.json)
	@mkdir -p .dev
	KUBEDAG_REAL_NODE_TESTS=1 npx vitest run --project real-node --reporter=default --reporter=json --outputFile.json=.dev/vitest-real-node.json

real-node-e2e: deps ui test-browser real-node-build ## where there is no Docker, as root: make image, a local cluster with a real node, the image imported into its containerd, the chart installed with it and the e2e suite (test/e2e) run against it (KUBEDAG_KEEP_CLUSTER=1 keeps the cluster)
	node scripts/real-node-e2e.ts

cluster-build: deps ## build the local control-plane binaries (once per machine; needs Go)
	node cluster/cli.ts build

cluster-up: deps ## start the local control plane and node agents (idempotent); writes .dev/kubeconfig; KUBEDAG_REAL_NODE=1 for one real node instead, in a network namespace (needs root; docs/real-node.md)
	node cluster/cli.ts up

cluster-down: deps ## stop everything cluster-up started
	node cluster/cli.ts down

dev: deps ui ## the local control plane, the operator and the API server (with the web UI) in the foreground; Ctrl-C stops it. Side by side: KUBEDAG_DEV_DIR, KUBEDAG_API_PORT, KUBEDAG_OPERATOR_PORT
	node cluster/cli.ts dev

clean: ## remove dist/ and node_modules/
	rm -rf dist node_modules
