"""How long after a commit PostgreSQL's pg_stat_user_tables shows it (bench/pg_stats_lag.sh runs this).

    pg_stats_lag.py LOAD REPS        libpq environment (PGHOST, PGPORT, ...) names the server

LOAD: idle (nothing else runs), cpu (two sessions run CPU-bound queries throughout), writers (four
sessions update another table as fast as they can), same-table (four sessions update the measured
table, so its statistics entry is contended: only inserts are measured then). For each case a
writer session commits one change and an observer session (autocommit, so every poll reads fresh
statistics) polls n_tup_ins/upd/del every 5 ms; the lag is from the writer's commit returning to
the observer first seeing the count. Prints one line per case: median and max of REPS seconds.
"""
import statistics
import sys
import threading
import time

import psycopg2

TIMEOUT_S = 75.0
LOAD = sys.argv[1] if len(sys.argv) > 1 else "idle"
COUNTER = {"insert": 0, "update": 1, "delete": 2}


def connect():
    c = psycopg2.connect("")
    c.autocommit = True
    return c


def counts(cur):
    cur.execute("select n_tup_ins, n_tup_upd, n_tup_del from pg_stat_user_tables where relid = 'lag_t'::regclass")
    return cur.fetchone()


def change(cur, kind, then=""):
    """One committed change of KIND on lag_t (autocommit), THEN appended to the same query string."""
    sql = {
        "insert": "insert into lag_t (v) values (1)",
        "update": "update lag_t set v = v + 1 where id = (select min(id) from lag_t)",
        "delete": "delete from lag_t where id = (select max(id) from lag_t)",
    }[kind]
    cur.execute(sql + then)


def wait_seen(obs, kind, before, committed_at):
    """Seconds from COMMITTED_AT until the observer sees the KIND counter pass BEFORE (None: timeout)."""
    i = COUNTER[kind]
    while time.monotonic() - committed_at < TIMEOUT_S:
        if counts(obs)[i] > before[i]:
            return time.monotonic() - committed_at
        time.sleep(0.005)
    return None


def settle(obs):
    """The counters once they have stopped moving for 1.5 s (pending counts of earlier cases flushed;
    the update counter is left out under the same-table load, whose writers move it all the time)."""
    def stable():
        c = counts(obs)
        return (c[0], c[2]) if LOAD == "same-table" else c
    last, since = stable(), time.monotonic()
    while time.monotonic() - since < 1.5:
        time.sleep(0.1)
        now = stable()
        if now != last:
            last, since = now, time.monotonic()
    return counts(obs)


def case_idle(kind):
    def run(writer, obs):
        time.sleep(2.0)  # the writer's last flush more than PGSTAT_MIN_INTERVAL (1 s) ago
        before = settle(obs)
        change(writer, kind)
        return wait_seen(obs, kind, before, time.monotonic())
    return run


def case_second_commit(writer, obs):
    before = settle(obs)
    change(writer, "insert")  # flushed when the session goes idle ...
    time.sleep(0.3)
    before = counts(obs) if wait_seen(obs, "insert", before, time.monotonic()) is not None else before
    change(writer, "insert")  # ... so this one, 0.3 s later, is held back
    return wait_seen(obs, "insert", before, time.monotonic())


def case_disconnect(_writer, obs):
    before = settle(obs)
    c = connect()
    change(c.cursor(), "insert")
    t = time.monotonic()
    c.close()
    return wait_seen(obs, "insert", before, t)


def max_id(cur):
    cur.execute("select coalesce(max(id), 0) from lag_t")
    return cur.fetchone()[0]


def case_busy_string(writer, obs):
    """The change committed, then 5 s more in the same query string (no idle moment in between).
    The commit's moment is when the observer first sees the new row."""
    time.sleep(2.0)
    before, top = settle(obs), max_id(obs)
    th = threading.Thread(target=writer.execute,
                          args=("begin; insert into lag_t (v) values (1); commit; select pg_sleep(5)",))
    th.start()
    while max_id(obs) <= top:
        time.sleep(0.002)
    lag = wait_seen(obs, "insert", before, time.monotonic())
    th.join()
    return lag


def case_busy_after_recent(writer, obs):
    """A commit 0.3 s after the session's previous one, then a 5 s statement in the same session."""
    before = settle(obs)
    change(writer, "insert")
    time.sleep(0.3)
    before = counts(obs) if wait_seen(obs, "insert", before, time.monotonic()) is not None else before
    result = {}

    def write():
        change(writer, "insert")
        result["t"] = time.monotonic()
        writer.execute("select pg_sleep(5)")

    th = threading.Thread(target=write)
    th.start()
    while "t" not in result:
        time.sleep(0.001)
    lag = wait_seen(obs, "insert", before, result["t"])
    th.join()
    return lag


def start_load(load, stop):
    def cpu():
        c = connect().cursor()
        while not stop.is_set():
            c.execute("select sum(g::numeric * g) from generate_series(1, 20000000) g")

    def writer(table):
        def run():
            c = connect().cursor()
            while not stop.is_set():
                c.execute(f"update {table} set v = v + 1 where id = (random() * 999)::int + 1")
        return run

    work = {"idle": [], "cpu": [cpu, cpu], "writers": [writer("lag_load")] * 4, "same-table": [writer("lag_t")] * 4}[load]
    threads = [threading.Thread(target=w, daemon=True) for w in work]
    for t in threads:
        t.start()
    return threads


def main():
    load, reps = sys.argv[1], int(sys.argv[2])
    setup = connect().cursor()
    setup.execute("drop table if exists lag_t, lag_load")
    setup.execute("create table lag_t (id bigserial primary key, v bigint)")
    setup.execute("create table lag_load (id bigint primary key, v bigint)")
    setup.execute("insert into lag_t (v) select g from generate_series(1, 2000) g")
    setup.execute("insert into lag_load select g, 0 from generate_series(1, 1000) g")
    cases = [("commit, then idle: insert", case_idle("insert")),
             ("commit, then idle: update", case_idle("update")),
             ("commit, then idle: delete", case_idle("delete")),
             ("commit 0.3 s after the session's previous commit, then idle", case_second_commit),
             ("commit, then disconnect", case_disconnect),
             ("commit, then 5 s more in the same query string", case_busy_string),
             ("commit 0.3 s after the previous, then a 5 s statement", case_busy_after_recent)]
    if load == "same-table":
        cases = [c for c in cases if not c[0].endswith("update")]
    stop = threading.Event()
    threads = start_load(load, stop)
    time.sleep(1.0)
    writer, obs = connect().cursor(), connect().cursor()
    for name, run in cases:
        lags = [run(writer, obs) for _ in range(reps)]
        seen = [x for x in lags if x is not None]
        missed = len(lags) - len(seen)
        median = f"{statistics.median(seen):.3f}" if seen else "-"
        worst = f"{max(seen):.3f}" if seen else "-"
        unseen = f"{missed} of {len(lags)} not seen in {TIMEOUT_S:.0f} s" if missed else ""
        print(f"{name}|{load}|{median}|{worst}|{unseen}", flush=True)
    stop.set()
    for t in threads:
        t.join(timeout=60)


if __name__ == "__main__":
    main()
