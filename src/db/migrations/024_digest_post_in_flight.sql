-- A digest post in flight: set just before the platform call, cleared when it
-- returned (with its message id) or failed. A runner that finds it set with no
-- message id knows an earlier runner died during the post. Slack's history is
-- searched then; Teams has none, so the period is not posted again (a
-- duplicate in the channel is the one thing a digest must never do).
ALTER TABLE datadesk_app.digest_runs ADD COLUMN post_in_flight boolean NOT NULL DEFAULT false;
