-- An endpoint belongs to the caller that registered it (issue 29): its identity across
-- authentication methods, as Idempotency-Keys are scoped.
ALTER TABLE "webhook_endpoints" ADD COLUMN "owner" VARCHAR(220);

-- Endpoints registered before: created_by is the identity of an API key as it is, or else a bare
-- subject, taken as a JWT subject (integrations register endpoints, the order entry page does not).
-- One without created_by belongs to nobody: only webhooks.admin sees it, and it receives nothing.
UPDATE "webhook_endpoints"
SET "owner" = CASE WHEN "created_by" LIKE 'api\_key:%' THEN "created_by" ELSE 'jwt:' || "created_by" END
WHERE "created_by" IS NOT NULL;

-- The newest session of a session user decides whether the endpoints of the user receive: found by index.
CREATE INDEX "sessions_user_id_created_at_idx" ON "sessions"("user_id", "created_at");
