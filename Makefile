# fortune-tck: the conformance suite and the reference implementation of the fortune interface.
GO ?= go
BENCHTIME ?= 1s

.PHONY: help demo test conformance bench deps vet build mutants
help:
	@echo "make demo         run the reference stack on the default ports (data in .data/)"
	@echo "make test         install test dependencies if needed, vet, and run every test (also the suite against the reference)"
	@echo "make conformance  run the suite against the reference and write reports/ (TARGET=file.yaml for another implementation)"
	@echo "make mutants      run the suite against every deliberate bug of tools/mutants/catalogue.yaml (~30 min; ONLY=id,id J=n)"
	@echo "make bench        run the benchmarks and print each one as a ratio to the baseline of the same run"

demo:
	$(GO) run ./cmd/reference up --data .data

test: deps vet
	$(GO) test -count=1 ./...

deps:
	@scripts/deps.sh

vet:
	@unformatted=$$(gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

conformance: deps
	$(GO) run ./cmd/tck run $(if $(TARGET),--target $(TARGET)) $(if $(TAGS),--tags '$(TAGS)')
	@mkdir -p reports/reference
	@$(if $(TARGET),true,cp reports/conformance-report.yaml reports/reference/conformance-report.yaml)

mutants: deps
	$(GO) run ./tools/mutants $(if $(ONLY),--only $(ONLY)) $(if $(J),-j $(J))

bench:
	@mkdir -p reports
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./... | tee reports/bench.txt
	$(GO) run ./tools/benchratio < reports/bench.txt

build:
	$(GO) build -o bin/ ./cmd/...
