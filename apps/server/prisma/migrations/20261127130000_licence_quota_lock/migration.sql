-- The licence quota of a confirm in one statement: the quota locks of the limited products of
-- the order, then what other orders hold of each limited licence valid on the date of the
-- order, read after the locks were granted (docs/decisions.md, Two confirms cannot oversell a
-- quota). A statement that waited for a lock would read with the snapshot it took before the
-- wait, missing what the confirm ahead of it committed. The statements of a VOLATILE function
-- each take a snapshot of their own, so the sum below sees every confirm that held the locks
-- before this one. Before, the locks and the sum were two statements: two round trips with the
-- locks held. The locks: transaction-scoped advisory locks in the space 0x534f514c (SOQL read as
-- an int4), one per product that needs a licence and has an active licence with a licensed
-- quantity, taken in product order so that two confirms never deadlock.
-- The schema engine splits the script at every semicolon, even inside quotes and comments: the
-- body is an escape string that spells each semicolon as the octal escape 073.
CREATE FUNCTION licence_quota_consumed(product_ids integer[], on_date date, exclude_order_id integer)
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
  SELECT l.id, (
    SELECT COALESCE(SUM(d.quantity), 0) FROM sales_order_details d
    WHERE d.consumes_quota AND d.product_id = l.product_id
      AND d.order_date BETWEEN l.valid_from AND l.valid_to
      AND d.sales_order_id IS DISTINCT FROM exclude_order_id)
  FROM products pr JOIN product_licences l ON l.product_id = pr.id
  WHERE pr.id = ANY (product_ids) AND pr.requires_licence AND l.active AND l.licensed_quantity IS NOT NULL
    AND l.valid_from <= on_date AND l.valid_to >= on_date\073
END';
