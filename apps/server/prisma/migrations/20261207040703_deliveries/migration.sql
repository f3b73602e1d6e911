-- AlterTable
ALTER TABLE "sales_order_details" ADD COLUMN     "delivered_quantity" DECIMAL(18,3) NOT NULL DEFAULT 0,
ADD COLUMN     "returned_quantity" DECIMAL(18,3) NOT NULL DEFAULT 0,
ADD COLUMN     "short_closed_quantity" DECIMAL(18,3) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "sales_orders" ADD COLUMN     "delivery_status" VARCHAR(20) NOT NULL DEFAULT 'not_delivered';

-- CreateTable
CREATE TABLE "deliveries" (
    "id" SERIAL NOT NULL,
    "delivery_no" VARCHAR(50) NOT NULL,
    "sequence" BIGINT NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "location_id" INTEGER NOT NULL,
    "financial_year_id" INTEGER NOT NULL,
    "delivery_date" DATE NOT NULL,
    "reference" VARCHAR(100),
    "remarks" VARCHAR(2000),
    "status" VARCHAR(16) NOT NULL DEFAULT 'recorded',
    "cancellation_reason" VARCHAR(500),
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(200),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" VARCHAR(200),

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_counters" (
    "location_id" INTEGER NOT NULL,
    "financial_year_id" INTEGER NOT NULL,
    "last_sequence" BIGINT NOT NULL,

    CONSTRAINT "delivery_counters_pkey" PRIMARY KEY ("location_id","financial_year_id")
);

-- CreateTable
CREATE TABLE "delivery_lines" (
    "id" SERIAL NOT NULL,
    "delivery_id" INTEGER NOT NULL,
    "line_no" INTEGER NOT NULL,
    "sales_order_detail_id" INTEGER NOT NULL,
    "product_id" INTEGER NOT NULL,
    "quantity" DECIMAL(18,3) NOT NULL,
    "returned_quantity" DECIMAL(18,3) NOT NULL DEFAULT 0,

    CONSTRAINT "delivery_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_returns" (
    "id" SERIAL NOT NULL,
    "delivery_id" INTEGER NOT NULL,
    "return_date" DATE NOT NULL,
    "reason" VARCHAR(500) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(200),

    CONSTRAINT "delivery_returns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_return_lines" (
    "id" SERIAL NOT NULL,
    "return_id" INTEGER NOT NULL,
    "delivery_line_id" INTEGER NOT NULL,
    "quantity" DECIMAL(18,3) NOT NULL,

    CONSTRAINT "delivery_return_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_delivery_no_key" ON "deliveries"("delivery_no");

-- CreateIndex
CREATE INDEX "deliveries_sales_order_id_id_idx" ON "deliveries"("sales_order_id", "id");

-- CreateIndex
CREATE INDEX "deliveries_delivery_date_id_idx" ON "deliveries"("delivery_date", "id");

-- CreateIndex
CREATE INDEX "deliveries_location_id_delivery_date_id_idx" ON "deliveries"("location_id", "delivery_date", "id");

-- CreateIndex
CREATE INDEX "deliveries_updated_at_id_idx" ON "deliveries"("updated_at", "id");

-- CreateIndex
CREATE INDEX "deliveries_reference_trgm_idx" ON "deliveries" USING GIN ("reference" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "deliveries_delivery_no_trgm_idx" ON "deliveries" USING GIN ("delivery_no" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_location_id_financial_year_id_sequence_key" ON "deliveries"("location_id", "financial_year_id", "sequence");

-- CreateIndex
CREATE INDEX "delivery_lines_sales_order_detail_id_idx" ON "delivery_lines"("sales_order_detail_id");

-- CreateIndex
CREATE UNIQUE INDEX "delivery_lines_delivery_id_line_no_key" ON "delivery_lines"("delivery_id", "line_no");

-- CreateIndex
CREATE INDEX "delivery_returns_delivery_id_id_idx" ON "delivery_returns"("delivery_id", "id");

-- CreateIndex
CREATE INDEX "delivery_returns_return_date_idx" ON "delivery_returns"("return_date");

-- CreateIndex
CREATE INDEX "delivery_return_lines_return_id_idx" ON "delivery_return_lines"("return_id");

-- CreateIndex
CREATE INDEX "delivery_return_lines_delivery_line_id_idx" ON "delivery_return_lines"("delivery_line_id");

-- CreateIndex
CREATE INDEX "sales_orders_delivery_status_sales_order_date_id_idx" ON "sales_orders"("delivery_status", "sales_order_date", "id");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_sales_order_id_fkey" FOREIGN KEY ("sales_order_id") REFERENCES "sales_orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_financial_year_id_fkey" FOREIGN KEY ("financial_year_id") REFERENCES "financial_years"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_counters" ADD CONSTRAINT "delivery_counters_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_counters" ADD CONSTRAINT "delivery_counters_financial_year_id_fkey" FOREIGN KEY ("financial_year_id") REFERENCES "financial_years"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_lines" ADD CONSTRAINT "delivery_lines_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_lines" ADD CONSTRAINT "delivery_lines_sales_order_detail_id_fkey" FOREIGN KEY ("sales_order_detail_id") REFERENCES "sales_order_details"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_returns" ADD CONSTRAINT "delivery_returns_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_return_lines" ADD CONSTRAINT "delivery_return_lines_return_id_fkey" FOREIGN KEY ("return_id") REFERENCES "delivery_returns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_return_lines" ADD CONSTRAINT "delivery_return_lines_delivery_line_id_fkey" FOREIGN KEY ("delivery_line_id") REFERENCES "delivery_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The last line of defence for the quantities' invariants: whatever a writer does, no count goes
-- below zero, nothing returns more than left, and the statuses are the documented ones.
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_delivery_status_check"
  CHECK ("delivery_status" IN ('not_delivered', 'partly_delivered', 'delivered'));
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_delivery_quantities_check"
  CHECK ("delivered_quantity" >= 0 AND "returned_quantity" >= 0 AND "returned_quantity" <= "delivered_quantity" AND "short_closed_quantity" >= 0);
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_status_check" CHECK ("status" IN ('recorded', 'cancelled'));
ALTER TABLE "delivery_lines" ADD CONSTRAINT "delivery_lines_quantities_check"
  CHECK ("quantity" > 0 AND "returned_quantity" >= 0 AND "returned_quantity" <= "quantity");
ALTER TABLE "delivery_return_lines" ADD CONSTRAINT "delivery_return_lines_quantity_check" CHECK ("quantity" > 0);
