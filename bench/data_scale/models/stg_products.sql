{{ config(materialized='view') }}
select id as product_id, name as product_name, category_id, price from {{ source('raw', 'products') }}
