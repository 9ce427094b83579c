def model(dbt, session):
    """Events and amount per status, from events_delete_insert (DuckDB relational API, no pandas)."""
    dbt.config(materialized="table")
    events = dbt.ref("events_delete_insert")
    return events.aggregate("status, count(*) as events, sum(amount) as amount", "status")
