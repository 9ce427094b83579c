def model(dbt, session):
    """Python model: orders and revenue per status, from fct_orders.

    Uses the DuckDB relational API (dbt.ref returns a DuckDBPyRelation), so it needs no pandas.
    """
    dbt.config(materialized="table")
    orders = dbt.ref("fct_orders")
    return orders.aggregate(
        "status, count(*) as order_count, sum(amount) as amount, sum(paid_amount) as paid_amount",
        "status",
    ).order("status")
