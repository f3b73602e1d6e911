-- CreateTable
CREATE TABLE "imports" (
    "id" SERIAL NOT NULL,
    "owner" VARCHAR(220) NOT NULL,
    "actor" VARCHAR(200) NOT NULL,
    "permissions" TEXT[],
    "format" VARCHAR(8) NOT NULL,
    "file" BYTEA NOT NULL,
    "state" VARCHAR(16) NOT NULL DEFAULT 'queued',
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "orders_total" INTEGER NOT NULL,
    "rows_read" INTEGER NOT NULL DEFAULT 0,
    "orders_created" INTEGER NOT NULL DEFAULT 0,
    "orders_failed" INTEGER NOT NULL DEFAULT 0,
    "error" VARCHAR(500),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_results" (
    "import_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "order_ref" VARCHAR(100) NOT NULL,
    "lines" INTEGER[],
    "rows" INTEGER NOT NULL,
    "status" VARCHAR(8) NOT NULL,
    "sales_order_id" INTEGER,
    "order_number" VARCHAR(50),
    "errors" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "import_results_pkey" PRIMARY KEY ("import_id","position")
);

-- CreateIndex
CREATE INDEX "imports_owner_id_idx" ON "imports"("owner", "id");

-- AddForeignKey
ALTER TABLE "import_results" ADD CONSTRAINT "import_results_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
