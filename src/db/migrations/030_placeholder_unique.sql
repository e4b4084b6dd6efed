-- One message is one delivery's (issue 24): a Slack message's ts is the
-- placeholder of at most one delivery in its channel. A worker that adopts a
-- lost stream (answer-stream.ts) and the live process that began it may both
-- claim the same message; the second claim fails here instead of two answers
-- being written into one message.
CREATE UNIQUE INDEX deliveries_placeholder_ts
  ON datadesk_app.deliveries (channel, (placeholder->>'ts'))
  WHERE placeholder ? 'ts';
