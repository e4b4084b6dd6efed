-- A 👎 with its reason (issue 36): Slack's wrong-answer button opens a box
-- for what was wrong, kept with the verdict for the curators (datadesk feedback).
ALTER TABLE datadesk_app.feedback ADD COLUMN reason text CHECK (char_length(reason) <= 3000);
