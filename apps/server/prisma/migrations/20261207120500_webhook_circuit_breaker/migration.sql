-- A circuit breaker per webhook endpoint (docs/decisions/webhook-circuit-breaker.md): the
-- attempts in a row that ran into WEBHOOK_TIMEOUT_MS, and until when the endpoint is parked.
ALTER TABLE "webhook_endpoints" ADD COLUMN "timeouts_in_a_row" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "circuit_open_until" TIMESTAMPTZ(3);
