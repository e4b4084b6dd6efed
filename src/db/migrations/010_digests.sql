-- Scheduled digests. A run is keyed by (subscription, period): the unique
-- constraint makes a second post for the same period impossible, whatever the
-- number of bot processes and restarts.
CREATE TABLE digest_subscriptions (
  id          serial PRIMARY KEY,
  platform    text NOT NULL CHECK (platform IN ('slack', 'teams', 'web')),
  channel     text NOT NULL,
  created_by  text,
  cron        text NOT NULL,
  timezone    text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('crime', 'question', 'backtest')),
  topic       text,
  enabled     boolean NOT NULL DEFAULT true,
  disabled_reason text,
  last_state  jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE digest_runs (
  id              bigserial PRIMARY KEY,
  subscription_id integer NOT NULL REFERENCES digest_subscriptions (id) ON DELETE CASCADE,
  period_start    timestamptz NOT NULL,
  period_end      timestamptz NOT NULL,
  status          text NOT NULL CHECK (status IN ('claimed', 'posted', 'failed', 'skipped')),
  attempts        integer NOT NULL DEFAULT 0,
  claimed_by      text,
  claimed_at      timestamptz,
  posted_at       timestamptz,
  error           text,
  UNIQUE (subscription_id, period_end)
);
