-- An upload streams its file into import_file_rows in small batches instead of one bytea
-- (memory per upload stays bounded, no statement carries the whole file). Imports uploaded
-- before keep their file, which their job stages first.
-- AlterTable
ALTER TABLE "imports" ADD COLUMN     "csv_header" TEXT[] DEFAULT ARRAY[]::TEXT[],
ALTER COLUMN "file" DROP NOT NULL;

-- CreateTable
CREATE TABLE "import_file_rows" (
    "import_id" INTEGER NOT NULL,
    "order_no" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "flags" SMALLINT NOT NULL DEFAULT 0,
    "content" TEXT NOT NULL,

    CONSTRAINT "import_file_rows_pkey" PRIMARY KEY ("import_id","order_no","seq")
);

-- AddForeignKey
ALTER TABLE "import_file_rows" ADD CONSTRAINT "import_file_rows_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
