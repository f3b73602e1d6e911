-- A 500-line order's event data and history entry are 50-90 KB each, compressed into TOAST as
-- each row is inserted, after the create has locked its series' counter: with pglz that was
-- 0.6-0.9 ms of a 500-line create's 10 ms statement (docs/performance.md, "The 500-line create");
-- lz4 compresses in about half the time, into about a third more bytes. Rows already stored keep
-- their compression. Where the server was built without lz4 (PGlite) both columns stay pglz.
-- The schema engine splits the script at every semicolon, even inside quotes and comments: the
-- block is an escape string that spells each semicolon as the octal escape 073.
DO E'
BEGIN
  ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4\073
  ALTER TABLE sales_order_history ALTER COLUMN changes SET COMPRESSION lz4\073
EXCEPTION WHEN feature_not_supported THEN NULL\073
END';
