-- Events (the outbox), the relay that puts them in commit order, and webhook endpoints with
-- their deliveries (docs/decisions.md, "Events and webhooks"). Written by the schema diff, then
-- the parts Prisma cannot express added at the end: a BRIN index, partial indexes and checks.

-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "type" VARCHAR(32) NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSON NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "event_queue" (
    "event_seq" BIGINT NOT NULL,

    CONSTRAINT "event_queue_pkey" PRIMARY KEY ("event_seq")
);

-- CreateTable
CREATE TABLE "event_positions" (
    "position" BIGINT NOT NULL,
    "event_seq" BIGINT NOT NULL,
    "sales_order_id" INTEGER NOT NULL,

    CONSTRAINT "event_positions_pkey" PRIMARY KEY ("position")
);

-- CreateTable
CREATE TABLE "outbox_relay_state" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "last_position" BIGINT NOT NULL,

    CONSTRAINT "outbox_relay_state_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" SERIAL NOT NULL,
    "url" VARCHAR(2048) NOT NULL,
    "description" VARCHAR(500),
    "event_types" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" VARCHAR(16),
    "disabled_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "secret" VARCHAR(64) NOT NULL,
    "previous_secret" VARCHAR(64),
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(200),

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "event_seq" BIGINT NOT NULL,
    "event_position" BIGINT NOT NULL,
    "sales_order_id" INTEGER NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "error" VARCHAR(500),
    "latency_ms" INTEGER NOT NULL,

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "event_positions_event_seq_key" ON "event_positions"("event_seq");

-- CreateIndex
CREATE INDEX "event_positions_sales_order_id_position_idx" ON "event_positions"("sales_order_id", "position");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_id_idx" ON "webhook_deliveries"("endpoint_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_event_seq_idx" ON "webhook_deliveries"("event_seq");

-- CreateIndex
CREATE INDEX "webhook_delivery_attempts_delivery_id_id_idx" ON "webhook_delivery_attempts"("delivery_id", "id");

-- AddForeignKey
ALTER TABLE "event_positions" ADD CONSTRAINT "event_positions_event_seq_fkey" FOREIGN KEY ("event_seq") REFERENCES "events"("seq") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_seq_fkey" FOREIGN KEY ("event_seq") REFERENCES "events"("seq") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Replay since an instant finds its first position through occurred_at: a BRIN index, which an
-- insert in time order barely touches.
CREATE INDEX "events_occurred_at_brin" ON "events" USING brin ("occurred_at");

-- The next delivery of one order to one endpoint: the pending one of the lowest position.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries"("endpoint_id", "sales_order_id", "event_position")
  WHERE "status" = 'pending';

ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_check"
  CHECK ("status" IN ('pending', 'succeeded', 'failed'));
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_disabled_reason_check"
  CHECK ("disabled_reason" IN ('manual', 'gone', 'failing') AND NOT "enabled" OR "disabled_reason" IS NULL AND "enabled");

ALTER TABLE "outbox_relay_state" ADD CONSTRAINT "outbox_relay_state_one_row" CHECK ("id" = 1);
INSERT INTO "outbox_relay_state" ("id", "last_position") VALUES (1, 0);
