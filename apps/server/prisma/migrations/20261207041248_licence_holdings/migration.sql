-- CreateTable
CREATE TABLE "licence_holdings" (
    "product_id" INTEGER NOT NULL,
    "order_date" DATE NOT NULL,
    "held_quantity" DECIMAL(24,3) NOT NULL,

    CONSTRAINT "licence_holdings_pkey" PRIMARY KEY ("product_id","order_date")
);

-- CreateTable
CREATE TABLE "licence_holding_changes" (
    "id" BIGSERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "order_date" DATE NOT NULL,
    "quantity" DECIMAL(24,3) NOT NULL,

    CONSTRAINT "licence_holding_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "licence_holding_changes_product_id_order_date_idx" ON "licence_holding_changes"("product_id", "order_date");

-- What each licence holds, as a running total (docs/decisions/licence-holdings-ledger.md). Before,
-- every confirm and validate-licence summed the product's lines in the licence's window, so a
-- product with a year of orders confirmed slower and slower. Now statement triggers on the lines
-- append each change of what they hold to licence_holding_changes (one row per product and order
-- date a statement changed, in the statement's transaction, whoever the writer: the service, a
-- delivery, host SQL), the periodic fold moves those into licence_holdings (one row per product
-- and day), and a licence's use is the sum of both over its window: at most a row a day, plus the
-- changes since the last fold. Writers only append, so they never wait for each other on a shared
-- row: confirms sharing a product without a limited licence still run side by side, and a
-- writer takes no lock that a confirm holding the quota locks could wait for.
-- The schema engine splits the script at every semicolon, even inside quotes: the function
-- bodies are escape strings that spell each semicolon as the octal escape 073.

-- The one rule of what an order line holds of its product's licence quota. Nothing unless its
-- order is confirmed or closed (and not deleted). Then the larger of what is ordered and not
-- short-closed, and what was delivered net of returns. So a confirmed order holds the larger of
-- ordered and net delivered. Closing short-closes what is pending, so a closed order holds its
-- net delivered only. A return on a closed order raises the short-closed quantity by what came
-- back, so it gives that back. Without deliveries it is the ordered quantity, as before.
-- Inlined wherever it is called (one SELECT of its arguments, IMMUTABLE).
CREATE FUNCTION licence_held_quantity(consumes_quota boolean, quantity numeric, short_closed_quantity numeric,
                                      delivered_quantity numeric, returned_quantity numeric)
RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
'SELECT CASE WHEN consumes_quota THEN GREATEST(quantity - short_closed_quantity, delivered_quantity - returned_quantity) ELSE 0 END';

-- Records what a statement changed of what lines hold: what the new rows hold less what the old
-- ones held, by product and order date, only where that is not zero (a draft's lines hold
-- nothing, so writing drafts appends nothing). A line without its order's date yet holds in no
-- window. The copies trigger sets the date, and that update counts it.
CREATE FUNCTION sales_order_details_record_holdings() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP = \'INSERT\' THEN
    INSERT INTO licence_holding_changes (product_id, order_date, quantity)
    SELECT n.product_id, n.order_date,
           SUM(licence_held_quantity(n.consumes_quota, n.quantity, n.short_closed_quantity, n.delivered_quantity, n.returned_quantity))
    FROM new_lines n WHERE n.consumes_quota AND n.order_date IS NOT NULL
    GROUP BY n.product_id, n.order_date
    HAVING SUM(licence_held_quantity(n.consumes_quota, n.quantity, n.short_closed_quantity, n.delivered_quantity, n.returned_quantity)) <> 0\073
  ELSIF TG_OP = \'UPDATE\' THEN
    INSERT INTO licence_holding_changes (product_id, order_date, quantity)
    SELECT c.product_id, c.order_date, SUM(c.held)
    FROM (
      SELECT n.product_id, n.order_date,
             licence_held_quantity(n.consumes_quota, n.quantity, n.short_closed_quantity, n.delivered_quantity, n.returned_quantity) AS held
      FROM new_lines n WHERE n.consumes_quota AND n.order_date IS NOT NULL
      UNION ALL
      SELECT o.product_id, o.order_date,
             -licence_held_quantity(o.consumes_quota, o.quantity, o.short_closed_quantity, o.delivered_quantity, o.returned_quantity)
      FROM old_lines o WHERE o.consumes_quota AND o.order_date IS NOT NULL) AS c
    GROUP BY c.product_id, c.order_date
    HAVING SUM(c.held) <> 0\073
  ELSE
    INSERT INTO licence_holding_changes (product_id, order_date, quantity)
    SELECT o.product_id, o.order_date,
           -SUM(licence_held_quantity(o.consumes_quota, o.quantity, o.short_closed_quantity, o.delivered_quantity, o.returned_quantity))
    FROM old_lines o WHERE o.consumes_quota AND o.order_date IS NOT NULL
    GROUP BY o.product_id, o.order_date
    HAVING SUM(licence_held_quantity(o.consumes_quota, o.quantity, o.short_closed_quantity, o.delivered_quantity, o.returned_quantity)) <> 0\073
  END IF\073
  RETURN NULL\073
END';

-- PostgreSQL takes transition tables on a trigger of one event only: three triggers, one function.
CREATE TRIGGER sales_order_details_holdings_insert
AFTER INSERT ON sales_order_details REFERENCING NEW TABLE AS new_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_record_holdings();

CREATE TRIGGER sales_order_details_holdings_update
AFTER UPDATE ON sales_order_details REFERENCING OLD TABLE AS old_lines NEW TABLE AS new_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_record_holdings();

CREATE TRIGGER sales_order_details_holdings_delete
AFTER DELETE ON sales_order_details REFERENCING OLD TABLE AS old_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_record_holdings();

-- Recounts every holding from the lines: what the migration starts with, and an operator's
-- repair after the recount job reported drift (`SELECT licence_holdings_rebuild()`). The
-- EXCLUSIVE locks let readers through and make every writer of the ledger wait: one that appended
-- before waits for its commit, so the recount sees its lines. One that appends after does so on
-- top of the recount, which did not see its lines. Returns the number of rows written.
CREATE FUNCTION licence_holdings_rebuild() RETURNS integer LANGUAGE plpgsql AS E'
DECLARE
  written integer\073
BEGIN
  LOCK TABLE licence_holding_changes, licence_holdings IN EXCLUSIVE MODE\073
  DELETE FROM licence_holding_changes\073
  DELETE FROM licence_holdings\073
  INSERT INTO licence_holdings (product_id, order_date, held_quantity)
  SELECT d.product_id, d.order_date,
         SUM(licence_held_quantity(d.consumes_quota, d.quantity, d.short_closed_quantity, d.delivered_quantity, d.returned_quantity))
  FROM sales_order_details d WHERE d.consumes_quota AND d.order_date IS NOT NULL
  GROUP BY d.product_id, d.order_date\073
  GET DIAGNOSTICS written = ROW_COUNT\073
  RETURN written\073
END';

-- A truncate of the lines (which fires no row or statement trigger above) leaves nothing held.
CREATE FUNCTION sales_order_details_truncate_holdings() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  DELETE FROM licence_holding_changes\073
  DELETE FROM licence_holdings\073
  RETURN NULL\073
END';

CREATE TRIGGER sales_order_details_holdings_truncate
AFTER TRUNCATE ON sales_order_details
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_truncate_holdings();

-- What live orders hold of a product in a window of order dates, less what `excluding_order`'s
-- own lines hold there (the order being confirmed or edited): the folded days, the changes not
-- folded yet, and the excluded order's lines by its own index. Never the product's other lines.
-- A set-returning SQL function so that the planner inlines it into the statement that reads it
-- (a scalar SQL function with subqueries is not inlined), for validate-licence and the confirm alike.
CREATE FUNCTION licence_held(of_product integer, window_from date, window_to date, excluding_order integer)
RETURNS TABLE (held numeric) LANGUAGE sql STABLE AS
'SELECT (SELECT COALESCE(SUM(h.held_quantity), 0) FROM licence_holdings h
         WHERE h.product_id = of_product AND h.order_date BETWEEN window_from AND window_to)
      + (SELECT COALESCE(SUM(c.quantity), 0) FROM licence_holding_changes c
         WHERE c.product_id = of_product AND c.order_date BETWEEN window_from AND window_to)
      - (SELECT COALESCE(SUM(licence_held_quantity(d.consumes_quota, d.quantity, d.short_closed_quantity,
                                                    d.delivered_quantity, d.returned_quantity)), 0)
         FROM sales_order_details d
         WHERE d.sales_order_id = excluding_order AND d.product_id = of_product AND d.consumes_quota
           AND d.order_date BETWEEN window_from AND window_to)';

-- The quota locks as before (migration 20261127130000_licence_quota_lock). The sum after them is
-- now licence_held over the running totals instead of the product's lines in the window.
CREATE OR REPLACE FUNCTION licence_quota_consumed(product_ids integer[], on_date date, exclude_order_id integer)
RETURNS TABLE (licence_id integer, consumed numeric) LANGUAGE plpgsql VOLATILE AS E'
BEGIN
  PERFORM pg_advisory_xact_lock(1397707084, p.id)
  FROM (
    SELECT DISTINCT u.id FROM unnest(product_ids) AS u(id)
    WHERE EXISTS (
      SELECT 1 FROM products pr JOIN product_licences l ON l.product_id = pr.id
      WHERE pr.id = u.id AND pr.requires_licence AND l.active AND l.licensed_quantity IS NOT NULL)
    ORDER BY u.id OFFSET 0) p\073
  RETURN QUERY
  SELECT l.id, (SELECT h.held FROM licence_held(l.product_id, l.valid_from, l.valid_to, exclude_order_id) h)
  FROM products pr JOIN product_licences l ON l.product_id = pr.id
  WHERE pr.id = ANY (product_ids) AND pr.requires_licence AND l.active AND l.licensed_quantity IS NOT NULL
    AND l.valid_from <= on_date AND l.valid_to >= on_date\073
END';

-- The quota no longer reads the product's lines by date: their index only cost every confirm's
-- line updates (it covers consumes_quota, so no confirm's update of its lines was HOT).
DROP INDEX "sales_order_details_licence_use_idx";

-- What existing orders hold, counted once, after the triggers are in place (their lock on the
-- lines holds off writers until the migration commits).
SELECT licence_holdings_rebuild();
