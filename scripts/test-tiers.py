#!/usr/bin/env python3
"""The test tiers (docs/testing.md): tier 1 runs on every change, tier 2 is split in shards.

  scripts/test-tiers.py list                 the shards: what each runs, the paths that select it
  scripts/test-tiers.py map [PATH...]        without PATH: every tracked path selects a shard or is
                                             declared tier-1-only (scripts/lib/shard_map.py), and
                                             every prefix of the map matches a tracked path; with
                                             PATHs: the shards each selects
  scripts/test-tiers.py check BUILD_DIR      every ctest test is in tier 1 or in exactly one shard,
                                             and the map holds (as `map`)
  scripts/test-tiers.py pick [--submit]      the shards CI runs for the checked-out commit, one a line
                                             as `NAME WHY`: every shard whose paths the change touches
                                             (touched), every shard whose last run failed (failed),
                                             then the one whose turn it is (turn: not run for longest,
                                             scripts/lib/shard_turn.py), each once; prints N, the
                                             longest any shard can go unrun.
                                             --submit counts this submission (CI, once per run)
  scripts/test-tiers.py fits SHARD SECONDS   exit 0 when SHARD's warm estimate still ends within CI's
                                             $ODS_CI_MINUTES (80) after SECONDS of CI: .ci/run runs the
                                             turn's shard only then (a deferred turn stays first in line)
  scripts/test-tiers.py record-run SHARD passed|failed
                                             CI: the shard ran in this submission, with that outcome
  scripts/test-tiers.py run SHARD [BUILD_DIR]
                                             builds what the shard needs and runs it; fails loudly
                                             when it can't run (a missing tool, no test found)
  scripts/test-tiers.py selftest             the map and the turn, checked (tier 1's test_tiers)

The change `pick` looks at: the commits since $ODS_CI_BASE when set; else since the last commit
CI found green on this machine (`record-green` writes it to ~/.cache/ods/ci/last-green) when it
is an ancestor of HEAD; else HEAD's own commit. The runs of the shards: ~/.cache/ods/ci/shard-runs.json.
Environment of `run`: JOBS (2), FUZZ_SECONDS (60).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import shard_turn
from shard_map import BY_NAME, SHARDS, shards_for, tier1_reason, unmapped

ROOT = Path(__file__).resolve().parent.parent


def git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


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


def choose(paths, record):
    """(touched, failed, turn): the shards `paths` select, those whose last run failed (not
    touched), and the one whose turn it is among the rest (None when every shard is chosen)."""
    touched = [s for s in SHARDS if any(s.name in shards_for(p) for p in paths)]
    failed = [s for s in shard_turn.failed_last(SHARDS, record) if s not in touched]
    return touched, failed, shard_turn.turn(SHARDS, record, {s.name for s in touched + failed})


def pick(submit):
    base, why = change_base()
    paths = changed_paths(base)
    path = shard_turn.record_file()
    record, warning = shard_turn.read_record(path)
    if warning:
        print(f"test-tiers: WARNING: {warning}", file=sys.stderr)
    touched, failed, turn = choose(paths, record)
    chosen = touched + failed + ([turn] if turn else [])
    number = shard_turn.begin_submission(path) if submit else record["submissions"] + 1
    say = lambda line: print(f"test-tiers: {line}", file=sys.stderr)  # noqa: E731
    say(f"change = {base or 'the whole tree'}..HEAD ({why}), {len(paths)} paths; submission {number} ({path})")
    for s in touched:
        hits = sorted({p for p in paths if s.name in shards_for(p)})
        say(f"  {s.name}: touched ({', '.join(hits[:4])}{'...' if len(hits) > 4 else ''})")
    for s in failed:
        say(f"  {s.name}: failed in submission {record['shards'][s.name]['submission']}, run until it passes")
    if turn:
        last = record["shards"].get(turn.name, {}).get("submission")
        say(f"  {turn.name}: its turn (not run for longest: {f'last in submission {last}' if last else 'never'})")
    n = shard_turn.longest_unrun(SHARDS)
    say(f"N = {n}: no shard goes unrun for more than {n} submissions in a row that have room for their turn "
        f"({len(SHARDS)} shards, the oldest of the rest by turn in each; .ci/run defers a turn that would end "
        f"past $ODS_CI_MINUTES, and the deferred shard stays first in line)")
    say(f"about {sum(s.minutes_warm for s in chosen)} min of shards on a warm machine, "
        f"{sum(s.minutes_cold for s in chosen)} min without their caches")
    for s in chosen:
        print(s.name, "touched" if s in touched else "failed" if s in failed else "turn")


def fits(name, seconds):
    """Exit status 0 when `name`'s warm estimate ends within $ODS_CI_MINUTES after `seconds` of CI."""
    shard = BY_NAME.get(name)
    if shard is None or not seconds.isdigit():
        sys.exit("test-tiers: fits SHARD SECONDS")
    budget = int(os.environ.get("ODS_CI_MINUTES", "80"))
    ends = int(seconds) / 60 + shard.minutes_warm
    print(f"test-tiers: {name} takes ~{shard.minutes_warm} min warm; after {int(seconds) // 60} min it would end "
          f"at ~{ends:.0f} min of CI's {budget} ({'fits' if ends <= budget else 'does not fit'})", file=sys.stderr)
    sys.exit(0 if ends <= budget else 1)


def tracked_paths():
    out = git("ls-files")
    if out.returncode != 0:
        sys.exit(f"test-tiers: git ls-files failed: {out.stderr.strip()}")
    return out.stdout.splitlines()


def check_map(tracked):
    faults = unmapped(tracked)
    for line in faults:
        print(f"test-tiers: {line}", file=sys.stderr)
    if faults:
        sys.exit(f"test-tiers: the path map has {len(faults)} faults: map each path in scripts/lib/shard_map.py "
                 "(a shard's paths, or TIER1_ONLY with why)")
    print(f"test-tiers: every one of {len(tracked)} tracked paths selects a shard or is declared tier-1-only")


def show_map(paths):
    for p in paths:
        shards = shards_for(p)
        print(f"{p}: {' '.join(shards) if shards else 'tier 1 only (' + (tier1_reason(p) or 'UNMAPPED') + ')'}")


def ctest_tests(build_dir):
    out = subprocess.run(["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"], capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        sys.exit(f"test-tiers: ctest --show-only failed in {build_dir}: {out.stderr.strip()}")
    for test in json.loads(out.stdout).get("tests", []):
        labels = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = prop.get("value", [])
        yield test["name"], labels


def check(build_dir):
    check_map(tracked_paths())
    bad, counts = [], {"tier1": 0}
    for name, labels in ctest_tests(build_dir):
        if name.endswith("_NOT_BUILT"):
            continue  # a discovered suite not built in this tree: its tests are checked where it is
        shards = [label for label in labels if label.startswith("shard_")]
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
        setup = subprocess.run([str(ROOT / "scripts/setup-tier2.sh")], capture_output=True, text=True, check=False)
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
            if subprocess.run(step, cwd=ROOT, env=env, check=False).returncode != 0:
                sys.exit(f"test-tiers: shard {name} failed in {' '.join(step)}")
        return
    build = subprocess.run(["cmake", "--build", str(build_dir), "--target", f"shard_{name}_tests", "-j", jobs],
                           cwd=ROOT, env=env, check=False)
    if build.returncode != 0:
        sys.exit(f"test-tiers: shard {name}: the build failed")
    test = subprocess.run(["ctest", "--test-dir", str(build_dir), "--output-on-failure", "-j", jobs,
                           "-L", f"^shard_{name}$", "--no-tests=error"], cwd=ROOT, env=env, check=False)
    if test.returncode != 0:
        sys.exit(f"test-tiers: shard {name} failed")


def record_green():
    f = last_green_file()
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(git("rev-parse", "HEAD").stdout)


def record_run(name, outcome):
    if name not in BY_NAME or outcome not in ("passed", "failed"):
        sys.exit("test-tiers: record-run SHARD passed|failed")
    shard_turn.record_run(shard_turn.record_file(), name, outcome, git("rev-parse", "HEAD").stdout.strip())


def main(argv):
    if len(argv) >= 1 and argv[0] == "list":
        for s in SHARDS:
            print(f"{s.name:12} ~{s.minutes_warm:>2} min warm, ~{s.minutes_cold:>3} min cold  {s.what}\n"
                  f"{'':12} paths: {' '.join(s.paths)}")
    elif len(argv) >= 1 and argv[0] == "map":
        show_map(argv[1:]) if argv[1:] else check_map(tracked_paths())
    elif len(argv) == 2 and argv[0] == "check":
        check(Path(argv[1]))
    elif len(argv) in (1, 2) and argv[0] == "pick" and argv[1:] in ([], ["--submit"]):
        pick(argv[1:] == ["--submit"])
    elif len(argv) in (2, 3) and argv[0] == "run":
        run(argv[1], Path(argv[2] if len(argv) == 3 else ROOT / "build"))
    elif len(argv) == 3 and argv[0] == "fits":
        fits(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "record-run":
        record_run(argv[1], argv[2])
    elif len(argv) == 1 and argv[0] == "record-green":
        record_green()
    elif argv == ["selftest"]:
        import tiers_selftest
        tiers_selftest.main(tracked_paths(), choose)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
