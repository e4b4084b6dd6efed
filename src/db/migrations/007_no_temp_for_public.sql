-- Temporary tables are writes too: by default every role (PUBLIC) may create
-- them, so `SELECT ... INTO TEMP` would succeed as datadesk_reader. Only the
-- app role (which stages ingest batches in temp tables) keeps the privilege.
DO $$
BEGIN
  EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO %I', current_database(), current_user);
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END
$$;
