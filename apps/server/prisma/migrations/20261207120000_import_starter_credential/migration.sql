-- How an import's chunks look at their starter's credential again (imports/imports.ts): a host
-- session by its token's SHA-256 (hex), a JWT by its exp, an API key by the prefix in its owner.
-- Imports started before these columns by a session have neither and end at their next chunk.
ALTER TABLE "imports" ADD COLUMN "session_digest" CHAR(64),
ADD COLUMN "token_expires_at" TIMESTAMPTZ(3);
