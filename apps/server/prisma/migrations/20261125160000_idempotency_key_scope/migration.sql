-- Idempotency-Keys are scoped by authentication method and subject together (issue 20):
-- `api_key:<prefix>` (as before), `jwt:<sub>`, `session:<user>`, with room for 200 characters of subject plus
-- the method.
ALTER TABLE "idempotency_keys" ALTER COLUMN "subject" TYPE VARCHAR(220);

-- A key stored under a bare subject was a JWT's or a host session's, which the row does not say:
-- it is kept under both, so that a retry across the upgrade replays instead of creating a
-- second order. It expires as before.
WITH bare AS (
  DELETE FROM "idempotency_keys" WHERE "subject" NOT LIKE 'api\_key:%' RETURNING *
)
INSERT INTO "idempotency_keys" ("subject", "key", "fingerprint", "result", "created_at", "expires_at")
SELECT method || ':' || bare."subject", bare."key", bare."fingerprint", bare."result", bare."created_at", bare."expires_at"
FROM bare CROSS JOIN (VALUES ('jwt'), ('session')) AS methods (method);
