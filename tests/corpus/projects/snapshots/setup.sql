create schema if not exists raw;
create or replace table raw.customers as
  select range as customer_id, 'customer ' || range as name,
         case range % 3 when 0 then 'gold' when 1 then 'silver' else 'bronze' end as tier,
         timestamp '2026-01-01' + to_hours(range) as updated_at
  from range(1, 21);
create or replace table raw.plans as
  select * from (values ('gold', 30), ('silver', 20), ('bronze', 10)) as t(tier, monthly_fee);
