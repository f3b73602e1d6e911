-- The location scope of the latest token each JWT subject presented, written when it changes:
-- what the webhook endpoints of a JWT owner receive by. NULL locations: every location.
CREATE TABLE "jwt_subject_scopes" (
    "identity" VARCHAR(220) NOT NULL,
    "locations" INTEGER[],
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "jwt_subject_scopes_pkey" PRIMARY KEY ("identity")
);
