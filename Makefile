# The README's two commands: `make demo` and `make test`. Each does all the set-up it needs
# (Debian packages, ./.venv with pinned dbt, the build) and is quick when it is all there.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: setup build lint test test-unit harden demo bench bench-state dist clean

setup:
	@scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: setup $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The C++ formatting check (scripts/lint.sh; `scripts/lint.sh --tidy` runs clang-tidy).
lint: setup
	@scripts/lint.sh

# Every test (unit, integration, e2e) through ctest, after the formatting check; then the
# fuzz targets and sanitizer passes (make harden).
test: build lint
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory harden

# The fuzz targets, FUZZ_SECONDS each, and the ASan+UBSan and TSan passes, in build-asan/ and
# build-tsan/ (docs/hardening.md).
FUZZ_SECONDS ?= 60
harden: setup
	@JOBS=$(JOBS) scripts/fuzz.sh $(FUZZ_SECONDS)
	@JOBS=$(JOBS) scripts/sanitize.sh asan
	@JOBS=$(JOBS) scripts/sanitize.sh tsan

# The fast set alone.
test-unit: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) -L unit

# The main job on the embedded default: examples/shop on DuckDB, state in .ods/state.db.
# Builds only what the demo runs (the ods binary), not the test suites.
demo: setup $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods
	@scripts/demo.sh

bench: build
	@bench/run.sh

# The state stores: PostgreSQL against SQLite on a generated 10k-node project (docs/benchmarks.md).
bench-state: build
	@ODS_BUILD_DIR=$(BUILD_DIR) bench/state_store.sh

# The release archive of ods for linux-x86_64 and its SHA-256, in dist/ (scripts/dist.sh).
dist: setup $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ods
	@scripts/dist.sh --binary $(BUILD_DIR)/bin/ods --out dist

clean:
	rm -rf $(BUILD_DIR)
