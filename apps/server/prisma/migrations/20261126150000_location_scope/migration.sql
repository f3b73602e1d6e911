-- Location scope (docs/authentication.md, "Location scope"): the locations a key or a host
-- session may see and act in. NULL means every location (as before), an empty array none.
-- API keys hold location ids (the CLI and the API resolve codes when the key is made), the
-- host writes its sessions' locations as it writes their permissions, by code or by id.
ALTER TABLE "api_keys" ADD COLUMN "locations" INTEGER[];
ALTER TABLE "sessions" ADD COLUMN "locations" TEXT[];

-- A change of scope must reach every instance's credential cache at once, as a change of
-- permissions does: the triggers now also watch the locations.
DROP TRIGGER api_keys_notify_change ON api_keys;
CREATE TRIGGER api_keys_notify_change
  AFTER UPDATE OF key_hash, prefix, permissions, locations, expires_at, revoked_at OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changed();

DROP TRIGGER sessions_notify_change ON sessions;
CREATE TRIGGER sessions_notify_change
  AFTER UPDATE OF token_hash, user_id, permissions, locations, expires_at, revoked_at OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changed();

-- A webhook endpoint keeps the scope of the caller that created it and receives only the events
-- of orders in those locations (NULL: every location).
ALTER TABLE "webhook_endpoints" ADD COLUMN "locations" INTEGER[];

-- An import runs with the scope of the caller that started it, as with its permissions.
ALTER TABLE "imports" ADD COLUMN "locations" INTEGER[];
