-- One running app, many workspaces (issue 23). A Slack workspace (team id) or
-- a Teams tenant owns its threads' answers, feedback, verified pairs and
-- digests; the column is NULL where there is no workspace (the playground, the
-- terminal, rows from before this migration) and for pairs every workspace
-- shares (the shipped fixture pairs, and those an operator adds with
-- `datadesk verified add`).
ALTER TABLE datadesk_app.deliveries ADD COLUMN workspace text;
ALTER TABLE datadesk_app.feedback ADD COLUMN workspace text;
ALTER TABLE datadesk_app.digest_subscriptions ADD COLUMN workspace text;
-- the enterprise of an org-wide Slack install: its token is kept under the enterprise, not the team
ALTER TABLE datadesk_app.digest_subscriptions ADD COLUMN enterprise_id text;

-- a pair is one per meaning per workspace: the same plan verified in two workspaces is two pairs
ALTER TABLE datadesk_app.verified_queries ADD COLUMN workspace text;
ALTER TABLE datadesk_app.verified_queries DROP CONSTRAINT verified_queries_normalized_key;
ALTER TABLE datadesk_app.verified_queries DROP CONSTRAINT verified_queries_plan_key_key;
CREATE UNIQUE INDEX verified_queries_plan_per_workspace ON datadesk_app.verified_queries (workspace, plan_key) NULLS NOT DISTINCT WHERE plan_key IS NOT NULL;
CREATE UNIQUE INDEX verified_queries_question_per_workspace ON datadesk_app.verified_queries (workspace, normalized) NULLS NOT DISTINCT WHERE normalized IS NOT NULL;

DROP INDEX datadesk_app.digest_subscriptions_one_per_schedule;
CREATE UNIQUE INDEX digest_subscriptions_one_per_schedule
  ON datadesk_app.digest_subscriptions (platform, coalesce(workspace, ''), channel, cron, timezone, kind, coalesce(topic, '')) WHERE enabled;

-- Slack installations ("Add to Slack", src/channels/slack/installation-store.ts): one row per workspace, or per
-- enterprise for an org-wide install. The installation as Bolt models it (tokens included) is sealed with
-- AES-256-GCM under a key from the environment (SLACK_TOKEN_KEYS); only what finds a row is in the clear.
CREATE TABLE datadesk_app.slack_installations (
  install_key            text PRIMARY KEY,            -- the team id, or the enterprise id of an org-wide install
  team_id                text,
  enterprise_id          text,
  is_enterprise_install  boolean NOT NULL,
  team_name              text,
  installer_user_id      text,
  scopes                 text,
  key_id                 text NOT NULL,               -- which of SLACK_TOKEN_KEYS sealed it
  sealed                 bytea NOT NULL,              -- iv (12 bytes) | tag (16 bytes) | ciphertext
  installed_at           timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);

-- OAuth states handed out by /slack/install: each is good once, for 10 minutes (a replayed state is refused)
CREATE TABLE datadesk_app.slack_oauth_states (
  state        text PRIMARY KEY,
  options      jsonb NOT NULL,
  expires_at   timestamptz NOT NULL
);
