#!/usr/bin/env python3
"""The test tiers (docs/testing.md): tier 1 runs on every change, tier 2 is split in shards.

  scripts/test-tiers.py list                 the shards: what each runs, the paths that select it
  scripts/test-tiers.py check BUILD_DIR      every ctest test is in tier 1 or in exactly one shard
  scripts/test-tiers.py pick                 the shards CI runs for the checked-out commit, one a line:
                                             every shard whose paths the change touches, then the
                                             shard whose turn it is (the commit's number modulo the
                                             number of shards), each once
  scripts/test-tiers.py run SHARD [BUILD_DIR]
                                             builds what the shard needs and runs it; fails loudly
                                             when it can't run (a missing tool, no test found)

The change `pick` looks at: the commits since $ODS_CI_BASE when set; else since the last commit
CI found green on this machine (`record-green` writes it to ~/.cache/ods/ci/last-green) when it
is an ancestor of HEAD; else HEAD's own commit. Environment of `run`: JOBS (2), FUZZ_SECONDS (60).
"""
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Shard:
    name: str
    what: str
    paths: list = field(default_factory=list)  # path prefixes of the repository that select it
    minutes_warm: int = 0  # on 2 cores, caches warm, build and tests (docs/testing.md); estimates where not measured
    script: list = None  # a command instead of ctest's label shard_<name>


SHARDS = [
    Shard("integration", "the rest of integration_tests, ShopRun on PostgreSQL, the reuse corpus",
          ["tests/integration/", "tests/corpus/", "tests/harness/", "examples/shop/", "providers/postgres/"], 6),
    Shard("crash", "30 crash-anywhere rounds, the PostgreSQL server killed mid-commit",
          ["tests/crash/", "providers/state/", "run/"], 3),
    Shard("matrix", "examples/shop on every supported dbt-core minor (1.8-1.12) and the refused 1.7",
          ["tests/compat/", "requirements/", "scripts/dbt-venv.sh", "providers/dbt/"], 12),
    Shard("ci", "the GitHub Action and the GitLab template as pipelines (gitlab-ci-local)",
          ["ci/", "tests/ci/", ".github/"], 10),
    Shard("kube", "a real kube-apiserver and etcd: kube_tests, the chart, operator end to end and killed",
          ["operator/", "crds/", "helm/", "callback_protocol/", "tests/kube/", "tests/operator_e2e/",
           "tests/alerts/", "tests/harness/kube", "scripts/kube-binaries.sh"], 6),
    Shard("images", "make release: the CLI bundle, both images (podman, mmdebstrap base), SBOMs, the chart; "
          "the runner's ods state run inside its image",
          ["docker/", "tests/images/", "scripts/images.sh", "scripts/release.sh", "scripts/sbom.py",
           "scripts/dist.sh", "scripts/lib/podman_flags.sh", ".dockerignore"], 25),
    Shard("node", "a real single-node cluster (containerd, kubelet, scheduler, controller-manager, kube-proxy, CoreDNS); "
          "the chart installed, upgraded and uninstalled on it, the quickstart executed, real-cluster failures",
          ["tests/node/", "tests/harness/kube_node", "scripts/node-images.sh", "docker/", "scripts/images.sh", "helm/",
           "crds/examples/", "docs/kubernetes.md"], 15),
    Shard("spark", "real Spark 4 with Delta and Iceberg: the lakehouse suite, the Iceberg suite and the Thrift probe",
          ["providers/delta/", "providers/iceberg/", "providers/table_format/", "providers/content/",
           "examples/lakehouse/", "tests/delta/", "tests/iceberg/", "scripts/spark-"], 35),
    Shard("warehouses", "Snowflake and BigQuery on their emulators (fakesnow, bqemulator) with real dbt adapters",
          ["providers/snowflake/", "providers/bigquery/", "providers/metadata/", "examples/warehouses/", "tests/warehouses/",
           "requirements/warehouses/", "scripts/warehouse-venv.sh"], 8),
    Shard("asan", "the fuzz targets, then every unit suite and three integration suites under ASan+UBSan",
          ["fuzz/", "scripts/fuzz.sh", "scripts/sanitize.sh", "scripts/sanitizers/", "cmake/OdsHardening.cmake",
           "operator/http/", "json/"], 25, ["asan"]),
    Shard("tsan", "the threaded components' suites under ThreadSanitizer",
          ["scripts/sanitize.sh", "scripts/sanitizers/", "base/"], 15, ["tsan"]),
]
BY_NAME = {s.name: s for s in SHARDS}


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def last_green_file():
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "ods" / "ci" / "last-green"


def change_base():
    """(base commit or None, why)."""
    if os.environ.get("ODS_CI_BASE"):
        return os.environ["ODS_CI_BASE"], "$ODS_CI_BASE"
    f = last_green_file()
    if f.exists():
        commit = f.read_text().strip()
        head = git("rev-parse", "HEAD").stdout.strip()
        if commit and commit != head and git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0:
            return commit, f"the last green CI run on this machine ({f})"
    parent = git("rev-parse", "--verify", "-q", "HEAD~1").stdout.strip()
    return (parent or None), "no green run recorded on this machine: HEAD's own commit"


def changed_paths(base):
    if base is None:
        return git("ls-files").stdout.split()
    out = git("diff", "--name-only", base, "HEAD")
    if out.returncode != 0:
        sys.exit(f"test-tiers: git diff {base} HEAD failed: {out.stderr.strip()}")
    return out.stdout.split()


def pick():
    base, why = change_base()
    paths = changed_paths(base)
    touched = [s for s in SHARDS if any(p.startswith(prefix) for p in paths for prefix in s.paths)]
    count = git("rev-list", "--count", "HEAD").stdout.strip()
    turn = SHARDS[int(count or "0") % len(SHARDS)]
    chosen = touched + ([turn] if turn not in touched else [])
    print(f"test-tiers: change = {base or 'the whole tree'}..HEAD ({why}), {len(paths)} paths", file=sys.stderr)
    for s in touched:
        print(f"test-tiers:   {s.name}: touched ({', '.join(sorted({p for p in paths if any(p.startswith(x) for x in s.paths)})[:4])}...)",
              file=sys.stderr)
    print(f"test-tiers:   {turn.name}: its turn (commit number {count} mod {len(SHARDS)})", file=sys.stderr)
    print(f"test-tiers: about {sum(s.minutes_warm for s in chosen)} min of shards on a warm machine", file=sys.stderr)
    for s in chosen:
        print(s.name)


def ctest_tests(build_dir):
    out = subprocess.run(["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"test-tiers: ctest --show-only failed in {build_dir}: {out.stderr.strip()}")
    for test in json.loads(out.stdout).get("tests", []):
        labels = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = prop.get("value", [])
        yield test["name"], labels


def check(build_dir):
    bad, counts = [], {"tier1": 0}
    for name, labels in ctest_tests(build_dir):
        if name.endswith("_NOT_BUILT"):
            continue  # a discovered suite not built in this tree: its tests are checked where it is
        shards = [l for l in labels if l.startswith("shard_")]
        tiers = (["tier1"] if "tier1" in labels else []) + shards
        if len(tiers) != 1:
            bad.append(f"{name}: labels {labels} (want tier1 or exactly one shard_<name>)")
            continue
        counts[tiers[0]] = counts.get(tiers[0], 0) + 1
        if shards and shards[0][len("shard_"):] not in BY_NAME:
            bad.append(f"{name}: {shards[0]} is no shard of scripts/test-tiers.py")
    for line in bad:
        print(f"test-tiers: {line}", file=sys.stderr)
    if bad:
        sys.exit(f"test-tiers: {len(bad)} tests without their tier (cmake/OdsHelpers.cmake says how to give one)")
    print("test-tiers: every test has its tier: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def could_not_run(shard, why):
    bar = "!" * 78
    print(f"{bar}\nSHARD {shard.upper()} COULD NOT RUN: {why}\n{bar}", file=sys.stderr)
    sys.exit(1)


def run(name, build_dir):
    shard = BY_NAME.get(name)
    if shard is None:
        sys.exit(f"test-tiers: no shard {name!r}; shards: {', '.join(BY_NAME)}")
    jobs = os.environ.get("JOBS", "2")
    env = dict(os.environ)
    if name in ("kube", "spark", "images", "node"):  # Go (kube binaries, helm), Java
        setup = subprocess.run([str(ROOT / "scripts/setup-tier2.sh")], capture_output=True, text=True)
        sys.stderr.write(setup.stderr)
        if setup.returncode != 0:
            could_not_run(shard, "scripts/setup-tier2.sh: " + (setup.stderr.strip().splitlines() or ["failed"])[-1])
        for line in setup.stdout.splitlines():
            if line.startswith("ODS_GO="):
                env["ODS_GO"] = line.split("=", 1)[1]
    print(f"test-tiers: shard {name}: {shard.what}", file=sys.stderr, flush=True)
    if shard.script:
        steps = [[str(ROOT / "scripts/sanitize.sh"), shard.script[0]]]
        if name == "asan":
            steps.insert(0, [str(ROOT / "scripts/fuzz.sh"), os.environ.get("FUZZ_SECONDS", "60")])
        for step in steps:
            if subprocess.run(step, cwd=ROOT, env=env).returncode != 0:
                sys.exit(f"test-tiers: shard {name} failed in {' '.join(step)}")
        return
    build = subprocess.run(["cmake", "--build", str(build_dir), "--target", f"shard_{name}_tests", "-j", jobs],
                           cwd=ROOT, env=env)
    if build.returncode != 0:
        sys.exit(f"test-tiers: shard {name}: the build failed")
    test = subprocess.run(["ctest", "--test-dir", str(build_dir), "--output-on-failure", "-j", jobs,
                           "-L", f"^shard_{name}$", "--no-tests=error"], cwd=ROOT, env=env)
    if test.returncode != 0:
        sys.exit(f"test-tiers: shard {name} failed")


def record_green():
    f = last_green_file()
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(git("rev-parse", "HEAD").stdout)


def main(argv):
    if len(argv) >= 1 and argv[0] == "list":
        for s in SHARDS:
            print(f"{s.name:12} ~{s.minutes_warm:>2} min warm  {s.what}\n{'':12} paths: {' '.join(s.paths)}")
    elif len(argv) == 2 and argv[0] == "check":
        check(Path(argv[1]))
    elif len(argv) == 1 and argv[0] == "pick":
        pick()
    elif len(argv) in (2, 3) and argv[0] == "run":
        run(argv[1], Path(argv[2] if len(argv) == 3 else ROOT / "build"))
    elif len(argv) == 1 and argv[0] == "record-green":
        record_green()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
