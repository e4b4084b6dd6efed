-- Reproducible backtests (issue 25): every backtest answer carries a short run
-- id, a hash of the spec (the request as read, with its execution model), the
-- engine version and the data it ran on. The row keeps what a rerun needs: the
-- spec, and a summary of the data (per ticker: bars, first and last day, a
-- digest of the values) to say what changed since.
CREATE TABLE datadesk_app.backtest_runs (
  id            text PRIMARY KEY,
  request       text NOT NULL,
  spec          jsonb NOT NULL,
  engine        text NOT NULL,
  data_digest   text NOT NULL,
  -- [{code, bars, first, last, digest}] of up to 200 tickers; more: one entry with the totals
  data_summary  jsonb NOT NULL,
  headline      text NOT NULL,
  -- the best candidate's label and its seven KPIs
  best          jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
