create schema if not exists raw;
create or replace table raw.orders as
  select range as order_id, range % 6 as customer_id,
         case range % 3 when 0 then 'placed' when 1 then 'shipped' else 'returned' end as status,
         (range * 731 % 10000)::bigint as amount_cents
  from range(1, 51);
