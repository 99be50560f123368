# olmcat — see README.md. Two commands do everything on a fresh machine: `make run` and `make test`.
GO        ?= go
BIN       := bin/olmcat
OUT       := out
SHARED    ?= ../shared
FUZZTIME  ?= 5m

.PHONY: build image run test newcomer e2e hostile bench fuzz vet clean

# A static binary (modernc sqlite is pure Go), stamped with the version and the source revision.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOBUILD   := CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=auto -ldflags "-s -w -X main.version=$(VERSION)"
build:
	$(GOBUILD) -o $(BIN) ./cmd/olmcat

# olmcat's own multi-arch base image (issue 37), the image `olmcat build --base` puts catalogs on: the static binary
# cross-compiled for each of IMAGE_PLATFORMS as `make build` builds it, then written as an OCI image index by
# `olmcat generate base-image`, without a daemon. IMAGE is an oci-layout:DIR (the default, replaced on each run) or a
# registry reference (pushed; credentials from the docker/podman config). The images are stamped with
# SOURCE_DATE_EPOCH, the last commit's time unless set: the same commit gives the same digest.
IMAGE           ?= oci-layout:$(OUT)/olmcat-image
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64 linux/ppc64le linux/s390x
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
image: build
	@for p in $(IMAGE_PLATFORMS); do \
	  echo "== go build $$p"; \
	  GOOS=$${p%%/*} GOARCH=$${p#*/} $(GOBUILD) -o $(OUT)/image-bin/$$(echo $$p | tr / -)/olmcat ./cmd/olmcat || exit 1; \
	done
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(BIN) generate base-image $(if $(filter oci-layout:$(OUT)/olmcat-image,$(IMAGE)),--force) \
	  $(foreach p,$(IMAGE_PLATFORMS),--binary $(p)=$(OUT)/image-bin/$(subst /,-,$(p))/olmcat) --to-image $(IMAGE) \
	  --extra-labels org.opencontainers.image.version=$(VERSION)

# The main job on the bundled fixtures: index.db -> FBC, validate it, to catalog templates, render it, back to index.db,
# prove both serve the same gRPC answers, and show what the round trip changed.
run: build
	@rm -rf $(OUT)/run && mkdir -p $(OUT)/run
	@echo "== olmcat migrate fixtures/index.db -> $(OUT)/run/catalog (index.db to FBC, input untouched)"
	$(BIN) migrate fixtures/index.db $(OUT)/run/catalog --report $(OUT)/run/migrate-report.json
	@find $(OUT)/run/catalog -type f | sort
	@echo "== olmcat validate $(OUT)/run/catalog"
	$(BIN) validate $(OUT)/run/catalog
	@echo "== olmcat migrate fixtures/index.db -> $(OUT)/run/templates (the catalog templates maintainers edit, each proven by rendering it)"
	$(BIN) migrate fixtures/index.db $(OUT)/run/templates --to semver-template --report $(OUT)/run/templates-report.json
	@echo "== olmcat render fixtures/index.db (first lines of the FBC stream)"
	$(BIN) render fixtures/index.db | head -n 20
	@echo "== olmcat migrate --to sqlite $(OUT)/run/catalog -> $(OUT)/run/index.db (FBC back to index.db)"
	$(BIN) migrate $(OUT)/run/catalog $(OUT)/run/index.db --to sqlite --report $(OUT)/run/tosqlite-report.json
	@echo "== olmcat compat fixtures/index.db $(OUT)/run/catalog (both served in-process: same gRPC answers?)"
	$(BIN) compat fixtures/index.db $(OUT)/run/catalog
	@echo "== olmcat diff fixtures/catalog $(OUT)/run/catalog (what crossing index.db changed)"
	$(BIN) diff fixtures/catalog $(OUT)/run/catalog --stat
	@echo "done: outputs are in $(OUT)/run"

# TestNewcomer (make newcomer) runs the binary built here.
test: build
	$(GO) vet ./...
	OLMCAT_BIN=$(abspath $(BIN)) $(GO) test -timeout 45m ./...

# The first hour of a newcomer (issue 34), through the built binary as a shell runs it: every
# example of README.md's sh blocks on the bundled fixtures (the README's quay.io references served
# by a loopback registry), each exiting as documented, then the usual mistakes (an argument left
# out, a mistyped flag or command, a duplicate blob, a misspelled template schema) each answered
# with what was meant. About 40 s on a shared machine; make test runs it too, on the binary it builds
# (plain `go test` builds one for it, which takes longer).
newcomer: build
	OLMCAT_BIN=$(abspath $(BIN)) $(GO) test -count=1 -v -run 'TestNewcomer' ./cmd/olmcat

# olmcat's catalog images run as a cluster runs them (issue 29.1), about 1 minute: built without a daemon from an FBC
# directory, an index.db, an index image and a template (fixtures), loaded into podman and run with a random non-root
# UID, a read-only root file system, TMPDIR on a tmpfs and a Secret-like TLS volume; each must answer every
# api.Registry call as the catalog served in-process, grpc_health_probe inside, /readyz /livez /metrics and
# catalogd's API over HTTPS, pick up a swapped certificate, stop within 2 s of SIGTERM with exit 0 and log JSON;
# then `generate kube`'s Deployment is played with `podman kube play`. Needs root and apt (podman-here installs
# podman and runc); skips with one line saying why when podman cannot be installed or run.
# Then every platform of olmcat's base image (make image) is checked (index, digests, config, the binary's
# architecture) and a catalog image built on it is run and probed where podman here can run it: natively, or under
# QEMU when binfmt_misc handlers are registered (apt-get install qemu-user-static binfmt-support); a platform that
# cannot run is skipped with one line saying why.
PODMAN_HERE ?= $(SHARED)/tools/podman-here
e2e: build
	$(MAKE) image IMAGE=oci-layout:$(OUT)/olmcat-image
	bash fixtures/e2e/run.sh "$(GO)" $(BIN) $(PODMAN_HERE) $(OUT)/olmcat-image

# The hostile-input suite of issue 19, every scenario (make test runs its short form): hostile
# inputs generated in a scratch root, the built binary run against them, each run checked for
# its exit code, one sentence on stderr, no write outside its output, inputs unchanged, no
# temporary file left and bounded memory. Full disks and read-only mounts need root (tmpfs).
# Then a basic template of 20,000 bundle images rendered in bounded memory (issue 26 item 6).
hostile:
	OLMCAT_HOSTILE=full $(GO) test -count=1 -timeout 30m -v -run TestHostile ./fixtures/hostile
	OLMCAT_HOSTILE=full $(GO) test -count=1 -timeout 30m -v -run TestTemplateMemoryDoesNotGrowWithLength ./internal/bundlefetch

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

# Scale workloads: wall time, CPU time and peak RSS of each operation on ../shared/bench/s5k (opm-built,
# next to opm's figures), then the scale curve on generated gen-s5k and gen-s50k with s50k/s5k ratios
# (see fixtures/BENCHMARKS.md). About 12 minutes on an idle machine, 35+ on a busy one; OLMCAT_BENCH_SCALE=0
# skips gen-s50k (about 3 minutes); OLMCAT_BENCH_REPEAT=3 keeps the best of 3 runs of each scale
# measurement.
bench: build
	GO="$(GO)" bash fixtures/bench.sh $(BIN) $(SHARED)/bench

# Every fuzzer for FUZZTIME each.
fuzz:
	bash fixtures/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin $(OUT)
