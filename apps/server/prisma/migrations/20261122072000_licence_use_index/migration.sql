-- The licence quota sums what live orders hold of a product inside a licence's window. With the
-- order's date and deleted flag only on sales_orders, that sum joined every line of the product
-- (its whole history) to its order. Each line now carries copies of its order's date and of
-- "not deleted", kept by the triggers below for every writer (the service, host SQL, bulk
-- loads), so the quota is a range scan of one partial covering index over the window
-- (docs/decisions.md, "Licence quota: order date and live flag copied onto the lines").
-- The schema engine splits the script at every semicolon, even inside quotes: the trigger
-- functions' bodies are escape strings that spell each semicolon as the octal escape 073.

-- AlterTable
ALTER TABLE "sales_order_details" ADD COLUMN "live" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN "order_date" DATE;

UPDATE sales_order_details d
SET order_date = o.sales_order_date, live = o.deleted_at IS NULL
FROM sales_orders o
WHERE o.id = d.sales_order_id;

-- A line takes its order's date and live flag whenever it is written, whatever the statement
-- says. FOR SHARE waits for a concurrent change of the order's date or deletion (whose own
-- trigger cannot see this uncommitted line) and holds such changes off until this line commits.
CREATE FUNCTION sales_order_details_copy_order() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  SELECT o.sales_order_date, o.deleted_at IS NULL INTO NEW.order_date, NEW.live
  FROM sales_orders o WHERE o.id = NEW.sales_order_id FOR SHARE\073
  RETURN NEW\073
END';

CREATE TRIGGER sales_order_details_copy_order
BEFORE INSERT OR UPDATE OF sales_order_id, order_date, live ON sales_order_details
FOR EACH ROW EXECUTE FUNCTION sales_order_details_copy_order();

-- An order whose date or deletion changes passes it on to its lines.
CREATE FUNCTION sales_orders_copy_to_lines() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE sales_order_details
  SET order_date = NEW.sales_order_date, live = NEW.deleted_at IS NULL
  WHERE sales_order_id = NEW.id\073
  RETURN NULL\073
END';

CREATE TRIGGER sales_orders_copy_to_lines
AFTER UPDATE OF sales_order_date, deleted_at ON sales_orders
FOR EACH ROW
WHEN (OLD.sales_order_date IS DISTINCT FROM NEW.sales_order_date
      OR (OLD.deleted_at IS NULL) IS DISTINCT FROM (NEW.deleted_at IS NULL))
EXECUTE FUNCTION sales_orders_copy_to_lines();

-- The quota's index: live lines of a product by date, with what the sum and the exclusion of
-- the order being edited read, so the scan need not visit the table (index-only once vacuumed).
CREATE INDEX "sales_order_details_licence_use_idx" ON "sales_order_details"
  ("product_id", "order_date") INCLUDE ("quantity", "sales_order_id") WHERE live;
