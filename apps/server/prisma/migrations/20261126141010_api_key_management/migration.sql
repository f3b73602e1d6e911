-- API keys managed over HTTP (docs/authentication.md, "Managing keys"): who made and revoked a
-- key, the key a rotation replaced (at most one successor each), and the audit trail of every
-- create, rename, rotation and revocation. A revocation may lie ahead (revoke_in_seconds): the
-- key works until revoked_at. The credential trigger (20261122073400) already announces changes
-- of expires_at and revoked_at, so every instance drops its cached caller at once.

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "created_by" VARCHAR(220),
ADD COLUMN     "revoked_by" VARCHAR(220),
ADD COLUMN     "rotated_from_id" INTEGER;

-- CreateTable
CREATE TABLE "api_key_changes" (
    "id" BIGSERIAL NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "action" VARCHAR(16) NOT NULL,
    "actor" VARCHAR(220) NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "changes" JSON NOT NULL,

    CONSTRAINT "api_key_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "api_key_changes_api_key_id_id_idx" ON "api_key_changes"("api_key_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_rotated_from_id_key" ON "api_keys"("rotated_from_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_rotated_from_id_fkey" FOREIGN KEY ("rotated_from_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key_changes" ADD CONSTRAINT "api_key_changes_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
