"""Changes the lake's source tables with a Spark session of its own (the Spark environment's
python; scripts/spark-env.sh), configured as profiles.yml configures dbt's.

    python scripts/lake.py create            the raw schema with its tables, view and parquet table
    python scripts/lake.py sql STATEMENT...  runs each statement in order, printing what it returned

$ODS_LAKE_DIR holds the warehouse and the Derby metastore; $ODS_DELTA_JARS lists the Delta jars.
With $ODS_ICEBERG_JARS set (the iceberg-spark-runtime jar), the session also has the Hadoop
catalog `iceberg` under $ODS_LAKE_DIR/iceberg, as profiles.yml's `iceberg` target configures it,
and a statement may name `{first_snapshot:<table>}`: the id of that table's oldest snapshot (for
CALL iceberg.system.rollback_to_snapshot, which takes a literal).
Derby allows one process at a time: run this only while no dbt process uses the lake.
With $ODS_THRIFT_PORT set, the statements go to the Spark Thrift server on that loopback port
(scripts/spark-thrift.sh, which holds the lake) instead of a Spark of its own.
"""
import os
import re
import sys

from pyspark.sql import SparkSession

CREATE = [
    "create database if not exists raw",
    # three inserts: three files, so an OPTIMIZE has something to compact (and writes a commit)
    "create table raw.orders (id int, customer_id int, amount int, status string) using delta",
    "insert into raw.orders values (1, 1, 10, 'open'), (2, 1, 20, 'shipped')",
    "insert into raw.orders values (3, 2, 30, 'open')",
    "insert into raw.orders values (4, 3, 40, 'shipped')",
    "create table raw.customers (id int, name string) using delta",
    "insert into raw.customers values (1, 'ada'), (2, 'grace')",
    "insert into raw.customers values (3, 'edsger')",
    "create table raw.payments (id int, order_id int, amount int) using delta",
    "insert into raw.payments values (1, 1, 10), (2, 2, 20)",
    "create table raw.refunds (id int, order_id int, amount int) using delta",
    "insert into raw.refunds values (1, 2, 5)",
    "create table raw.shipments (id int, order_id int, carrier string) using delta",
    "insert into raw.shipments values (1, 2, 'post')",
    "insert into raw.shipments values (2, 4, 'courier')",
    "create view raw.open_orders as select * from raw.orders where status = 'open'",
    "create table raw.fx_rates (currency string, rate double) using parquet",
    "insert into raw.fx_rates values ('EUR', 1.0), ('USD', 1.1)",
]


def session():
    lake = os.environ["ODS_LAKE_DIR"]
    iceberg = os.environ.get("ODS_ICEBERG_JARS")
    builder = SparkSession.builder.master("local[1]")
    if iceberg:
        builder = (
            builder.config("spark.jars", os.environ["ODS_DELTA_JARS"] + "," + iceberg)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension,"
                    "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.iceberg", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.iceberg.type", "hadoop")
            .config("spark.sql.catalog.iceberg.warehouse", lake + "/iceberg")
        )
    else:
        builder = builder.config("spark.jars", os.environ["ODS_DELTA_JARS"]).config(
            "spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    return (
        builder
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.warehouse.dir", lake + "/warehouse")
        .config("spark.driver.extraJavaOptions", "-Dderby.system.home=" + lake + "/derby")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.databricks.delta.snapshotPartitions", "1")
        # VACUUM ... RETAIN 0 HOURS, and VACUUM START/END commits in the history
        .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
        .config("spark.databricks.delta.vacuum.logging.enabled", "true")
        .config("spark.ui.enabled", "false")
        .enableHiveSupport()
        .getOrCreate()
    )


def run_through_thrift(port, statements):
    from pyhive import hive

    cursor = hive.connect(host="127.0.0.1", port=int(port), username="ods").cursor()
    for statement in statements:
        cursor.execute(statement)
        print(">>", statement, flush=True)
        if cursor.description:
            names = [d[0] for d in cursor.description]
            for row in cursor.fetchall()[:20]:
                print("  ", dict(zip(names, row)), flush=True)
    cursor.close()


def main(argv):
    if len(argv) < 2 or argv[1] not in ("create", "sql"):
        sys.exit(__doc__)
    statements = CREATE if argv[1] == "create" else argv[2:]
    if os.environ.get("ODS_THRIFT_PORT"):
        run_through_thrift(os.environ["ODS_THRIFT_PORT"], statements)
        return
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    for statement in statements:
        statement = re.sub(r"\{first_snapshot:([\w.]+)\}", lambda m: str(spark.sql(
            f"select snapshot_id from {m.group(1)}.snapshots order by committed_at limit 1").first()[0]), statement)
        rows = spark.sql(statement).collect()
        print(">>", statement, flush=True)
        for row in rows[:20]:
            print("  ", row.asDict(), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv)
