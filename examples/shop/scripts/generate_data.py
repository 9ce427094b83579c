#!/usr/bin/env python3
"""Generate the raw source tables of the `shop` demo in its DuckDB file (or in PostgreSQL).

Creates (or re-creates) in schema `raw`:
  raw.customers  (customer_id, first_name, last_name, email, country_code, created_at)  -- no loaded_at
  raw.orders     (order_id, customer_id, ordered_at, status, amount_cents, loaded_at)
  raw.payments   (payment_id, order_id, payment_method, amount_cents, created_at)        -- no loaded_at

Deterministic: the same --seed, --scale and --anchor give the same rows, byte for byte.
Re-running re-creates the three tables (other schemas, e.g. dbt's `main`, are left alone).

--engine sql (DuckDB only) generates the rows inside DuckDB with range() and hash() instead of
row by row in Python: the same columns, value ranges and weights, other rows (deterministic
too, for one DuckDB version); scale 10000 (1M customers, 10M orders) in seconds instead of
the Python engine's tens of minutes. The benchmarks use it (bench/state_run.sh shop).

Mutations for data-change scenarios (applied to existing tables, deterministic too):
  --append-orders N     insert N new orders (and their payments), loaded_at one hour after
                        the current max(loaded_at)
  --update-customers N  change the email of customers 1..N (the snapshot sees a change)

PostgreSQL (the `pg` target of profiles.yml): --postgres DSN writes the same rows into that
database instead of the DuckDB file (libpq DSN, e.g. "host=127.0.0.1 port=5432 user=postgres
dbname=shop"). There, re-creating keeps the tables (dbt's views depend on them) and replaces
their rows; --fresh drops the schemas raw, main and main_* (every dbt relation).

Standard library + the `duckdb` module that comes with dbt-duckdb (+ `psycopg2`, from
dbt-postgres, for --postgres). Run it with the Python of the dbt venv, from anywhere:
  .venv/bin/python examples/shop/scripts/generate_data.py
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import os
import random
import sys
import tempfile
import time

PROJECT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BASE_CUSTOMERS = 100
BASE_ORDERS = 1000

# Must stay within seeds/country_codes.csv (dim_customers joins them).
COUNTRIES = ["DE", "FR", "GB", "NL", "US", "CA", "BR", "JP", "AU", "IN"]
COUNTRY_WEIGHTS = [12, 8, 10, 5, 30, 6, 7, 8, 6, 8]
FIRST_NAMES = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John",
               "Margaret", "Ken", "Radia", "Dennis", "Hedy", "Tim", "Sophie", "Linus"]
LAST_NAMES = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen",
              "Backus", "Hamilton", "Thompson", "Perlman", "Ritchie", "Lamarr", "Wilson"]
STATUSES = ["placed", "shipped", "completed", "returned", "cancelled"]
STATUS_WEIGHTS = [10, 15, 60, 8, 7]
METHODS = ["credit_card", "paypal", "bank_transfer", "gift_card"]
METHOD_WEIGHTS = [55, 25, 12, 8]

DEFAULT_ANCHOR = "2025-01-01T00:00:00"
ORDER_SPAN_DAYS = 90

DDL = {
    "customers": """
        customer_id integer, first_name varchar, last_name varchar, email varchar,
        country_code varchar, created_at timestamp""",
    "orders": """
        order_id integer, customer_id integer, ordered_at timestamp, status varchar,
        amount_cents integer, loaded_at timestamp""",
    "payments": """
        payment_id integer, order_id integer, payment_method varchar, amount_cents integer,
        created_at timestamp""",
}


def default_db_path() -> str:
    env = os.environ.get("SHOP_DUCKDB_PATH")
    # Same rule as profiles.yml: a relative SHOP_DUCKDB_PATH is relative to the working directory.
    return os.path.abspath(env) if env else os.path.join(PROJECT_DIR, "shop.duckdb")


def parse_anchor(text: str) -> dt.datetime:
    if text == "now":
        return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
    return dt.datetime.fromisoformat(text).replace(tzinfo=None)


def fmt(ts: dt.datetime) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%S")


def make_customers(rng: random.Random, n: int, anchor: dt.datetime):
    rows = []
    for cid in range(1, n + 1):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        country = rng.choices(COUNTRIES, COUNTRY_WEIGHTS)[0]
        created = anchor - dt.timedelta(days=ORDER_SPAN_DAYS + rng.randrange(365),
                                        seconds=rng.randrange(86400))
        email = f"{first}.{last}.{cid}@example.com".lower()
        rows.append((cid, first, last, email, country, fmt(created)))
    return rows


def make_orders(rng: random.Random, first_id: int, n: int, n_customers: int,
                start: dt.datetime, span_seconds: int, first_payment_id: int):
    """Orders with ordered_at in [start, start + span) and their payments."""
    orders, payments = [], []
    pid = first_payment_id
    for oid in range(first_id, first_id + n):
        cid = rng.randrange(1, n_customers + 1)
        ordered = start + dt.timedelta(seconds=rng.randrange(max(span_seconds, 1)))
        status = rng.choices(STATUSES, STATUS_WEIGHTS)[0]
        amount = rng.randrange(199, 25000)  # $1.99 .. $249.99
        loaded = ordered + dt.timedelta(minutes=rng.randrange(5, 240))
        orders.append((oid, cid, fmt(ordered), status, amount, fmt(loaded)))
        if status == "cancelled":
            continue
        # One payment, sometimes split in two (e.g. gift card + credit card).
        parts = [amount] if rng.random() < 0.85 else [amount // 3, amount - amount // 3]
        for part in parts:
            paid = ordered + dt.timedelta(minutes=rng.randrange(0, 30))
            method = rng.choices(METHODS, METHOD_WEIGHTS)[0]
            payments.append((pid, oid, method, part, fmt(paid)))
            pid += 1
    return orders, payments


def write_csv(rows) -> str:
    """Rows as CSV text (a NULL would be an empty field; the generator makes none)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


class DuckDbTarget:
    """The DuckDB file of the `dev` target."""

    def __init__(self, path: str, fresh: bool):
        if fresh:
            for suffix in ("", ".wal"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
        import duckdb  # comes with dbt-duckdb

        self.name = path
        self.con = duckdb.connect(path)
        self.con.execute("begin transaction")

    # Statements are written with psycopg2's %s placeholders; DuckDB's are ?.
    def query_one(self, sql: str, params=None):
        return self.con.execute(sql.replace("%s", "?"), list(params or [])).fetchone()

    def execute(self, sql: str, params=None) -> None:
        self.con.execute(sql.replace("%s", "?"), list(params or []))

    def load(self, table: str, rows, replace: bool) -> None:
        """Bulk-load rows through a temporary CSV (much faster than executemany)."""
        with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", delete=False) as f:
            f.write(write_csv(rows))
            path = f.name
        try:
            cols = ", ".join(
                f"'{c.split()[0]}': '{' '.join(c.split()[1:])}'"
                for c in (x.strip() for x in DDL[table].split(","))
            )
            select = (f"select * from read_csv('{path}', header = false, auto_detect = false, "
                      f"columns = {{{cols}}})")
            if replace:
                self.con.execute(f"create or replace table raw.{table} ({DDL[table]})")
            self.con.execute(f"insert into raw.{table} {select}")
        finally:
            os.unlink(path)

    def commit(self) -> None:
        self.con.execute("commit")

    def close(self) -> None:
        self.con.close()


class PostgresTarget:
    """A PostgreSQL database (the `pg` target), through psycopg2 (comes with dbt-postgres)."""

    def __init__(self, dsn: str, fresh: bool):
        import psycopg2

        self.con = psycopg2.connect(dsn)  # psycopg2 opens a transaction on the first statement
        params = self.con.get_dsn_parameters()
        self.name = (f"postgresql://{params.get('user')}@{params.get('host')}:{params.get('port')}"
                     f"/{params.get('dbname')}")
        if fresh:
            # Everything dbt and this script made (schema `main` of profiles.yml, custom main_*).
            for (schema,) in self._all("""
                    select nspname from pg_namespace
                    where nspname in ('raw', 'main') or nspname like 'main\\_%' order by 1"""):
                self.execute(f'drop schema "{schema}" cascade')

    def _all(self, sql: str, params=None):
        with self.con.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    def query_one(self, sql: str, params=None):
        with self.con.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchone()

    def execute(self, sql: str, params=None) -> None:
        with self.con.cursor() as cur:
            cur.execute(sql, params)

    def load(self, table: str, rows, replace: bool) -> None:
        """COPY the rows in. Re-creating keeps the table and replaces its rows: dbt's staging
        views depend on it, and PostgreSQL would refuse to drop it (or drop them too)."""
        if replace:
            self.execute(f"create table if not exists raw.{table} ({DDL[table]})")
            self.execute(f"truncate raw.{table}")
        columns = ", ".join(c.split()[0] for c in (x.strip() for x in DDL[table].split(",")))
        with self.con.cursor() as cur:
            cur.copy_expert(f"copy raw.{table} ({columns}) from stdin with (format csv)",
                            io.StringIO(write_csv(rows)))

    def commit(self) -> None:
        self.con.commit()

    def close(self) -> None:
        self.con.close()


def create_all(db, seed: int, scale: int, anchor: dt.datetime) -> None:
    rng = random.Random(seed)
    n_customers, n_orders = BASE_CUSTOMERS * scale, BASE_ORDERS * scale
    customers = make_customers(rng, n_customers, anchor)
    start = anchor - dt.timedelta(days=ORDER_SPAN_DAYS)
    orders, payments = make_orders(rng, 1, n_orders, n_customers, start,
                                   ORDER_SPAN_DAYS * 86400 - 6 * 3600, 1)
    db.execute("create schema if not exists raw")
    db.load("customers", customers, replace=True)
    db.load("orders", orders, replace=True)
    db.load("payments", payments, replace=True)


def sql_pick(values, weights, h: str) -> str:
    """A DuckDB expression choosing from values by weights with the hash expression h."""
    expanded = [v for v, w in zip(values, weights) for _ in range(w)]
    literal = "[" + ", ".join(f"'{v}'" for v in expanded) + "]"
    return f"{literal}[(({h}) % {len(expanded)})::bigint + 1]"


def create_all_sql(db, seed: int, scale: int, anchor: dt.datetime) -> None:
    """create_all's tables generated by DuckDB itself (--engine sql): every random draw is
    hash(seed, row id, draw number), so the rows depend on nothing but the arguments."""
    n_customers, n_orders = BASE_CUSTOMERS * scale, BASE_ORDERS * scale
    start = anchor - dt.timedelta(days=ORDER_SPAN_DAYS)
    span = ORDER_SPAN_DAYS * 86400 - 6 * 3600

    def h(row: str, draw: int) -> str:
        return f"hash({seed}, {row}, {draw})"

    first = sql_pick(FIRST_NAMES, [1] * len(FIRST_NAMES), h("i", 1))
    last = sql_pick(LAST_NAMES, [1] * len(LAST_NAMES), h("i", 2))
    db.execute("create schema if not exists raw")
    db.execute(f"""
        create or replace table raw.customers as
        select customer_id::integer as customer_id, first_name, last_name,
               lower(first_name || '.' || last_name || '.' || customer_id || '@example.com') as email,
               country_code, created_at
        from (select i as customer_id, {first} as first_name, {last} as last_name,
                     {sql_pick(COUNTRIES, COUNTRY_WEIGHTS, h("i", 3))} as country_code,
                     timestamp '{fmt(anchor)}'
                       - to_days(({ORDER_SPAN_DAYS} + {h("i", 4)} % 365)::integer)
                       - to_seconds(({h("i", 5)} % 86400)::bigint) as created_at
              from range(1, {n_customers + 1}) t(i)) c
        order by customer_id""")
    db.execute(f"""
        create or replace table raw.orders as
        select i::integer as order_id, ({h("i", 1)} % {n_customers} + 1)::integer as customer_id,
               ordered_at,
               {sql_pick(STATUSES, STATUS_WEIGHTS, h("i", 3))} as status,
               (199 + {h("i", 4)} % {25000 - 199})::integer as amount_cents,
               ordered_at + to_minutes((5 + {h("i", 5)} % 235)::bigint) as loaded_at
        from (select i, timestamp '{fmt(start)}' + to_seconds(({h("i", 2)} % {span})::bigint) as ordered_at
              from range(1, {n_orders + 1}) t(i)) o
        order by order_id""")
    # One payment per order that is not cancelled, split in two for 15 in 100 of them.
    db.execute(f"""
        create or replace table raw.payments as
        select (row_number() over (order by order_id, part))::integer as payment_id, order_id,
               {sql_pick(METHODS, METHOD_WEIGHTS, h("order_id * 2 + part", 7))} as payment_method,
               (case when not split then amount_cents
                     when part = 0 then amount_cents // 3
                     else amount_cents - amount_cents // 3 end)::integer as amount_cents,
               ordered_at + to_minutes(({h("order_id * 2 + part", 8)} % 30)::bigint) as created_at
        from (select order_id, amount_cents, ordered_at, {h("order_id", 6)} % 100 < 15 as split
              from raw.orders where status <> 'cancelled') o,
             range(0, 2) p(part)
        where part = 0 or split
        order by payment_id""")


def append_orders(db, seed: int, n: int) -> None:
    max_oid, max_pid, n_customers, max_loaded = db.query_one("""
        select (select coalesce(max(order_id), 0) from raw.orders),
               (select coalesce(max(payment_id), 0) from raw.payments),
               (select count(*) from raw.customers),
               (select max(loaded_at) from raw.orders)""")
    # Seeded by the current state, so the same sequence of calls gives the same rows.
    rng = random.Random(f"{seed}:{max_oid}")
    start = max_loaded + dt.timedelta(minutes=1)
    orders, payments = make_orders(rng, max_oid + 1, n, n_customers, start, 55 * 60, max_pid + 1)
    # The whole batch is loaded exactly one hour after the previous max(loaded_at)
    # (after every appended ordered_at).
    loaded = fmt(max_loaded + dt.timedelta(hours=1))
    orders = [o[:5] + (loaded,) for o in orders]
    db.load("orders", orders, replace=False)
    db.load("payments", payments, replace=False)


def update_customers(db, n: int) -> None:
    db.execute("update raw.customers set email = 'u.' || email where customer_id <= %s", [n])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", default=None,
                   help="DuckDB file (default: $SHOP_DUCKDB_PATH, else <project>/shop.duckdb)")
    p.add_argument("--scale", type=int, default=1,
                   help=f"multiply row counts (scale 1: {BASE_CUSTOMERS} customers, "
                        f"{BASE_ORDERS} orders, ~1.1 payments per order)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("--anchor", default=DEFAULT_ANCHOR,
                   help="latest order time, ISO-8601 or 'now' (default %(default)s; "
                        "with a fixed anchor `dbt source freshness` reports WARN, with 'now' PASS)")
    p.add_argument("--fresh", action="store_true",
                   help="delete the whole DuckDB file first (also dbt's relations); with "
                        "--postgres: drop the schemas raw, main and main_*")
    p.add_argument("--postgres", metavar="DSN", default=None,
                   help="write to this PostgreSQL database (libpq DSN or URI, e.g. "
                        "'host=127.0.0.1 port=5432 user=postgres dbname=shop') instead of DuckDB")
    p.add_argument("--engine", choices=["python", "sql"], default="python",
                   help="python (default): rows drawn in Python; sql (DuckDB only): rows "
                        "generated inside DuckDB with range() and hash(), for large scales")
    p.add_argument("--append-orders", type=int, metavar="N", default=0,
                   help="do not re-create: append N orders (and payments) to the existing tables")
    p.add_argument("--update-customers", type=int, metavar="N", default=0,
                   help="do not re-create: change the email of customers 1..N")
    args = p.parse_args(argv)
    if args.scale < 1:
        p.error("--scale must be >= 1")

    mutate = args.append_orders > 0 or args.update_customers > 0
    if args.fresh and mutate:
        p.error("--fresh cannot be combined with --append-orders/--update-customers")
    if args.postgres and args.db:
        p.error("--db and --postgres are exclusive")
    if args.engine == "sql" and (args.postgres or mutate):
        p.error("--engine sql generates the DuckDB tables only (no --postgres, --append-orders or "
                "--update-customers)")

    t0 = time.monotonic()
    if args.postgres:
        db = PostgresTarget(args.postgres, args.fresh)
    else:
        db = DuckDbTarget(os.path.abspath(args.db) if args.db else default_db_path(), args.fresh)
    try:
        if mutate:
            if args.append_orders:
                append_orders(db, args.seed, args.append_orders)
            if args.update_customers:
                update_customers(db, args.update_customers)
        elif args.engine == "sql":
            create_all_sql(db, args.seed, args.scale, parse_anchor(args.anchor))
        else:
            create_all(db, args.seed, args.scale, parse_anchor(args.anchor))
        db.commit()
        counts = {t: db.query_one(f"select count(*) from raw.{t}")[0]
                  for t in ("customers", "orders", "payments")}
        max_loaded = db.query_one("select max(loaded_at) from raw.orders")[0]
    finally:
        db.close()
    print(f"{db.name}: " + ", ".join(f"raw.{t}={n}" for t, n in counts.items())
          + f", max(raw.orders.loaded_at)={max_loaded} ({time.monotonic() - t0:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
