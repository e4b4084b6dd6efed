-- The resolved plan is the unit of verification (issue 20). A curator's
-- thumbs-up on a plan answer vouches for the plan: any question that resolves
-- to the same plan (plan_key: the plan and the glossary choices it rests on)
-- gets the verified answer, whatever its wording or thread. A thumbs-up on a
-- free-SQL answer vouches for that SQL with its question in full words
-- (normalized). A pair has exactly one of the two keys, and a thumbs-up never
-- replaces a pair (only `datadesk verified`, by an operator).
ALTER TABLE datadesk_app.verified_queries ALTER COLUMN normalized DROP NOT NULL;
ALTER TABLE datadesk_app.verified_queries ADD COLUMN plan_key text UNIQUE;
ALTER TABLE datadesk_app.verified_queries ADD COLUMN plan jsonb;
ALTER TABLE datadesk_app.verified_queries ADD COLUMN choices jsonb;
ALTER TABLE datadesk_app.verified_queries ADD COLUMN replaced_by text;
ALTER TABLE datadesk_app.verified_queries ADD COLUMN replaced_at timestamptz;
-- the fixture's rows were templates' example SQL keyed by words; they are seeded again as plans
DELETE FROM datadesk_app.verified_queries WHERE source = 'fixture';
ALTER TABLE datadesk_app.verified_queries ADD CONSTRAINT verified_queries_one_key CHECK ((plan_key IS NULL) <> (normalized IS NULL));

-- feedback keeps the resolved question (question) and the words typed (asked)
ALTER TABLE datadesk_app.feedback ADD COLUMN asked text;
