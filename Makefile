# hookd — `make run` starts hookd dev; `make test` runs the whole suite.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)

.PHONY: build run test test-reliability fuzz vet fmt bench clean lint-openapi generate test-typescript

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/hookd ./cmd/hookd

run: build
	./bin/hookd dev

test:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	@big=$$(git ls-files -z | xargs -0 du -k 2>/dev/null | awk '$$1 > 1024 {print $$2}'); test -z "$$big" || { echo "tracked files over 1 MiB (build output?): $$big"; exit 1; }
	$(GO) vet ./...
	$(MAKE) --no-print-directory lint-openapi
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) --no-print-directory test-typescript
	cd deploy/helm/charttest && $(GO) vet ./... && $(GO) test -count=1 ./...
	# A count, not a duration: a duration's deadline races the fuzzing
	# workers in go1.26 (golang/go#75804, fixed in go1.27) and fails the
	# run with "context deadline exceeded" and no failing input.
	$(GO) test -run '^$$' -fuzz '^FuzzVerify$$' -fuzztime 30000x ./signing
	$(GO) test -run '^$$' -fuzz FuzzVerifyProfile -fuzztime 30000x ./signing

# The TypeScript client's packages, the OpenAPI linter among them, as its
# lockfile pins them; installed again only when the lockfile changes.
TS := clients/typescript
$(TS)/node_modules/.package-lock.json: $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error

# The API's OpenAPI document lints clean (rules: clients/typescript/redocly.yaml).
lint-openapi: $(TS)/node_modules/.package-lock.json
	cd $(TS) && npx --no-install redocly lint --format=summary --config redocly.yaml ../../internal/api/openapi.yaml

# The TypeScript client: its types type-check, schema.d.ts is current, and
# it drives a real hookd dev (bin/hookd) on free ports.
test-typescript: build $(TS)/node_modules/.package-lock.json
	cd $(TS) && npm run --silent typecheck && HOOKD_BIN=$(CURDIR)/bin/hookd node --test test/

# Regenerates the clients' types from internal/api/openapi.yaml: Go's
# (apiclient/wire, oapi-codegen) and TypeScript's
# (clients/typescript/schema.d.ts, openapi-typescript). make test fails
# while either is stale.
generate: $(TS)/node_modules/.package-lock.json
	$(GO) generate ./apiclient/...
	cd $(TS) && npm run --silent generate

# Each fuzz target for a while (make test runs their seed corpora).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzVerify$$' -fuzztime $(FUZZTIME) ./signing
	$(GO) test -run '^$$' -fuzz FuzzVerifyProfile -fuzztime $(FUZZTIME) ./signing
	$(GO) test -run '^$$' -fuzz FuzzEventValidation -fuzztime $(FUZZTIME) ./internal/api
	$(GO) test -run '^$$' -fuzz FuzzEndpointValidation -fuzztime $(FUZZTIME) ./internal/api

# The reliability scenarios at full size (500 in flight at kill -9, ...);
# `make test` runs them small.
test-reliability:
	HOOKD_RELIABILITY=full $(GO) test -count=1 -timeout 15m -v -run . ./internal/reliability | grep -v '^=== '

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin

include cmd/hookd-bench/bench.mk
include deploy/scaleout.mk
