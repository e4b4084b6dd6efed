-- The app's own state moves out of `public` into its own schema, which no role
-- but the app's owner can use: model-written SQL runs as a reader login that
-- has USAGE on `public` (for the data tables) and nothing on datadesk_app, so
-- even a query that slipped past the guard could not name the audit log,
-- thread memory, conversation references or digests. The app's pools put
-- datadesk_app first on their search_path, so its queries keep their names.
CREATE SCHEMA IF NOT EXISTS datadesk_app;
REVOKE ALL ON SCHEMA datadesk_app FROM PUBLIC;

ALTER TABLE ingest_state SET SCHEMA datadesk_app;
ALTER TABLE ingest_runs SET SCHEMA datadesk_app;
ALTER TABLE audit_log SET SCHEMA datadesk_app;
ALTER TABLE conversation_references SET SCHEMA datadesk_app;
ALTER TABLE digest_subscriptions SET SCHEMA datadesk_app;
ALTER TABLE digest_runs SET SCHEMA datadesk_app;

-- thread memory and delivery claims (keyv); created on first use by the store
CREATE TABLE IF NOT EXISTS datadesk_app.keyv_store (key varchar(255) PRIMARY KEY, value text);
DO $$
BEGIN
  IF to_regclass('public.keyv_store') IS NOT NULL THEN
    INSERT INTO datadesk_app.keyv_store SELECT key, value FROM public.keyv_store ON CONFLICT (key) DO NOTHING;
    DROP TABLE public.keyv_store;
  END IF;
END
$$;

-- The password of the reader login the app created (see src/db/reader-role.ts):
-- kept here so every process of the app, on any machine, logs in with it.
CREATE TABLE datadesk_app.reader_login (
  role_name  text PRIMARY KEY,
  password   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The old NOLOGIN group is no longer used (the app never SET ROLEs into it).
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM datadesk_reader;
