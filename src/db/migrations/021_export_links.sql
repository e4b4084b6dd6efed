-- A download link for an answer's rows in a chat card (Teams): an unguessable
-- token per delivery, made when the card is sent; GET /exports/<token>.csv.
ALTER TABLE datadesk_app.deliveries ADD COLUMN export_token text UNIQUE;
