# The README's two commands: `make demo` and `make test` (tier 1). Each does all the set-up it
# needs (Debian packages, ./.venv with pinned dbt, the build) and is quick when it is all there.
# `make test-all` is tier 2, everything (docs/testing.md).
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: setup setup-tier2 configure build build-tier1 lint test test-all test-unit test-shard harden tidy demo \
  bench bench-programs bench-state dist images release clean

setup:
	@scripts/setup.sh

# Go, a JDK and Maven for tier 2 (scripts/setup-tier2.sh; tier 1 needs only Debian packages and PyPI).
setup-tier2:
	@scripts/setup-tier2.sh >/dev/null

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

configure: setup $(BUILD_DIR)/build.ninja

# Everything but bench/ (make bench-programs).
build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# What tier 1 runs: ods, ods-operator, the unit suites and tier 1's integration suites.
build-tier1: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target tier1_tests

# The C++ formatting check (scripts/lint.sh; `scripts/lint.sh --tidy` runs clang-tidy).
lint: setup
	@scripts/lint.sh

# Tier 1, the README's test command and what CI runs on every change (docs/testing.md): the
# formatting check, the unit suites and the integration suites that prove the CLI's main job on
# real dbt, DuckDB and PostgreSQL.
test: build-tier1 lint
	@scripts/test-tiers.py check $(BUILD_DIR)
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L '^tier1$$' --no-tests=error

# Tier 2: everything — every ctest suite (the shards' included), the fuzz targets and sanitizer
# passes (make harden) and clang-tidy over every product source (make tidy).
test-all: setup-tier2 build lint
	@scripts/test-tiers.py check $(BUILD_DIR)
	@eval "$$(scripts/setup-tier2.sh 2>/dev/null | tail -1)" && export ODS_GO && \
	  ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) --no-tests=error
	@$(MAKE) --no-print-directory harden
	@$(MAKE) --no-print-directory tidy

# One shard of tier 2 (scripts/test-tiers.py list): make test-shard SHARD=kube
test-shard: build-tier1
	@JOBS=$(JOBS) scripts/test-tiers.py run $(SHARD) $(BUILD_DIR)

# The fuzz targets, FUZZ_SECONDS each, and the ASan+UBSan and TSan passes, in build-asan/ and
# build-tsan/ (docs/hardening.md).
FUZZ_SECONDS ?= 60
harden: setup
	@JOBS=$(JOBS) scripts/fuzz.sh $(FUZZ_SECONDS)
	@JOBS=$(JOBS) scripts/sanitize.sh asan
	@JOBS=$(JOBS) scripts/sanitize.sh tsan

# clang-tidy over every product source (.clang-tidy; files found clean and unchanged are skipped).
tidy: configure
	@BUILD_DIR=$(BUILD_DIR) scripts/lint.sh --tidy

# The unit suites alone, built alone.
test-unit: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target unit_tests
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L '^unit$$' --no-tests=error

# The main job on the embedded default: examples/shop on DuckDB, state in .ods/state.db.
# Builds only what the demo runs (the ods binary), not the test suites.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods
	@scripts/demo.sh

# The benchmark programs (bench/ is out of the default build).
bench-programs: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods bench_programs

bench: bench-programs
	@bench/run.sh

# The state stores: PostgreSQL against SQLite on a generated 10k-node project (docs/benchmarks.md).
bench-state: bench-programs
	@ODS_BUILD_DIR=$(BUILD_DIR) bench/state_store.sh

# The release archive of ods for linux-x86_64 and its SHA-256, in dist/ (scripts/dist.sh).
dist: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods
	@scripts/dist.sh --binary $(BUILD_DIR)/bin/ods --out dist

# Both container images with podman, on a Debian base made with mmdebstrap (no registry needed),
# as OCI archives with their SHA-256 in dist/ (scripts/images.sh; docs/kubernetes.md, "Images").
images:
	@scripts/images.sh --out dist

# Everything one version publishes, in dist/ with SHA256SUMS: the CLI bundle, both images, their
# SBOMs and the chart package (scripts/release.sh; docs/release.md).
release: setup-tier2 configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods
	@eval "$$(scripts/setup-tier2.sh 2>/dev/null | tail -1)" && export ODS_GO && scripts/release.sh --out dist --binary $(BUILD_DIR)/bin/ods

clean:
	rm -rf $(BUILD_DIR)
