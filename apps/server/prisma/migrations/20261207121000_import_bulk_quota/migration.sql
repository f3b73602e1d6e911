-- Imports count against their starter's BULK_ORDERS_PER_MINUTE window: the key it is counted
-- under (the starter's client address as the rate limits key it, NULL when not counted), and
-- until when an import waits for that window.
ALTER TABLE "imports" ADD COLUMN "quota_key" VARCHAR(64),
ADD COLUMN "waiting_until" TIMESTAMPTZ(3);
