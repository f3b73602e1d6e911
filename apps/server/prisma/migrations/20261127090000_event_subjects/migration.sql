-- Events of other subjects than orders (docs/decisions.md, "Events of other subjects than
-- orders"). An event is about a subject: its kind is the part of the event's type before the dot
-- (sales_order, api_key) and its id the subject's row id. The order's id column becomes the
-- subject's id, and a version is only an order's. Renames and a column with a constant default
-- rewrite no row, however many events are kept.
ALTER TABLE "events" RENAME COLUMN "sales_order_id" TO "subject_id";
ALTER TABLE "events" ADD COLUMN "subject_type" VARCHAR(32) NOT NULL DEFAULT 'sales_order';
ALTER TABLE "events" ALTER COLUMN "subject_type" DROP DEFAULT;
ALTER TABLE "events" ALTER COLUMN "version" DROP NOT NULL;
ALTER TABLE "events" ADD CONSTRAINT "events_subject_check"
  CHECK ("subject_type" = split_part("type", '.', 1) AND ("subject_type" <> 'sales_order' OR "version" IS NOT NULL));

-- A position keeps its order's id for the feed's sales_order_id filter (its index), NULL for other subjects.
ALTER TABLE "event_positions" ALTER COLUMN "sales_order_id" DROP NOT NULL;

-- Deliveries go out one at a time per endpoint and subject (an order's in version order, a key's in position order).
ALTER TABLE "webhook_deliveries" RENAME COLUMN "sales_order_id" TO "subject_id";
ALTER TABLE "webhook_deliveries" ADD COLUMN "subject_type" VARCHAR(32) NOT NULL DEFAULT 'sales_order';
ALTER TABLE "webhook_deliveries" ALTER COLUMN "subject_type" DROP DEFAULT;

-- The permissions of an endpoint's owner as of its last register, change or replay: what the
-- fan-out reads for a JWT owner, whose grant is not kept between requests (an API key's and a
-- host session's are read live). NULL (endpoints registered before) reads as events.read, which
-- registering required.
ALTER TABLE "webhook_endpoints" ADD COLUMN "owner_permissions" TEXT[];
