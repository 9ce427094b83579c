#!/usr/bin/env python3
"""Generate the raw source tables of the `shop` demo in its DuckDB file.

Creates (or re-creates) in schema `raw`:
  raw.customers  (customer_id, first_name, last_name, email, country_code, created_at)  -- no loaded_at
  raw.orders     (order_id, customer_id, ordered_at, status, amount_cents, loaded_at)
  raw.payments   (payment_id, order_id, payment_method, amount_cents, created_at)        -- no loaded_at

Deterministic: the same --seed, --scale and --anchor give the same rows, byte for byte.
Re-running re-creates the three tables (other schemas, e.g. dbt's `main`, are left alone).

Mutations for data-change scenarios (applied to existing tables, deterministic too):
  --append-orders N     insert N new orders (and their payments), loaded_at one hour after
                        the current max(loaded_at)
  --update-customers N  change the email of customers 1..N (the snapshot sees a change)

Standard library + the `duckdb` module that comes with dbt-duckdb. Run it with the Python
of the dbt venv, from anywhere:  .venv/bin/python examples/shop/scripts/generate_data.py
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import random
import sys
import tempfile
import time

import duckdb

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


def load(con, table: str, rows, replace: bool) -> None:
    """Bulk-load rows through a temporary CSV (much faster than executemany)."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", delete=False) as f:
        csv.writer(f).writerows(rows)
        path = f.name
    try:
        cols = ", ".join(
            f"'{c.split()[0]}': '{' '.join(c.split()[1:])}'"
            for c in (x.strip() for x in DDL[table].split(","))
        )
        select = (f"select * from read_csv('{path}', header = false, auto_detect = false, "
                  f"columns = {{{cols}}})")
        if replace:
            con.execute(f"create or replace table raw.{table} ({DDL[table]})")
        con.execute(f"insert into raw.{table} {select}")
    finally:
        os.unlink(path)


def create_all(con, seed: int, scale: int, anchor: dt.datetime) -> None:
    rng = random.Random(seed)
    n_customers, n_orders = BASE_CUSTOMERS * scale, BASE_ORDERS * scale
    customers = make_customers(rng, n_customers, anchor)
    start = anchor - dt.timedelta(days=ORDER_SPAN_DAYS)
    orders, payments = make_orders(rng, 1, n_orders, n_customers, start,
                                   ORDER_SPAN_DAYS * 86400 - 6 * 3600, 1)
    con.execute("create schema if not exists raw")
    load(con, "customers", customers, replace=True)
    load(con, "orders", orders, replace=True)
    load(con, "payments", payments, replace=True)


def append_orders(con, seed: int, n: int) -> None:
    max_oid, max_pid, n_customers, max_loaded = con.execute("""
        select (select coalesce(max(order_id), 0) from raw.orders),
               (select coalesce(max(payment_id), 0) from raw.payments),
               (select count(*) from raw.customers),
               (select max(loaded_at) from raw.orders)""").fetchone()
    # Seeded by the current state, so the same sequence of calls gives the same rows.
    rng = random.Random(f"{seed}:{max_oid}")
    start = max_loaded + dt.timedelta(minutes=1)
    orders, payments = make_orders(rng, max_oid + 1, n, n_customers, start, 55 * 60, max_pid + 1)
    # The whole batch is loaded exactly one hour after the previous max(loaded_at)
    # (after every appended ordered_at).
    loaded = fmt(max_loaded + dt.timedelta(hours=1))
    orders = [o[:5] + (loaded,) for o in orders]
    load(con, "orders", orders, replace=False)
    load(con, "payments", payments, replace=False)


def update_customers(con, n: int) -> None:
    con.execute("update raw.customers set email = 'u.' || email where customer_id <= ?", [n])


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
                   help="delete the whole DuckDB file first (also dbt's relations)")
    p.add_argument("--append-orders", type=int, metavar="N", default=0,
                   help="do not re-create: append N orders (and payments) to the existing tables")
    p.add_argument("--update-customers", type=int, metavar="N", default=0,
                   help="do not re-create: change the email of customers 1..N")
    args = p.parse_args(argv)
    if args.scale < 1:
        p.error("--scale must be >= 1")

    db = os.path.abspath(args.db) if args.db else default_db_path()
    mutate = args.append_orders > 0 or args.update_customers > 0
    if args.fresh:
        if mutate:
            p.error("--fresh cannot be combined with --append-orders/--update-customers")
        for suffix in ("", ".wal"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)

    t0 = time.monotonic()
    con = duckdb.connect(db)
    try:
        con.execute("begin transaction")
        if mutate:
            if args.append_orders:
                append_orders(con, args.seed, args.append_orders)
            if args.update_customers:
                update_customers(con, args.update_customers)
        else:
            create_all(con, args.seed, args.scale, parse_anchor(args.anchor))
        con.execute("commit")
        counts = {t: con.execute(f"select count(*) from raw.{t}").fetchone()[0]
                  for t in ("customers", "orders", "payments")}
        max_loaded = con.execute("select max(loaded_at) from raw.orders").fetchone()[0]
    finally:
        con.close()
    print(f"{db}: " + ", ".join(f"raw.{t}={n}" for t, n in counts.items())
          + f", max(raw.orders.loaded_at)={max_loaded} ({time.monotonic() - t0:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
