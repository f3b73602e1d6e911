-- An order_ref that made an order in an earlier import of the same caller is skipped
-- (duplicate_order_ref) unless the upload allows duplicates. Created results are found by ref.
ALTER TABLE "imports" ADD COLUMN "allow_duplicates" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "import_results_created_order_ref" ON "import_results"("order_ref") WHERE "status" = 'created';
