-- Every secret a rotation replaced signs until its own expiry (issue 29): a second rotation
-- within 24 hours no longer drops the first secret at once.
CREATE TABLE "webhook_previous_secrets" (
    "id" SERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "secret" VARCHAR(64) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_previous_secrets_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "webhook_previous_secrets_endpoint_id_expires_at_idx" ON "webhook_previous_secrets"("endpoint_id", "expires_at");

ALTER TABLE "webhook_previous_secrets" ADD CONSTRAINT "webhook_previous_secrets_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The one previous secret an endpoint held, while it still signs.
INSERT INTO "webhook_previous_secrets" ("endpoint_id", "secret", "expires_at")
SELECT "id", "previous_secret", "previous_secret_expires_at" FROM "webhook_endpoints"
WHERE "previous_secret" IS NOT NULL AND "previous_secret_expires_at" > now();

ALTER TABLE "webhook_endpoints" DROP COLUMN "previous_secret",
DROP COLUMN "previous_secret_expires_at";
