"""The shard whose turn it is (docs/testing.md, "What CI runs").

CI keeps, outside the clone, a count of its submissions (the CI runs that reached the shards) and
for each shard the submission it last ran in and how that ended. Each submission runs the shards
its change touches, every shard that failed the last time it ran, and by turn the shard not run
for longest among the rest (never run counts as oldest; ties go by the order of SHARDS).

Bound: with K shards, a shard that is not chosen otherwise waits behind at most K - 1 shards
older than it, each of which runs (and so becomes newer) in a submission of its own; so every
shard runs at least once in any K consecutive submissions, and no shard goes unrun for more than
K - 1 submissions in a row. `longest_unrun()` is that N.
"""
import fcntl
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def record_file():
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "ods" / "ci" / "shard-runs.json"


def longest_unrun(shards):
    return len(shards) - 1


def read_record(path):
    """(record, warning): {"submissions": n, "shards": {name: {"submission", "outcome", "commit"}}};
    an unreadable record is an empty one, with a warning saying so."""
    empty = {"submissions": 0, "shards": {}}
    if not path.exists():
        return empty, None
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return empty, f"{path} is unreadable ({e}): every shard counts as never run"
    if not (isinstance(record, dict) and isinstance(record.get("submissions"), int)
            and isinstance(record.get("shards"), dict)):
        return empty, f"{path} is unreadable (no submissions count or shards): every shard counts as never run"
    return record, None


def turn(shards, record, chosen):
    """The shard not run for longest among `shards` not in `chosen`, or None when all are chosen."""
    last = record["shards"]
    rest = [s for s in shards if s.name not in chosen]
    if not rest:
        return None
    return min(rest, key=lambda s: (last.get(s.name, {}).get("submission", 0), shards.index(s)))


def failed_last(shards, record):
    """The shards whose last run failed, in SHARDS' order."""
    return [s for s in shards if record["shards"].get(s.name, {}).get("outcome") == "failed"]


@contextmanager
def locked_record(path):
    """The record, locked against another CI run on this machine; written back atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record, _ = read_record(path)
        yield record
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as out:
            json.dump(record, out, indent=1, sort_keys=True)
        os.replace(out.name, path)


def begin_submission(path):
    """Counts one submission; its number."""
    with locked_record(path) as record:
        record["submissions"] += 1
        return record["submissions"]


def record_run(path, shard, outcome, commit):
    """Records that `shard` ran in the current submission and ended with `outcome` (passed|failed)."""
    with locked_record(path) as record:
        record["shards"][shard] = {"submission": record["submissions"], "outcome": outcome, "commit": commit}
