-- Order numbers become unique across every order (live and deleted, every series), case and
-- zero padding ignored, enforced by the database. The rules: src/orders/numbering.ts. What this
-- migration does to existing rows: docs/decisions.md ("Order numbers").
-- Comments here hold no semicolons: the schema engine splits the script at every one.

-- The old key was unique per series and case-sensitive only, and its successor is below.
-- DropIndex
DROP INDEX "sales_orders_location_id_financial_year_id_sales_order_no_key";

-- What makes two numbers the same: a series-shaped number ({prefix}-{4-digit year}-{digits})
-- in canonical form (prefix upper-case, sequence zero-padded to at least 5 digits), any other
-- number upper-cased. The SQL twin of orderNumberKey in src/orders/numbering.ts.
CREATE FUNCTION sales_order_number_key(order_number text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN shape IS NULL THEN upper(order_number)
    ELSE upper(shape[1]) || '-' || shape[2] || '-' || (
      SELECT CASE WHEN length(digits) >= 5 THEN digits ELSE lpad(digits, 5, '0') END
      FROM (SELECT ltrim(shape[3], '0') AS digits) AS sequence
    )
  END
  FROM (SELECT regexp_match(order_number, '^(.+)-([0-9]{4})-([0-9]+)$') AS shape) AS parsed
$$;

-- 1. Only numbers of the series of their order (the prefix of its location, the start year of its
--    financial year) carry a sequence, they are stored in canonical form. Every other number is
--    free-form: kept as it is, with no sequence.
UPDATE "sales_orders" SET "sequence" = NULL;

UPDATE "sales_orders" AS o
SET "sales_order_no" = sales_order_number_key(o."sales_order_no"),
    "sequence" = (regexp_match(o."sales_order_no", '-([0-9]+)$'))[1]::bigint
FROM "locations" AS l, "financial_years" AS f
WHERE l."id" = o."location_id"
  AND f."id" = o."financial_year_id"
  AND upper((regexp_match(o."sales_order_no", '^(.+)-([0-9]{4})-([0-9]+)$'))[1]) = upper(l."code")
  AND (regexp_match(o."sales_order_no", '^(.+)-([0-9]{4})-([0-9]+)$'))[2] = to_char(f."start_date", 'YYYY');

-- 2. Numbers that now collide (case or padding variants, or a number supplied on an order of
--    another series that its own series later issued too): an order of the series the number
--    belongs to keeps it, else the oldest order (lowest id). Each other one gets its number with
--    the suffix ".DUP{id}" (shortened to fit 50 characters), which is free-form, unique and
--    easy to find.
WITH ranked AS (
  SELECT "id", row_number() OVER (
    PARTITION BY sales_order_number_key("sales_order_no") ORDER BY "sequence" IS NULL, "id"
  ) AS rank
  FROM "sales_orders"
)
UPDATE "sales_orders" AS o
SET "sales_order_no" = left(o."sales_order_no", 50 - length('.DUP' || o."id")) || '.DUP' || o."id",
    "sequence" = NULL
FROM ranked
WHERE ranked."id" = o."id" AND ranked.rank > 1;

-- 3. Each series counter stands at the highest number of that series any order holds, on any
--    order: a counter moved by a free-form number (e.g. PO-20261115) comes back down, and a
--    series never issues a number an order of another series already holds.
CREATE TEMPORARY TABLE "series_maxima" AS
SELECT l."id" AS "location_id", f."id" AS "financial_year_id", max(numbers.sequence) AS "last_sequence"
FROM (
  SELECT shape[1] AS prefix, shape[2] AS year, shape[3]::bigint AS sequence
  FROM (SELECT regexp_match(sales_order_number_key("sales_order_no"), '^(.+)-([0-9]{4})-([0-9]+)$') AS shape FROM "sales_orders") AS keys
  WHERE shape IS NOT NULL
) AS numbers
JOIN "locations" AS l ON upper(l."code") = numbers.prefix
JOIN "financial_years" AS f ON to_char(f."start_date", 'YYYY') = numbers.year
GROUP BY l."id", f."id";

UPDATE "sales_order_counters" AS c
SET "last_sequence" = COALESCE(
  (SELECT m."last_sequence" FROM "series_maxima" AS m WHERE m."location_id" = c."location_id" AND m."financial_year_id" = c."financial_year_id"),
  0
);

INSERT INTO "sales_order_counters" ("location_id", "financial_year_id", "last_sequence")
SELECT "location_id", "financial_year_id", "last_sequence" FROM "series_maxima"
ON CONFLICT ("location_id", "financial_year_id") DO NOTHING;

DROP TABLE "series_maxima";

-- 4. From now on the database refuses a second order with the same number, whoever writes it.
CREATE UNIQUE INDEX "sales_orders_number_key" ON "sales_orders" (sales_order_number_key("sales_order_no"));
