-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "customers" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(32) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "locations" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(16) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "locations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "financial_years" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(16) NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "financial_years_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "products" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(32) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "requires_licence" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "packsizes" (
    "id" SERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "packsizes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "product_licences" (
    "id" SERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "licence_no" VARCHAR(64) NOT NULL,
    "valid_from" DATE NOT NULL,
    "valid_to" DATE NOT NULL,
    "licensed_quantity" DECIMAL(18,3),
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "product_licences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "field_officers" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(32) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "field_officers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ports" (
    "id" SERIAL NOT NULL,
    "code" VARCHAR(32) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales_orders" (
    "id" SERIAL NOT NULL,
    "sales_order_no" VARCHAR(50) NOT NULL,
    "sequence" BIGINT,
    "location_id" INTEGER NOT NULL,
    "financial_year_id" INTEGER NOT NULL,
    "customer_id" INTEGER NOT NULL,
    "sales_order_date" DATE NOT NULL,
    "remarks" VARCHAR(2000),
    "subtotal" DECIMAL(18,2) NOT NULL,
    "other_charges_total" DECIMAL(18,2) NOT NULL,
    "grand_total" DECIMAL(18,2) NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(200),
    "updated_by" VARCHAR(200),
    "deleted_at" TIMESTAMPTZ(3),
    "deleted_by" VARCHAR(200),

    CONSTRAINT "sales_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales_order_details" (
    "id" SERIAL NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "line_no" INTEGER NOT NULL,
    "product_id" INTEGER NOT NULL,
    "packsize_id" INTEGER,
    "quantity" DECIMAL(18,3) NOT NULL,
    "rate" DECIMAL(18,4) NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "remarks" VARCHAR(1000),

    CONSTRAINT "sales_order_details_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales_order_other_charges" (
    "id" SERIAL NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "line_no" INTEGER NOT NULL,
    "description" VARCHAR(200) NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,

    CONSTRAINT "sales_order_other_charges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales_order_counters" (
    "location_id" INTEGER NOT NULL,
    "financial_year_id" INTEGER NOT NULL,
    "last_sequence" BIGINT NOT NULL,

    CONSTRAINT "sales_order_counters_pkey" PRIMARY KEY ("location_id","financial_year_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "customers_code_key" ON "customers"("code");

-- CreateIndex
CREATE INDEX "customers_name_idx" ON "customers"("name");

-- CreateIndex
CREATE UNIQUE INDEX "locations_code_key" ON "locations"("code");

-- CreateIndex
CREATE UNIQUE INDEX "financial_years_code_key" ON "financial_years"("code");

-- CreateIndex
CREATE INDEX "financial_years_start_date_end_date_idx" ON "financial_years"("start_date", "end_date");

-- CreateIndex
CREATE UNIQUE INDEX "products_code_key" ON "products"("code");

-- CreateIndex
CREATE INDEX "products_name_idx" ON "products"("name");

-- CreateIndex
CREATE INDEX "packsizes_product_id_idx" ON "packsizes"("product_id");

-- CreateIndex
CREATE INDEX "product_licences_product_id_valid_from_valid_to_idx" ON "product_licences"("product_id", "valid_from", "valid_to");

-- CreateIndex
CREATE UNIQUE INDEX "field_officers_code_key" ON "field_officers"("code");

-- CreateIndex
CREATE INDEX "field_officers_name_idx" ON "field_officers"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ports_code_key" ON "ports"("code");

-- CreateIndex
CREATE INDEX "ports_name_idx" ON "ports"("name");

-- CreateIndex
CREATE INDEX "sales_orders_location_id_financial_year_id_sequence_idx" ON "sales_orders"("location_id", "financial_year_id", "sequence");

-- CreateIndex
CREATE INDEX "sales_orders_customer_id_idx" ON "sales_orders"("customer_id");

-- CreateIndex
CREATE UNIQUE INDEX "sales_orders_location_id_financial_year_id_sales_order_no_key" ON "sales_orders"("location_id", "financial_year_id", "sales_order_no");

-- CreateIndex
CREATE INDEX "sales_order_details_product_id_idx" ON "sales_order_details"("product_id");

-- CreateIndex
CREATE UNIQUE INDEX "sales_order_details_sales_order_id_line_no_key" ON "sales_order_details"("sales_order_id", "line_no");

-- CreateIndex
CREATE UNIQUE INDEX "sales_order_other_charges_sales_order_id_line_no_key" ON "sales_order_other_charges"("sales_order_id", "line_no");

-- AddForeignKey
ALTER TABLE "packsizes" ADD CONSTRAINT "packsizes_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "product_licences" ADD CONSTRAINT "product_licences_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_financial_year_id_fkey" FOREIGN KEY ("financial_year_id") REFERENCES "financial_years"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_sales_order_id_fkey" FOREIGN KEY ("sales_order_id") REFERENCES "sales_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_packsize_id_fkey" FOREIGN KEY ("packsize_id") REFERENCES "packsizes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_other_charges" ADD CONSTRAINT "sales_order_other_charges_sales_order_id_fkey" FOREIGN KEY ("sales_order_id") REFERENCES "sales_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_counters" ADD CONSTRAINT "sales_order_counters_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales_order_counters" ADD CONSTRAINT "sales_order_counters_financial_year_id_fkey" FOREIGN KEY ("financial_year_id") REFERENCES "financial_years"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Rules the Prisma schema cannot express (written by hand).
ALTER TABLE "financial_years" ADD CONSTRAINT "financial_years_dates_check" CHECK ("start_date" <= "end_date");
ALTER TABLE "product_licences" ADD CONSTRAINT "product_licences_dates_check" CHECK ("valid_from" <= "valid_to");
ALTER TABLE "product_licences" ADD CONSTRAINT "product_licences_quantity_check" CHECK ("licensed_quantity" IS NULL OR "licensed_quantity" >= 0);
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_grand_total_check" CHECK ("grand_total" >= 0);
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_version_check" CHECK ("version" >= 1);
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_quantity_check" CHECK ("quantity" > 0);
ALTER TABLE "sales_order_details" ADD CONSTRAINT "sales_order_details_rate_check" CHECK ("rate" >= 0);
ALTER TABLE "sales_order_counters" ADD CONSTRAINT "sales_order_counters_sequence_check" CHECK ("last_sequence" >= 0);
