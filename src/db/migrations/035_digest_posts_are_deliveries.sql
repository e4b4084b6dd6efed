-- A digest period is a delivery (issue 34): its answer, its post (the
-- message id, found in the history or not), its continuation messages and its
-- chart are recorded on its row of deliveries, keyed digest:<subscription>:<period
-- end>, as a question's answer is. digest_runs keeps the run: claimed, posted,
-- failed or skipped, its error and the state to remember. The posting columns
-- below are no longer written; they stay readable for one release (runs posted
-- before the upgrade) and are dropped by a later migration. This one drops nothing.
COMMENT ON COLUMN datadesk_app.digest_runs.answer IS 'not written since 035: the answer is on the delivery (deliveries.answer)';
COMMENT ON COLUMN datadesk_app.digest_runs.message_id IS 'not written since 035: the post is the delivery''s placeholder';
COMMENT ON COLUMN datadesk_app.digest_runs.found_in_history IS 'not written since 035: the delivery''s step ''found''';
COMMENT ON COLUMN datadesk_app.digest_runs.parts_posted IS 'not written since 035: the delivery''s steps more:N';
COMMENT ON COLUMN datadesk_app.digest_runs.chart_uploaded IS 'not written since 035: the delivery''s step ''chart''';
COMMENT ON COLUMN datadesk_app.digest_runs.chart_attempts IS 'not written since 035';
COMMENT ON COLUMN datadesk_app.digest_runs.post_in_flight IS 'not written since 035: the delivery''s step ''post:started''';
COMMENT ON COLUMN datadesk_app.digest_runs.attempts IS 'not written since 035: the delivery''s attempts';
