-- Feedback on answers, and the verified question/SQL pairs it teaches.
-- A delivery keeps its question's words now (for feedback on it and for the
-- pair a curator's thumbs-up promotes).
ALTER TABLE datadesk_app.deliveries ADD COLUMN question text;

CREATE TABLE datadesk_app.feedback (
  id            bigserial PRIMARY KEY,
  delivery_key  text NOT NULL,
  platform      text NOT NULL,
  user_id       text NOT NULL,
  verdict       text NOT NULL CHECK (verdict IN ('up', 'down')),
  question      text,
  sql           text,
  plan          jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- one verdict per person and answer: a second click changes it
  UNIQUE (delivery_key, user_id)
);
CREATE INDEX feedback_down ON datadesk_app.feedback (created_at) WHERE verdict = 'down';

-- Question/SQL pairs a person vouched for. An exact match of the question
-- (case, spaces and punctuation aside) is answered with the pair's SQL, no
-- model needed, and the answer says it is verified; the pairs are also the
-- model's nearest examples. The fixture's question types stay in
-- fixtures/knowledge/verified-queries.jsonl (templates with slots).
CREATE TABLE datadesk_app.verified_queries (
  id          bigserial PRIMARY KEY,
  question    text NOT NULL,
  normalized  text NOT NULL UNIQUE,
  sql         text NOT NULL,
  source      text NOT NULL CHECK (source IN ('feedback', 'cli', 'fixture')),
  added_by    text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
