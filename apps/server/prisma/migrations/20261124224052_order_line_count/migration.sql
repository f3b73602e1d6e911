-- The list shows each order's line count. Counting an order's lines per listed row was three
-- quarters of a list page's time in PostgreSQL (docs/performance.md, "The list"). The count is
-- now a column of the order, kept by statement-level triggers on the lines for every writer
-- (the service's statements, bulk loads, the host's SQL): one UPDATE per statement that writes
-- lines, whatever the number of lines. The schema engine splits the script at every semicolon,
-- even inside quotes: the function body spells each semicolon as the octal escape 073.

-- AlterTable
ALTER TABLE "sales_orders" ADD COLUMN     "line_count" INTEGER NOT NULL DEFAULT 0;

UPDATE sales_orders o SET line_count = c.lines
FROM (SELECT sales_order_id, count(*)::int AS lines FROM sales_order_details GROUP BY sales_order_id) c
WHERE c.sales_order_id = o.id;

CREATE FUNCTION sales_order_details_count_lines() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP = \'INSERT\' THEN
    UPDATE sales_orders o SET line_count = o.line_count + c.lines
    FROM (SELECT sales_order_id, count(*)::int AS lines FROM new_lines GROUP BY sales_order_id) c
    WHERE o.id = c.sales_order_id\073
  ELSIF TG_OP = \'DELETE\' THEN
    UPDATE sales_orders o SET line_count = o.line_count - c.lines
    FROM (SELECT sales_order_id, count(*)::int AS lines FROM old_lines GROUP BY sales_order_id) c
    WHERE o.id = c.sales_order_id\073
  ELSE
    -- Most updates of lines leave them on their order (the copies of its date and status): no change.
    UPDATE sales_orders o SET line_count = o.line_count + c.lines
    FROM (SELECT sales_order_id, sum(step)::int AS lines
          FROM (SELECT sales_order_id, 1 AS step FROM new_lines
                UNION ALL SELECT sales_order_id, -1 FROM old_lines) moved
          GROUP BY sales_order_id HAVING sum(step) <> 0) c
    WHERE o.id = c.sales_order_id\073
  END IF\073
  RETURN NULL\073
END';

CREATE TRIGGER sales_order_details_count_inserted
AFTER INSERT ON sales_order_details REFERENCING NEW TABLE AS new_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_count_lines();

CREATE TRIGGER sales_order_details_count_deleted
AFTER DELETE ON sales_order_details REFERENCING OLD TABLE AS old_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_count_lines();

CREATE TRIGGER sales_order_details_count_moved
AFTER UPDATE ON sales_order_details REFERENCING OLD TABLE AS old_lines NEW TABLE AS new_lines
FOR EACH STATEMENT EXECUTE FUNCTION sales_order_details_count_lines();
