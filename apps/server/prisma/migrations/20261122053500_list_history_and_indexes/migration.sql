-- Trigram indexes for the list's substring filters (q, number, number_prefix). pg_trgm ships with
-- PostgreSQL (contrib, a trusted extension) and with PGlite (loaded in src/db/embedded.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- DropIndex
DROP INDEX "sales_order_details_product_id_idx";

-- DropIndex
DROP INDEX "sales_orders_customer_id_idx";

-- CreateTable
CREATE TABLE "sales_order_history" (
    "id" BIGSERIAL NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "action" VARCHAR(16) NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "by" VARCHAR(200),
    "changes" JSONB NOT NULL,

    CONSTRAINT "sales_order_history_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sales_order_history_sales_order_id_version_key" ON "sales_order_history"("sales_order_id", "version");

-- CreateIndex
CREATE INDEX "customers_name_trgm_idx" ON "customers" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "sales_order_details_product_id_sales_order_id_idx" ON "sales_order_details"("product_id", "sales_order_id");

-- CreateIndex
CREATE INDEX "sales_orders_customer_id_sales_order_date_id_idx" ON "sales_orders"("customer_id", "sales_order_date", "id");

-- CreateIndex
CREATE INDEX "sales_orders_financial_year_id_sales_order_date_id_idx" ON "sales_orders"("financial_year_id", "sales_order_date", "id");

-- CreateIndex
CREATE INDEX "sales_orders_sales_order_date_id_idx" ON "sales_orders"("sales_order_date", "id");

-- CreateIndex
CREATE INDEX "sales_orders_updated_at_id_idx" ON "sales_orders"("updated_at", "id");

-- CreateIndex
CREATE INDEX "sales_orders_grand_total_id_idx" ON "sales_orders"("grand_total", "id");

-- CreateIndex
CREATE INDEX "sales_orders_sales_order_no_id_idx" ON "sales_orders"("sales_order_no", "id");

-- CreateIndex
CREATE INDEX "sales_orders_sales_order_no_trgm_idx" ON "sales_orders" USING GIN ("sales_order_no" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "sales_orders_remarks_trgm_idx" ON "sales_orders" USING GIN ("remarks" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "sales_order_history" ADD CONSTRAINT "sales_order_history_sales_order_id_fkey" FOREIGN KEY ("sales_order_id") REFERENCES "sales_orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
