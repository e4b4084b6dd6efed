-- One enabled digest per channel, schedule and topic: a slash command replayed
-- within Slack's five minutes (or typed twice) made a second subscription that
-- posted everything twice. Existing duplicates keep their oldest.
UPDATE datadesk_app.digest_subscriptions d SET enabled = false, disabled_reason = 'a duplicate of an older digest'
WHERE d.enabled AND EXISTS (
  SELECT 1 FROM datadesk_app.digest_subscriptions o
  WHERE o.enabled AND o.id < d.id AND o.platform = d.platform AND o.channel = d.channel AND o.cron = d.cron
    AND o.timezone = d.timezone AND o.kind = d.kind AND coalesce(o.topic, '') = coalesce(d.topic, ''));
CREATE UNIQUE INDEX digest_subscriptions_one_per_schedule
  ON datadesk_app.digest_subscriptions (platform, channel, cron, timezone, kind, coalesce(topic, '')) WHERE enabled;
