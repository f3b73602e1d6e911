-- Change notifications for the service's caches (docs/decisions.md, "Caches invalidated by
-- NOTIFY"). The host ERP writes sessions and master data with SQL, and revokes API keys through
-- the CLI or SQL: these triggers tell every listening instance at once, inside the writing
-- transaction (delivered on COMMIT, dropped on ROLLBACK).

-- A credential's digest (never the secret) when a row that authenticates callers changes in a
-- way that matters or goes away. API keys' last_used_at, written by the service itself, is not
-- listed, so recording a use notifies nobody. A new row needs no notice: refusals are not cached.
--
-- The migration runner splits a file at every semicolon, even inside a function body, so the
-- bodies are E'' strings that write their semicolons as \073.
CREATE FUNCTION notify_credential_changed() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_TABLE_NAME = ''api_keys'' THEN
    PERFORM pg_notify(''credentials_changed'', ''api_key:'' || OLD.key_hash)\073
  ELSE
    PERFORM pg_notify(''credentials_changed'', ''session:'' || OLD.token_hash)\073
  END IF\073
  RETURN NULL\073
END';

CREATE TRIGGER api_keys_notify_change
  AFTER UPDATE OF key_hash, prefix, permissions, expires_at, revoked_at OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changed();

CREATE TRIGGER sessions_notify_change
  AFTER UPDATE OF token_hash, user_id, permissions, expires_at, revoked_at OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION notify_credential_changed();

-- The master table's name after any write to it, once per statement (a bulk load is one notice).
CREATE FUNCTION notify_master_data_changed() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''master_data_changed'', TG_TABLE_NAME)\073
  RETURN NULL\073
END';

CREATE TRIGGER customers_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customers
  FOR EACH STATEMENT EXECUTE FUNCTION notify_master_data_changed();
CREATE TRIGGER products_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION notify_master_data_changed();
CREATE TRIGGER locations_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON locations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_master_data_changed();
CREATE TRIGGER field_officers_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON field_officers
  FOR EACH STATEMENT EXECUTE FUNCTION notify_master_data_changed();
CREATE TRIGGER ports_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ports
  FOR EACH STATEMENT EXECUTE FUNCTION notify_master_data_changed();
