#!/bin/sh
# Run once by the postgres image, on an empty data volume (compose.yaml mounts it
# into /docker-entrypoint-initdb.d): the app's own login and database, as in
# docs/operations.md. The login is not a superuser (serve refuses one); CREATEROLE
# lets it make the read-only login that model-written SQL runs as.
set -e
psql -v ON_ERROR_STOP=1 -v pw="$DATADESK_DB_PASSWORD" --username "$POSTGRES_USER" --dbname postgres <<'SQL'
CREATE ROLE datadesk LOGIN CREATEROLE PASSWORD :'pw';
CREATE DATABASE datadesk OWNER datadesk;
SQL
