-- A line's copies of its order's date and quota flag (docs/decisions.md, "Licence quota: order
-- date and live flag copied onto the lines") were set on insert by a row trigger: a plpgsql
-- look-up of the order for every line, a fifth of a 500-line create's time in PostgreSQL, under
-- its series' counter lock (docs/performance.md, "Big orders"). The writer now states the copies
-- on insert, and one statement-level trigger checks them for every writer: it locks the orders
-- the statement's lines belong to FOR SHARE (as the row trigger did, so that a concurrent change
-- of an order's date or status waits, or is seen), and rewrites only the lines whose copies
-- differ from their order, whose update trigger then sets them. The service's lines are right
-- as written, and nothing is rewritten. Host SQL or a bulk load that leaves them out gets its
-- lines rewritten once. The update trigger is unchanged. The schema engine splits the script at
-- every semicolon, even inside quotes: the function body spells each semicolon as 073 in octal.

-- One statement for every line inserted, whatever their number.
CREATE FUNCTION sales_order_details_check_copies() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM 1 FROM sales_orders o WHERE o.id IN (SELECT sales_order_id FROM new_lines) ORDER BY o.id FOR SHARE\073
  IF EXISTS (
    SELECT 1 FROM new_lines n JOIN sales_orders o ON o.id = n.sales_order_id
    WHERE n.order_date IS DISTINCT FROM o.sales_order_date
      OR n.consumes_quota IS DISTINCT FROM (o.deleted_at IS NULL AND o.status IN (\'confirmed\', \'closed\'))) THEN
    -- The update trigger (sales_order_details_copy_order) sets both copies from the order.
    UPDATE sales_order_details d SET order_date = o.sales_order_date
    FROM new_lines n JOIN sales_orders o ON o.id = n.sales_order_id
    WHERE d.id = n.id
      AND (n.order_date IS DISTINCT FROM o.sales_order_date
        OR n.consumes_quota IS DISTINCT FROM (o.deleted_at IS NULL AND o.status IN (\'confirmed\', \'closed\')))\073
  END IF\073
  RETURN NULL\073
END';

DROP TRIGGER sales_order_details_copy_order ON sales_order_details;
CREATE TRIGGER sales_order_details_copy_order
BEFORE UPDATE OF sales_order_id, order_date, consumes_quota ON sales_order_details
FOR EACH ROW EXECUTE FUNCTION sales_order_details_copy_order();

CREATE TRIGGER sales_order_details_check_copies
AFTER INSERT ON sales_order_details REFERENCING NEW TABLE AS new_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_check_copies();
