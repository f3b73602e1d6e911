-- The locations a stored Idempotency-Key result is about: a replay is answered only to a caller
-- whose scope covers them now. NULL for results stored before: every location.
ALTER TABLE "idempotency_keys" ADD COLUMN "locations" INTEGER[];
