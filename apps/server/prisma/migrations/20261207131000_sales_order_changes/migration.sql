-- CreateTable
CREATE TABLE "sales_order_changes" (
    "id" SERIAL NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'open',
    "reason" VARCHAR(500) NOT NULL,
    "base_version" INTEGER NOT NULL,
    "applied_version" INTEGER,
    "requested" JSONB NOT NULL,
    "preview" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(200),
    "ended_at" TIMESTAMPTZ(3),
    "ended_by" VARCHAR(200),

    CONSTRAINT "sales_order_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sales_order_changes_sales_order_id_id_idx" ON "sales_order_changes"("sales_order_id", "id");

-- AddForeignKey
ALTER TABLE "sales_order_changes" ADD CONSTRAINT "sales_order_changes_sales_order_id_fkey" FOREIGN KEY ("sales_order_id") REFERENCES "sales_orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- At most one open change per order. The statuses are the documented ones, and an applied change
-- names the version it made.
CREATE UNIQUE INDEX "sales_order_changes_one_open_key" ON "sales_order_changes"("sales_order_id") WHERE "status" = 'open';
ALTER TABLE "sales_order_changes" ADD CONSTRAINT "sales_order_changes_status_check"
  CHECK ("status" IN ('open', 'applied', 'discarded')
    AND ("status" = 'applied') = ("applied_version" IS NOT NULL)
    AND ("status" = 'open') = ("ended_at" IS NULL));
