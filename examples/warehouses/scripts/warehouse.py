"""Changes the emulated warehouse of the emulator suites (tests/warehouses), as a loader would.

  python scripts/warehouse.py snowflake|bigquery PORT sql STATEMENT...   runs each statement
  python scripts/warehouse.py snowflake|bigquery PORT create             the raw tables and view

Talks to the emulator on 127.0.0.1:PORT with the vendor's own client (snowflake-connector-python,
google-cloud-bigquery), with short timeouts so a stuck emulator fails the step, not the suite.
"""
import sys

CREATE = [
    "create schema if not exists {raw}",
    "create or replace table {raw}.orders (id int64, customer_id int64, amount float64)",
    "insert into {raw}.orders values (1, 10, 5.0), (2, 10, 7.5), (3, 11, 2.0)",
    "create or replace table {raw}.customers (id int64, name string)",
    "insert into {raw}.customers values (10, 'ada'), (11, 'grace')",
    "create or replace view {raw}.order_feed as select id, amount from {raw}.orders",
]


def snowflake(port):
    import snowflake.connector
    conn = snowflake.connector.connect(account="fakesnow", user="fake", password="snow", host="127.0.0.1",
                                       port=port, protocol="http", database="DB", schema="ANALYTICS",
                                       login_timeout=20, network_timeout=20, socket_timeout=20)
    cur = conn.cursor()
    return lambda sql: cur.execute(sql.replace("int64", "int").replace("float64", "double").replace("string", "varchar"))


def bigquery(port):
    from google.api_core.client_options import ClientOptions
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import bigquery as bq
    client = bq.Client(project="local-project", credentials=AnonymousCredentials(),
                       client_options=ClientOptions(api_endpoint=f"http://127.0.0.1:{port}"))
    return lambda sql: client.query(sql).result(timeout=60)


def main(argv):
    if len(argv) < 3 or argv[0] not in ("snowflake", "bigquery") or argv[2] not in ("sql", "create"):
        sys.exit(__doc__)
    run = (snowflake if argv[0] == "snowflake" else bigquery)(int(argv[1]))
    raw = "DB.RAW" if argv[0] == "snowflake" else "raw"
    statements = CREATE if argv[2] == "create" else argv[3:]
    for sql in statements:
        run(sql.format(raw=raw))
        print(f"warehouse.py: {sql.format(raw=raw)[:100]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
