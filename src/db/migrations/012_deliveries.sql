-- Questions are answered as durable jobs (pg-boss, in schema datadesk_jobs).
-- A delivery is one question as the platform delivered it, keyed by the
-- platform's own delivery identity (Slack event_id, a click's message ts and
-- action, a Teams activity id, ...): inserting the key is what admits the
-- question, so a duplicate delivery, concurrent or not, in one process or
-- many, finds the key taken and is dropped. The row also carries what a
-- retried job needs to finish the same answer: the placeholder message it
-- replaces, the reply steps already done, and the answer itself.
CREATE SCHEMA IF NOT EXISTS datadesk_jobs;
REVOKE ALL ON SCHEMA datadesk_jobs FROM PUBLIC;

CREATE TABLE datadesk_app.deliveries (
  key          text PRIMARY KEY,
  job_id       uuid NOT NULL,
  platform     text NOT NULL,
  channel      text,
  user_id      text,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'answering', 'answered', 'failed')),
  -- the worker process answering it (see src/jobs/worker-identity.ts); its advisory lock says whether it is alive
  worker_id    bigint,
  -- the message that shows progress and becomes the answer: {"ts": ...} in Slack, {"id": ...} in Teams
  placeholder  jsonb,
  -- reply steps already done ('answer', 'more:1', 'chart'): a retry skips them
  steps        text[] NOT NULL DEFAULT '{}',
  answer       jsonb,
  attempts     int NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz,
  finished_at  timestamptz
);
CREATE INDEX deliveries_waiting ON datadesk_app.deliveries (created_at) WHERE status IN ('queued', 'answering');

-- numbers for worker processes; each holds an advisory lock on its number while alive
CREATE SEQUENCE datadesk_app.worker_numbers;

-- Chart images served under unguessable ids (playground, Teams cards whose
-- image is too big to inline): in the database, so that any process serves
-- them and a restart keeps them until they expire.
CREATE TABLE datadesk_app.chart_images (
  id          text PRIMARY KEY,
  png         bytea NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX chart_images_expiry ON datadesk_app.chart_images (expires_at);
