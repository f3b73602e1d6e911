-- The order list sorts by delivery_status with the id as tie-breaker (keyset pages): one range of
-- this index, as every other sort of the list has its (key, id) index.
CREATE INDEX "sales_orders_delivery_status_id_idx" ON "sales_orders"("delivery_status", "id");
