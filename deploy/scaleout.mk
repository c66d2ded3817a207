# Scale-out and deploy targets; the top-level Makefile includes this file.

.PHONY: test-scaleout test-deploy image

# The multi-process test at full size: one Temporal server process, PostgreSQL,
# two workers (one killed with SIGKILL mid-run) and one API; 1000 deliveries.
# `HOOKD_SCALEOUT=smoke` runs it with 100; `make test` runs only the in-process version.
# Also a rate limit's sum over two `hookd serve` wirings on one PostgreSQL
# (TestRateLimitAcrossServes, in-process, ~20s; `make test` runs it too).
test-scaleout:
	HOOKD_SCALEOUT=1 $(GO) test -count=1 -timeout 15m -v -run 'TestScaleOut|TestRateLimitAcrossServes' ./internal/scaleout/

# Checks the Dockerfile, Kubernetes manifests and compose file against hookd's flags.
test-deploy:
	$(GO) test -count=1 -run TestDeploy ./internal/cli/

# Builds the container image (needs a Docker engine; none on CI machines).
image:
	docker build -f deploy/Dockerfile --build-arg VERSION=$(VERSION) -t ghcr.io/hookd/hookd:$(VERSION) .
