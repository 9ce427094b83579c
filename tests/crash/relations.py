"""Every relation dbt built in a DuckDB file, as rows the crash tests compare.

  python relations.py fingerprint FILE   prints {"schema.relation": [row count, row hash sum]}
  python relations.py drop FILE          drops every table and view outside the raw schema

The fingerprint is order-independent (a sum of row hashes) and leaves out the columns whose
values are the time of a build (a snapshot's dbt_valid_from, dbt_updated_at, ...), so a
relation built incrementally and one built from scratch on the same data compare equal.
"""
import json
import sys

import duckdb

BUILD_TIME_COLUMNS = {"dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to"}


def dbt_relations(con):
    return con.execute(
        "select table_schema, table_name, table_type from information_schema.tables "
        "where table_schema <> 'raw' and table_catalog = current_database() order by 1, 2").fetchall()


def fingerprint(con):
    out = {}
    for schema, name, _ in dbt_relations(con):
        columns = [c for (c,) in con.execute(
            "select column_name from information_schema.columns where table_schema = ? and table_name = ? "
            "and table_catalog = current_database() order by ordinal_position", [schema, name]).fetchall()
            if c not in BUILD_TIME_COLUMNS]
        listed = ", ".join('"%s"' % c.replace('"', '""') for c in columns)
        count, total = con.execute(
            f'select count(*), coalesce(sum(hash(row({listed}))), 0) from "{schema}"."{name}"').fetchone()
        out[f"{schema}.{name}"] = [int(count), str(total)]
    return out


def drop(con):
    for schema, name, kind in dbt_relations(con):
        con.execute(f'drop {"view" if kind == "VIEW" else "table"} if exists "{schema}"."{name}" cascade')


def main():
    command, path = sys.argv[1], sys.argv[2]
    con = duckdb.connect(path)
    try:
        if command == "fingerprint":
            print(json.dumps(fingerprint(con), sort_keys=True))
        elif command == "drop":
            drop(con)
        else:
            sys.exit(f"relations.py: unknown command {command!r}")
    finally:
        con.close()


if __name__ == "__main__":
    main()
