-- Every question the bot answers, for operators: who asked where, how it was
-- routed, the SQL, the outcome, the time per node and the tokens. Never the
-- result rows.
CREATE TABLE audit_log (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  platform    text NOT NULL,
  channel     text,
  user_id     text,
  thread      text,
  question    text NOT NULL,
  route       text NOT NULL,
  status      text NOT NULL,
  sql         text,
  row_count   bigint,
  node_ms     jsonb NOT NULL DEFAULT '{}',
  tokens      integer NOT NULL DEFAULT 0
);
CREATE INDEX audit_log_at_idx ON audit_log (at);
