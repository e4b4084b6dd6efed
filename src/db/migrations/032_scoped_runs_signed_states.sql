-- Issue 33. Backtest run ids are per workspace: the same request on the same
-- data hashes to the same id everywhere, so a run is kept once per workspace
-- (a Slack team, a Teams tenant, the playground's scope; NULL: the terminal),
-- and `/backtest rerun ID` finds only the asker's own runs.
ALTER TABLE datadesk_app.backtest_runs ADD COLUMN workspace text;
ALTER TABLE datadesk_app.backtest_runs DROP CONSTRAINT backtest_runs_pkey;
CREATE UNIQUE INDEX backtest_runs_id_per_workspace ON datadesk_app.backtest_runs (workspace, id) NULLS NOT DISTINCT;

-- The OAuth state of /slack/install is signed and bound to a cookie, and kept
-- nowhere until Slack sends the installer back: this table now holds only the
-- nonces of states used at the callback (each works once; a row lives until
-- its state would have expired). States handed out before are not signed.
DELETE FROM datadesk_app.slack_oauth_states;
ALTER TABLE datadesk_app.slack_oauth_states ALTER COLUMN options DROP NOT NULL;
COMMENT ON TABLE datadesk_app.slack_oauth_states IS 'nonces of signed Slack OAuth states used at /slack/oauth_redirect, kept until they expire';
