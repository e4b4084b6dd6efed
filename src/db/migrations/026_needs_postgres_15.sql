-- The rollups (027) key their groups with NULLS NOT DISTINCT, which PostgreSQL
-- has from version 15. On an older server, say so here, in words, rather than
-- let the next migration fail with a syntax error.
DO $$
BEGIN
  IF current_setting('server_version_num')::int < 150000 THEN
    RAISE EXCEPTION 'Data Desk needs PostgreSQL 15 or later; this server is %. Upgrade it, or leave DATABASE_URL unset to use the embedded PostgreSQL 17.', current_setting('server_version');
  END IF;
END
$$;
