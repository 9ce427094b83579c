create schema if not exists raw;
create or replace table raw.events as
  select range as id, range % 5 as customer_id, (range * 37 % 200)::decimal(10, 2) as amount,
         case range % 3 when 0 then 'placed' when 1 then 'shipped' else 'returned' end as status,
         timestamp '2026-01-01' + to_hours(range) as updated_at
  from range(1, 41);
create or replace table raw.clicks as
  select range as click_id, range % 7 as customer_id, timestamp '2026-01-01' + to_minutes(range * 13) as clicked_at
  from range(1, 61);
create or replace table raw.readings as
  select range as reading_id, 'sensor-' || (range % 3) as sensor, date '2026-01-01' + (range // 3)::int as reading_day,
         (range * 1.5)::decimal(10, 1) as value
  from range(1, 31);
