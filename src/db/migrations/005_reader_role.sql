-- datadesk_reader: the role generated SQL runs as. It can SELECT the data tables
-- and nothing else (no app state, no writes, no DDL). It cannot log in until an
-- operator gives it a password (ALTER ROLE datadesk_reader LOGIN PASSWORD '...');
-- the app switches to it with SET LOCAL ROLE inside read-only transactions.
-- Roles are cluster-wide, so creating it tolerates a concurrent or earlier creation.
DO $$
BEGIN
  CREATE ROLE datadesk_reader NOLOGIN;
EXCEPTION WHEN OTHERS THEN
  -- created meanwhile by a migration of another database on this server
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN RAISE; END IF;
END
$$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'datadesk_reader', 'MEMBER') THEN
    EXECUTE format('GRANT datadesk_reader TO %I', current_user);
  END IF;
EXCEPTION WHEN OTHERS THEN
  IF NOT pg_has_role(current_user, 'datadesk_reader', 'MEMBER') THEN RAISE; END IF;
END
$$;

REVOKE ALL ON ALL TABLES IN SCHEMA public FROM datadesk_reader;
GRANT USAGE ON SCHEMA public TO datadesk_reader;
GRANT SELECT ON crimes, community_areas,
  shanghai_stock_exchange, shenzhen_stock_exchange, beijing_stock_exchange
  TO datadesk_reader;
