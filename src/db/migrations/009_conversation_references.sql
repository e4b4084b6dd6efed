-- Every Teams conversation the bot is in, with the reference Bot Framework
-- needs to post into it later (proactive messages: digests).
CREATE TABLE conversation_references (
  conversation_id text PRIMARY KEY,
  platform        text NOT NULL DEFAULT 'teams',
  conversation_type text,
  team_id         text,
  reference       jsonb NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
