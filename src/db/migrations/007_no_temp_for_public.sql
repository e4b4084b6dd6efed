-- Temporary tables are writes too: by default every role (PUBLIC) may create
-- them, so `SELECT ... INTO TEMP` would succeed as datadesk_reader (the READ
-- ONLY transaction refuses it anyway; this is one more wall). Only the app role
-- (which stages ingest batches in temp tables) keeps the privilege. Changing a
-- database's privileges takes its owner: run by another role, this step is
-- skipped with a notice and the other walls remain.
DO $$
BEGIN
  EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO %I', current_database(), current_user);
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'datadesk: not the database owner, TEMPORARY stays granted to PUBLIC';
END
$$;
