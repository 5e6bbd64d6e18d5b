# fortune-tck: the conformance suite and the reference implementation of the fortune interface.
GO ?= go
BENCHTIME ?= 1s

# How many mutants make mutants runs, for its help.
MUTANTS = $(shell grep -c '^  - id:' tools/mutants/catalogue.yaml)

.PHONY: help demo test test-module test-example test-short conformance interop bench load scale scale-auth deps vet build images tck-image compose-up compose-down mutants
help:
	@echo "make demo         build bin/reference and run its stack on the default ports, data in .data/ (ARGS='--port fortune=18787' for flags of reference up)"
	@echo "make test         install test dependencies if needed, vet, and run every test (also the suite against the reference, and examples/go-test)"
	@echo "make test-short   the fast tier: every test that needs only Go and git (go test -short ./...; the others skip, naming their program)"
	@echo "make conformance  run the suite against the reference and write reports/ (TARGET=file.yaml for another implementation, TAGS='@spec-4.4' for some scenarios)"
	@echo "make interop      run the suite against each implementation of examples/ (oidc-provider, zitadel, Hydra) and write reports/interop/ with its table (ONLY=name,name)"
	@echo "make mutants      run the suite against each of the $(MUTANTS) deliberate bugs of tools/mutants/catalogue.yaml, on every target make test runs its service on (the reference; the gateway's also envoy-ratelimit, fortune's and greeting's also oidc-provider), about 30 s a target, ~70 min (ONLY=id,id TARGETS=reference,envoy-ratelimit J=n)"
	@echo "make bench        run the benchmarks and print each one as a ratio to the baseline of the same run"
	@echo "make load         start each service and its baseline, drive them under load, print their ratios to a baseline (~2.5 min; D=5s C=32 ONLY=gateway,fortune,config)"
	@echo "make scale        measure what grows with the data: each figure at two sizes and their ratio, then each budget and whether it holds (~2 min: SCALE=config,gateway ROUNDS=20)"
	@echo "make scale-auth   the authorization server's scale figures: tokens and users, 1,000 and 100,000, each store (~6 min; STORES=bolt,memory,postgres)"
	@echo "make images       build the reference image from this checkout (BASE=image to change the runtime base)"
	@echo "make tck-image    build the suite's image (tck, Chromium, git) from this checkout (DEBIAN=image to change its base; docs/ci.md)"
	@echo "make compose-up   build the reference image and start docker-compose.yml's stack in the background (local images without a registry)"
	@echo "make compose-down stop that stack and remove its volume"

# The built binary, not go run: go run exits 1 when Ctrl-C stops it, though reference up stops cleanly (0).
demo:
	$(GO) build -buildvcs=auto -o bin/reference ./cmd/reference
	bin/reference up --data .data$(if $(ARGS), $(ARGS))

# examples/go-test is a module of its own (an implementation's go test running the suite): go test ./... does not
# reach it, so it runs beside it (make -j2; -Oline keeps each line of their output whole). After it, it added
# 25-35 s to make test here.
# -timeout 45m: the first build of the tck image (cmd/tck/containertest) installs Chromium into it (15 min on a
# loaded two-core machine with the vfs storage driver), longer than go test's default 10 min for a package.
test: deps vet
	@$(MAKE) --no-print-directory -j2 -Oline test-module test-example

test-module:
	$(GO) test -count=1 -timeout 45m ./...

test-example:
	$(GO) -C examples/go-test test -count=1 ./...

# The inner loop: tests that run redis-server, PostgreSQL, Chromium, Docker, node or the rate limit service skip
# (internal/needs), so this needs only Go and git and no make deps. make test and CI run everything.
test-short:
	$(GO) test -short ./...

deps:
	@scripts/deps.sh

vet:
	@unformatted=$$(gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) -C examples/go-test vet ./...
	$(GO) -C examples/go-test mod tidy -diff

# A conformance run installs only what it needs, and runs the built tck so that its exit status (1 failed or
# blocked, 2 bad usage or target, 3 the target cannot be tested) reaches CI as it is (go run turns every failure into 1).
conformance:
	@scripts/deps.sh --conformance$(if $(TARGET), --target)
	$(GO) build -buildvcs=auto -o bin/tck ./cmd/tck
	bin/tck run$(if $(TARGET), --target $(TARGET))$(if $(TAGS), --tags '$(TAGS)')

interop: deps
	@scripts/hydra-deps.sh
	$(GO) run ./tools/interop$(if $(ONLY), --only $(ONLY))

mutants: deps
	$(GO) run ./tools/mutants$(if $(ONLY), --only $(ONLY))$(if $(TARGETS), --targets $(TARGETS))$(if $(J), -j $(J))

bench:
	@mkdir -p reports
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./... | tee reports/bench.txt
	$(GO) run ./tools/benchratio < reports/bench.txt

load:
	$(GO) run ./tools/load$(if $(D), -d $(D))$(if $(C), -c $(C))$(if $(ONLY), -only $(ONLY))$(if $(PROFILE), -profile $(PROFILE))

# The configuration server's and the gateway's scale figures: the reference's processes on loopback, as make load.
SCALE ?= config,gateway
scale:
	$(GO) run ./tools/load -scale $(SCALE)$(if $(ROUNDS), -rounds $(ROUNDS))

# The authorization server's scale figures: Go benchmarks on each store, 1,000 and 100,000 tokens and users.
scale-auth:
	$(GO) test -run '^$$' -bench Scale -benchtime 1x -timeout 60m ./reference/authserver/ -args -scale$(if $(STORES), -scale.stores=$(STORES))

build:
	$(GO) build -buildvcs=auto -o bin/ ./cmd/...

# The reference image, with the binary compiled here (static) rather than in a Go image: the build needs no
# registry but BASE's, and no module proxy.
IMAGE ?= fortune-tck/reference:latest
BASE ?= gcr.io/distroless/static-debian12:nonroot
images:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o build/reference ./cmd/reference
	docker build --target local --build-arg BASE=$(BASE) -t $(IMAGE) .

# The stack of docker-compose.yml in the background: scripts/compose.sh finds docker compose or docker-compose,
# and uses local images where no registry can be reached.
compose-up:
	@IMAGE=$(IMAGE) BASE=$(BASE) scripts/compose.sh up

compose-down:
	@scripts/compose.sh down

# The suite's image (the Dockerfile's tck target), for any CI: docs/ci.md. The binaries are built here; the legacy
# builder builds the stages before tck too, hence build/reference and BASE.
TCK_IMAGE ?= fortune-tck/tck:latest
DEBIAN ?= debian:bookworm-slim
tck-image:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o build/tck ./cmd/tck
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o build/reference ./cmd/reference
	docker build --target tck --build-arg BASE=$(BASE) --build-arg DEBIAN=$(DEBIAN) -t $(TCK_IMAGE) .
