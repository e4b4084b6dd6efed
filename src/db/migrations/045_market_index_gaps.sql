-- The tickers of the kept market index's window in one read (issue 37, part 6): a ticker is in the
-- index of a window when it has a bar in it after its first (a return). From its first and last bar
-- (market_index_tickers) that is known except when the window falls inside a gap of the ticker's
-- bars, a suspension; the run probed every ticker's bars for it, one index probe each, 0.5-2 s for
-- 5,400 tickers on a busy machine. The gaps are kept here instead: every pair of consecutive bars of
-- a ticker 15 or more calendar days apart (longer than any holiday closure), so a window of 13 days
-- or more (from the later of its start and the day after the ticker's first bar) is judged from this
-- table alone; market-index.ts probes the bars only for the few tickers whose window is shorter.
CREATE TABLE market_index_gaps (
  exchange text NOT NULL,
  stock_code text NOT NULL,
  -- the last bar before the gap and the first after it
  before_date date NOT NULL,
  after_date date NOT NULL,
  PRIMARY KEY (exchange, stock_code, before_date)
);

-- As in 040, and the gaps with the tickers.
CREATE OR REPLACE FUNCTION market_index_refresh() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  -- one refresh at a time, and none while a load marks it stale under it
  PERFORM 1 FROM market_index_state FOR UPDATE;
  IF (SELECT current FROM market_index_state) THEN
    RETURN;
  END IF;
  DELETE FROM market_index_days;
  DELETE FROM market_index_tickers;
  DELETE FROM market_index_gaps;
  INSERT INTO market_index_days (trade_date, return_sum, tickers)
  SELECT trade_date, sum(r ORDER BY ord, stock_code), count(*)::int
  FROM (
    SELECT 1 AS ord, stock_code, trade_date, closing_price / prev - 1 AS r FROM (
      SELECT stock_code, trade_date, closing_price, lag(closing_price) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev
      FROM shanghai_stock_exchange) s WHERE prev > 0
    UNION ALL
    SELECT 2, stock_code, trade_date, closing_price / prev - 1 FROM (
      SELECT stock_code, trade_date, closing_price, lag(closing_price) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev
      FROM shenzhen_stock_exchange) s WHERE prev > 0
    UNION ALL
    SELECT 3, stock_code, trade_date, closing_price / prev - 1 FROM (
      SELECT stock_code, trade_date, closing_price, lag(closing_price) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev
      FROM beijing_stock_exchange) s WHERE prev > 0
  ) returns
  GROUP BY trade_date;
  INSERT INTO market_index_tickers (exchange, stock_code, first_date, last_date)
  SELECT 'shanghai_stock_exchange', stock_code, min(trade_date), max(trade_date) FROM shanghai_stock_exchange GROUP BY stock_code
  UNION ALL
  SELECT 'shenzhen_stock_exchange', stock_code, min(trade_date), max(trade_date) FROM shenzhen_stock_exchange GROUP BY stock_code
  UNION ALL
  SELECT 'beijing_stock_exchange', stock_code, min(trade_date), max(trade_date) FROM beijing_stock_exchange GROUP BY stock_code;
  PERFORM market_index_fill_gaps();
  UPDATE market_index_state SET current = true, refreshed_at = now();
END
$$;

CREATE FUNCTION market_index_fill_gaps() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  INSERT INTO market_index_gaps (exchange, stock_code, before_date, after_date)
  SELECT 'shanghai_stock_exchange', stock_code, prev, trade_date FROM (
    SELECT stock_code, trade_date, lag(trade_date) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev FROM shanghai_stock_exchange) s
  WHERE trade_date - prev >= 15
  UNION ALL
  SELECT 'shenzhen_stock_exchange', stock_code, prev, trade_date FROM (
    SELECT stock_code, trade_date, lag(trade_date) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev FROM shenzhen_stock_exchange) s
  WHERE trade_date - prev >= 15
  UNION ALL
  SELECT 'beijing_stock_exchange', stock_code, prev, trade_date FROM (
    SELECT stock_code, trade_date, lag(trade_date) OVER (PARTITION BY stock_code ORDER BY trade_date) AS prev FROM beijing_stock_exchange) s
  WHERE trade_date - prev >= 15;
END
$$;

-- the gaps of the bars as they are now; a stale index gets them with its next refresh
SELECT market_index_fill_gaps();

REVOKE EXECUTE ON FUNCTION market_index_refresh(), market_index_fill_gaps() FROM PUBLIC;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON market_index_gaps TO datadesk_reader;
  END IF;
END
$$;
