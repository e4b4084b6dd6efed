-- Digests as idempotent steps (issue 14). A run's steps are recorded on its
-- row, so a retried run or a successor leader does only what is left: the
-- answer is written once (a retry posts and uploads that same answer), the
-- post records its message id (Slack ts, Teams activity id), continuation
-- messages and the chart upload are counted separately. A failed chart upload
-- is retried on its own and never re-posts the digest.
ALTER TABLE datadesk_app.digest_runs
  -- what this run posts, and the state to remember once it is posted (backtest watches)
  ADD COLUMN answer jsonb,
  ADD COLUMN state jsonb,
  -- the post: Slack message ts or Teams activity id; null until the post is known to exist
  ADD COLUMN message_id text,
  -- true when the post was found in the channel's history (a crash between posting and recording it)
  ADD COLUMN found_in_history boolean NOT NULL DEFAULT false,
  -- continuation messages of a long answer, posted in the post's thread
  ADD COLUMN parts_posted integer NOT NULL DEFAULT 0,
  -- null: no chart to upload (none, or embedded in the card); false: to do; true: done
  ADD COLUMN chart_uploaded boolean,
  ADD COLUMN chart_attempts integer NOT NULL DEFAULT 0;
