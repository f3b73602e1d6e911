-- The order lifecycle (issue 21) and the fulfilment fields of the order entry form (issue 25).
-- Every existing order becomes a draft, in that status since its creation. Only confirmed and
-- closed orders consume licence quota: the lines' copy of "not deleted" becomes a copy of
-- "consumes quota" (the order is confirmed or closed and not deleted), kept by the same triggers
-- for every writer. The schema engine splits the script at every semicolon, even inside quotes:
-- the trigger functions' bodies are escape strings that spell each semicolon as the octal escape 073.

-- AlterTable
ALTER TABLE "sales_orders" ADD COLUMN     "amended_from_id" INTEGER,
ADD COLUMN     "cancellation_reason" VARCHAR(500),
ADD COLUMN     "customer_reference" VARCHAR(100),
ADD COLUMN     "delivery_date" DATE,
ADD COLUMN     "field_officer_id" INTEGER,
ADD COLUMN     "port_id" INTEGER,
ADD COLUMN     "status" VARCHAR(16) NOT NULL DEFAULT 'draft',
ADD COLUMN     "status_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

UPDATE sales_orders SET status_changed_at = created_at;

ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_status_check"
  CHECK (status IN ('draft', 'confirmed', 'closed', 'cancelled'));
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_cancellation_reason_check"
  CHECK ((status = 'cancelled') = (cancellation_reason IS NOT NULL));

-- AlterTable
ALTER TABLE "sales_order_history" ADD COLUMN     "acknowledged_warnings" JSONB,
ADD COLUMN     "reason" VARCHAR(500);

-- The quota's copy on the lines: renamed (its partial index follows), and false everywhere, as
-- every order is now a draft.
ALTER TABLE "sales_order_details" RENAME COLUMN "live" TO "consumes_quota";
ALTER TABLE "sales_order_details" ALTER COLUMN "consumes_quota" SET DEFAULT false;
UPDATE sales_order_details SET consumes_quota = false WHERE consumes_quota;

CREATE OR REPLACE FUNCTION sales_order_details_copy_order() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  SELECT o.sales_order_date, o.deleted_at IS NULL AND o.status IN (\'confirmed\', \'closed\')
  INTO NEW.order_date, NEW.consumes_quota
  FROM sales_orders o WHERE o.id = NEW.sales_order_id FOR SHARE\073
  RETURN NEW\073
END';

DROP TRIGGER sales_order_details_copy_order ON sales_order_details;
CREATE TRIGGER sales_order_details_copy_order
BEFORE INSERT OR UPDATE OF sales_order_id, order_date, consumes_quota ON sales_order_details
FOR EACH ROW EXECUTE FUNCTION sales_order_details_copy_order();

CREATE OR REPLACE FUNCTION sales_orders_copy_to_lines() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE sales_order_details
  SET order_date = NEW.sales_order_date,
      consumes_quota = NEW.deleted_at IS NULL AND NEW.status IN (\'confirmed\', \'closed\')
  WHERE sales_order_id = NEW.id\073
  RETURN NULL\073
END';

DROP TRIGGER sales_orders_copy_to_lines ON sales_orders;
CREATE TRIGGER sales_orders_copy_to_lines
AFTER UPDATE OF sales_order_date, deleted_at, status ON sales_orders
FOR EACH ROW
WHEN (OLD.sales_order_date IS DISTINCT FROM NEW.sales_order_date
      OR (OLD.deleted_at IS NULL AND OLD.status IN ('confirmed', 'closed'))
         IS DISTINCT FROM (NEW.deleted_at IS NULL AND NEW.status IN ('confirmed', 'closed')))
EXECUTE FUNCTION sales_orders_copy_to_lines();

-- CreateIndex
CREATE INDEX "sales_orders_customer_reference_trgm_idx" ON "sales_orders" USING GIN ("customer_reference" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "sales_orders_status_sales_order_date_id_idx" ON "sales_orders"("status", "sales_order_date", "id");

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_amended_from_id_fkey" FOREIGN KEY ("amended_from_id") REFERENCES "sales_orders"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_field_officer_id_fkey" FOREIGN KEY ("field_officer_id") REFERENCES "field_officers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_port_id_fkey" FOREIGN KEY ("port_id") REFERENCES "ports"("id") ON DELETE SET NULL ON UPDATE CASCADE;
