"""The shards of tier 2 and the map from every tracked path to the shards that exercise it
(docs/testing.md, "Which shards a change selects").

A path selects every shard one of whose prefixes it starts with. A tracked path that selects no
shard must start with a prefix of TIER1_ONLY, which says why tier 1 (or nothing CI runs) is all
that exercises it; `unmapped()` names the paths that do neither, and the prefixes that match no
tracked path (a folder renamed under the map).
"""
from dataclasses import dataclass, field


@dataclass
class Shard:
    name: str
    what: str
    paths: list = field(default_factory=list)  # path prefixes of the repository that select it
    minutes_warm: int = 0  # on 2 cores, caches warm, build and tests (docs/testing.md); estimates where not measured
    minutes_cold: int = 0  # the same on a machine without the shard's caches (Go builds, venvs, sanitizer trees)
    script: list = None  # a command instead of ctest's label shard_<name>


# What the CLI's main job is made of: an ordinary C++ change to any of it selects the suites that
# guard reuse (ShopGate, the reuse corpus, ShopRun on PostgreSQL) and the crash rounds.
CORE = ["planner/", "cli/", "process/", "run/", "providers/contracts/", "providers/state/", "providers/dbt/",
        "providers/content/", "providers/postgres/", "providers/duckdb/",
        "providers/CMakeLists.txt", "base/", "json/", "bench/gen_project.py",
        "CMakeLists.txt", "cmake/OdsHelpers.cmake", "cmake/OdsTargetGraph.cmake", "Makefile"]
# The runner pod's and the operator's code: what the kube shard's stand-in and the real node run.
OPERATOR = ["operator/", "callback_protocol/", "cli/src/pod/", "crds/", "helm/"]
SANITIZERS = ["scripts/sanitize.sh", "scripts/sanitizers/", "scripts/lib/harden.sh", "cmake/OdsHardening.cmake"]

# In the order a machine without any record runs them by turn (pick): cheapest first on a cold
# machine, so the first submissions on a fresh machine stay within CI's time.
SHARDS = [
    Shard("integration", "the rest of integration_tests, ShopRun on PostgreSQL, the reuse corpus",
          CORE + ["tests/integration/", "tests/corpus/", "tests/harness/", "tests/CMakeLists.txt", "examples/shop/",
                  "README.md", "docs/ci.md"],  # the first-hour test (FirstHour) runs their blocks
          12, 15),
    Shard("crash", "30 crash-anywhere rounds, the PostgreSQL server killed mid-commit", CORE + ["tests/crash/"], 3, 4),
    Shard("ci", "the GitHub Action and the GitLab template as pipelines (gitlab-ci-local)",
          ["ci/", "tests/ci/", ".github/"], 10, 15),
    Shard("matrix", "examples/shop on every supported dbt-core minor (1.8-1.12) and the refused 1.7",
          ["tests/compat/", "requirements/dbt.txt", "requirements/constraints.txt", "requirements/matrix/",
           "scripts/dbt-venv.sh", "scripts/lib/cached_venv.sh", "providers/dbt/"], 12, 25),
    Shard("warehouses", "Snowflake and BigQuery on their emulators (fakesnow, bqemulator) with real dbt adapters",
          ["providers/snowflake/", "providers/bigquery/", "providers/metadata/", "examples/warehouses/", "tests/warehouses/",
           "requirements/warehouses/", "scripts/warehouse-venv.sh", "scripts/lib/cached_venv.sh"], 8, 15),
    Shard("tsan", "the threaded components' suites under ThreadSanitizer", SANITIZERS + ["base/"], 15, 30, ["tsan"]),
    Shard("spark", "real Spark 4 with Delta and Iceberg: the lakehouse suite, the Iceberg suite and the Thrift probe",
          ["providers/delta/", "providers/iceberg/", "providers/table_format/", "providers/content/",
           "examples/lakehouse/", "tests/delta/", "tests/iceberg/", "scripts/spark-", "requirements/spark",
           "scripts/setup-tier2.sh"], 35, 50),
    Shard("images", "make release: the CLI bundle, both images (podman, mmdebstrap base), SBOMs, the chart; "
          "the runner's ods state run inside its image",
          ["docker/", ".dockerignore", "tests/images/", "scripts/images.sh", "scripts/release.sh", "scripts/sbom.py",
           "scripts/dist.sh", "scripts/lib/podman_flags.sh", "scripts/lib/release_names.sh", "requirements/dbt.txt",
           "requirements/constraints.txt", "helm/"], 25, 45),
    Shard("kube", "a real kube-apiserver and etcd: kube_tests, the chart, operator end to end and killed",
          OPERATOR + ["tests/kube/", "tests/operator_e2e/", "tests/alerts/", "tests/harness/kube", "tests/unit/",
                      "scripts/kube-binaries.sh", "scripts/setup-tier2.sh"], 6, 70),
    Shard("node", "a real single-node cluster (containerd, kubelet, scheduler, controller-manager, kube-proxy, CoreDNS); "
          "the chart installed, upgraded and uninstalled on it, the quickstart executed, real-cluster failures",
          OPERATOR + ["tests/node/", "tests/harness/kube_node", "scripts/node-images.sh", "docker/", "scripts/images.sh",
                      "scripts/kube-binaries.sh", "docs/kubernetes.md"], 15, 90),
    Shard("asan", "the fuzz targets, then every unit suite and three integration suites under ASan+UBSan",
          SANITIZERS + ["fuzz/", "scripts/fuzz.sh", "operator/http/", "json/"], 25, 100, ["asan"]),
]
BY_NAME = {s.name: s for s in SHARDS}

# Tracked paths no shard exercises beyond tier 1, each prefix with why.
TIER1_ONLY = {
    "docs/": "documentation (docs/kubernetes.md's quickstart is the node shard's, docs/ci.md's steps integration's)",
    "CHANGELOG.md": "documentation", "STYLE.md": "documentation",
    "LICENSE": "the licence", ".gitignore": "git's own", ".clang-format": "tier 1's format check",
    "ruff.toml": "tier 1's lint (scripts/lint.sh)", ".shellcheckrc": "tier 1's lint (scripts/lint.sh)",
    ".shellcheck-exceptions": "tier 1's lint (scripts/lint.sh)", "requirements/lint.txt": "tier 1's lint (scripts/lint.sh)",
    ".clang-tidy": "CI's clang-tidy step, on every submission",
    ".ci/": "CI itself: every submission runs it",
    "scripts/test-tiers.py": "the tiers: tier 1's test_tiers checks the map and the turn",
    "scripts/lib/shard_map.py": "the tiers: tier 1's test_tiers", "scripts/lib/shard_turn.py": "the tiers: tier 1's test_tiers",
    "scripts/lib/tiers_selftest.py": "the tiers: tier 1's test_tiers",
    "scripts/lib/tidy_keys.py": "CI's clang-tidy step", "scripts/lint.sh": "tier 1's format check, CI's clang-tidy step",
    "scripts/setup.sh": "tier 1's set-up (make test runs it)", "scripts/demo.sh": "make demo, by hand",
    "scripts/check_links.py": "tier 1's link_graph", "scripts/check_names.py": "tier 1's published_names",
    "scripts/component_diagram.py": "tier 1's component_diagram",
    "scripts/check_architecture.py": "tier 1's architecture_names",
    "scripts/check_function_size.py": "tier 1's function_size",
    "tests/postgres_state/": "tier 1's postgres_state_tests", "tests/callback/": "tier 1's callback_integration_tests",
    "tests/dist/": "tier 1's dist_archive_tests",
    "bench/": "benchmarks, run by hand (make bench); bench/gen_project.py, which the corpus runs, is mapped",
}


def shards_for(path):
    """The names of the shards a change to `path` selects, in SHARDS' order."""
    return [s.name for s in SHARDS if any(path.startswith(prefix) for prefix in s.paths)]


def tier1_reason(path):
    """Why `path` needs no shard, or None when TIER1_ONLY does not declare it."""
    for prefix, why in TIER1_ONLY.items():
        if path.startswith(prefix):
            return why
    return None


def unmapped(tracked):
    """The faults of the map over the tracked paths `tracked`: one line per path that selects no
    shard and is not declared tier-1-only, and one per prefix that matches no tracked path."""
    faults = [f"{p}: selects no shard and is not declared tier-1-only" for p in tracked
              if not shards_for(p) and tier1_reason(p) is None]
    prefixes = {prefix: f"shard {s.name}" for s in SHARDS for prefix in s.paths}
    prefixes.update({prefix: "TIER1_ONLY" for prefix in TIER1_ONLY})
    for prefix, where in sorted(prefixes.items()):
        if not any(p.startswith(prefix) for p in tracked):
            faults.append(f"{prefix} ({where}): matches no tracked path")
    return faults
