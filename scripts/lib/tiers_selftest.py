"""scripts/test-tiers.py selftest (tier 1's test_tiers): the path map over the tracked paths, what
ordinary changes select, and the turn's bound over simulated submissions."""
import random
import sys

import shard_turn
from shard_map import SHARDS, shards_for, unmapped

# What a change to each path must select, exactly (docs/testing.md; issue 40).
EXPECTED = {
    "planner/src/planning_rules.cc": ["integration", "crash"],
    "cli/src/shared/context.cc": ["integration", "crash"],
    "run/src/cutoff_waves.cc": ["integration", "crash"],
    "process/src/launcher.cc": ["integration", "crash"],
    "providers/contracts/include/ods/contracts/state_store.h": ["integration", "crash"],
    "bench/gen_project.py": ["integration", "crash"],
    "cli/src/pod/cmd_pod.cc": ["integration", "crash", "kube", "node"],
    "operator/control/src/run_job.cc": ["kube", "node"],
    "docker/runner.Dockerfile": ["images", "node"],
    "tests/corpus/reuse_corpus.cc": ["integration"],
    "docs/testing.md": [],
}


def check(ok, what, faults):
    if not ok:
        faults.append(what)


def map_faults(tracked):
    faults = [f"the map: {line}" for line in unmapped(tracked)]
    planted = "newcomponent/src/thing.cc"
    check(any(line.startswith(planted) for line in unmapped(tracked + [planted])),
          f"an unmapped path ({planted}) is not reported", faults)
    without_fuzz = [p for p in tracked if not p.startswith("fuzz/")]
    check(any(line.startswith("fuzz/ ") for line in unmapped(without_fuzz)),
          "a prefix that matches no tracked path (fuzz/ once fuzz/ is gone) is not reported", faults)
    for path, want in EXPECTED.items():
        check(shards_for(path) == want, f"{path} selects {shards_for(path)}, want {want}", faults)
    return faults


def turn_faults(choose, submissions=3000, seed=40):
    """Submissions with random changes and failures: each shard's longest run of submissions
    without it is at most N; a machine without a record starts with SHARDS' order."""
    faults, rng = [], random.Random(seed)
    n = shard_turn.longest_unrun(SHARDS)
    record = {"submissions": 0, "shards": {}}
    first = []
    for _ in range(len(SHARDS)):
        _, _, turn = choose([], record)
        first.append(turn.name)
        record["submissions"] += 1
        record["shards"][turn.name] = {"submission": record["submissions"], "outcome": "passed"}
    check(first == [s.name for s in SHARDS], f"a fresh machine runs by turn {first}, want SHARDS' order", faults)
    paths = ["planner/src/a.cc", "operator/kube/src/b.cc", "ci/github/action.yml", "docs/cli.md", "fuzz/cron.cc"]
    last_run = {s.name: record["submissions"] for s in SHARDS}
    for _ in range(submissions):
        change = rng.sample(paths, rng.randint(0, 2))
        red = {name for name, run in record["shards"].items() if run["outcome"] == "failed"}
        touched, failed, turn = choose(change, record)
        check(red <= {s.name for s in touched + failed}, f"shards that failed ({red}) are not run again", faults)
        record["submissions"] += 1
        for s in touched + failed + ([turn] if turn else []):
            gap = record["submissions"] - last_run[s.name] - 1
            check(gap <= n, f"{s.name} went unrun for {gap} submissions (N = {n})", faults)
            last_run[s.name] = record["submissions"]
            outcome = "failed" if rng.random() < 0.1 else "passed"
            record["shards"][s.name] = {"submission": record["submissions"], "outcome": outcome}
    return faults


def deferral_faults(choose):
    """A turn .ci/run defers (no room left in CI's time) is not recorded: the same shard is the
    turn of the next submission, ahead of every shard that ran."""
    faults, record = [], {"submissions": 0, "shards": {}}
    for _ in range(3):
        _, _, turn = choose([], record)
        record["submissions"] += 1
        record["shards"][turn.name] = {"submission": record["submissions"], "outcome": "passed"}
    _, _, deferred = choose(["planner/src/a.cc"], record)
    record["submissions"] += 1  # the submission ran its touched shards and deferred its turn
    for name in ("integration", "crash"):
        record["shards"][name] = {"submission": record["submissions"], "outcome": "passed"}
    _, _, again = choose([], record)
    check(again == deferred, f"a deferred turn ({deferred.name}) is not the next turn ({again.name})", faults)
    return faults


def main(tracked, choose):
    faults = map_faults(tracked) + turn_faults(choose) + deferral_faults(choose)
    for line in faults[:20]:
        print(f"test-tiers selftest: {line}", file=sys.stderr)
    if faults:
        sys.exit(f"test-tiers selftest: {len(faults)} faults")
    print(f"test-tiers selftest: the map ({len(tracked)} tracked paths, {len(EXPECTED)} examples) and the turn "
          f"(N = {shard_turn.longest_unrun(SHARDS)}, 3000 simulated submissions) hold")
