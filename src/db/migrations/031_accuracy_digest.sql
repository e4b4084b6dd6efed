-- The accuracy digest (issue 32): `digest daily 08:00 accuracy` posts the
-- multi-turn benchmark's score into a channel, so a team sees how often its
-- bot answers an edit as they meant it.
ALTER TABLE datadesk_app.digest_subscriptions DROP CONSTRAINT digest_subscriptions_kind_check;
ALTER TABLE datadesk_app.digest_subscriptions
  ADD CONSTRAINT digest_subscriptions_kind_check CHECK (kind IN ('crime', 'question', 'backtest', 'accuracy'));
