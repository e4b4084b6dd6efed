-- App state that the ingesters keep: where an incremental sync stopped, and a
-- record of every load (counts, not rows).
CREATE TABLE ingest_state (
  source      text PRIMARY KEY,
  cursor      jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingest_runs (
  id          bigserial PRIMARY KEY,
  source      text NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status      text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  loaded      bigint NOT NULL DEFAULT 0,
  updated     bigint NOT NULL DEFAULT 0,
  unchanged   bigint NOT NULL DEFAULT 0,
  rejected    bigint NOT NULL DEFAULT 0,
  detail      text
);
