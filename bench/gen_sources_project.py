#!/usr/bin/env python3
"""Writes a dbt project for DuckDB with N source tables, for the probe benchmark.

    gen_sources_project.py N OUTDIR

The project (name `probe_bench`) has:
  - N source tables raw.t00001 .. raw.tNNNNN (source `raw`), 100 rows each, created in
    OUTDIR/probe.duckdb by this script (the `duckdb` module that comes with dbt-duckdb);
  - one view per 10 sources (`stg_NNNN`, a union of its 10 tables), so `ods state run`
    has nodes to check and reuse;
  - profiles.yml in OUTDIR, 1 thread.

Deterministic. Files are written only when their content changes (dbt's partial parsing
stays warm); the DuckDB file is re-created only when it does not hold N source tables.
"""
import os
import sys

ROWS = 100
GROUP = 10


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


def table(i):
    return f"t{i:05d}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    n, out = int(sys.argv[1]), os.path.abspath(sys.argv[2])
    if n < 1:
        sys.exit("gen_sources_project.py: N must be at least 1")
    write(os.path.join(out, "dbt_project.yml"),
          "name: probe_bench\nversion: '1.0'\nconfig-version: 2\nprofile: probe_bench\n"
          "model-paths: ['models']\nflags:\n  send_anonymous_usage_stats: false\n"
          "models:\n  probe_bench:\n    +materialized: view\n")
    write(os.path.join(out, "profiles.yml"),
          "probe_bench:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
          f"      path: '{os.path.join(out, 'probe.duckdb')}'\n      threads: 1\n")
    sources = ["version: 2", "sources:", "  - name: raw", "    schema: raw", "    tables:"]
    sources += [f"      - name: {table(i)}" for i in range(1, n + 1)]
    write(os.path.join(out, "models", "_sources.yml"), "\n".join(sources) + "\n")
    wanted = set()
    for g in range((n + GROUP - 1) // GROUP):
        name = f"stg_{g + 1:04d}"
        wanted.add(name + ".sql")
        parts = [f"select {i} as t, id, v from {{{{ source('raw', '{table(i)}') }}}}"
                 for i in range(g * GROUP + 1, min(n, (g + 1) * GROUP) + 1)]
        write(os.path.join(out, "models", name + ".sql"), "\nunion all\n".join(parts) + "\n")
    for f in os.listdir(os.path.join(out, "models")):
        if f.endswith(".sql") and f not in wanted:
            os.remove(os.path.join(out, "models", f))

    import duckdb  # comes with dbt-duckdb

    con = duckdb.connect(os.path.join(out, "probe.duckdb"))
    have = con.execute("select count(*) from information_schema.tables where table_schema = 'raw'").fetchone()[0]
    if have != n:
        con.execute("drop schema if exists raw cascade")
        con.execute("create schema raw")
        for i in range(1, n + 1):
            con.execute(f"create table raw.{table(i)} as select range as id, range * {i} as v from range({ROWS})")
    con.close()
    print(f"{out}: {n} source tables, {(n + GROUP - 1) // GROUP} models")


if __name__ == "__main__":
    main()
