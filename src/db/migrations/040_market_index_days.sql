-- The market index kept daily (issue 37, part 6): the equal-weight index beside a backtest
-- (backtest/benchmark.ts) was rebuilt from every close of every ticker in each fresh process,
-- about 30 s for 5.4M bars. It is kept here instead: per day, the sum and count of the tickers'
-- close-to-close returns (each against its own previous bar), refreshed after each stock load.
--
-- Exact by construction: statement-level triggers on the three exchange tables mark the index
-- stale when any row is inserted, updated or deleted (or a table truncated); a run reads it only
-- when it is current and otherwise computes the index from the bars, as before. The sums are
-- added in the order the in-memory index adds them (Shanghai, Shenzhen, Beijing; by stock code),
-- so both give the same doubles to the bit.
CREATE TABLE market_index_days (
  trade_date date PRIMARY KEY,
  return_sum double precision NOT NULL,
  tickers integer NOT NULL
);

-- Each ticker's first and last bar at the refresh: a ticker is in the index of a window when it
-- has a bar in it after its first (a return); the run counts those with one probe each.
CREATE TABLE market_index_tickers (
  exchange text NOT NULL,
  stock_code text NOT NULL,
  first_date date NOT NULL,
  last_date date NOT NULL,
  PRIMARY KEY (exchange, stock_code)
);

CREATE TABLE market_index_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  current boolean NOT NULL,
  refreshed_at timestamptz
);
INSERT INTO market_index_state (current) VALUES (false);

CREATE FUNCTION market_index_mark_stale() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  -- a statement that changed no row (an upsert of identical bars) leaves the index as it was
  IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT 1 FROM changed_rows) THEN
    UPDATE market_index_state SET current = false WHERE current;
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION market_index_mark_truncated() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  UPDATE market_index_state SET current = false WHERE current;
  RETURN NULL;
END
$$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['shanghai_stock_exchange', 'shenzhen_stock_exchange', 'beijing_stock_exchange'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION market_index_mark_stale()', t || '_index_ins', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION market_index_mark_stale()', t || '_index_upd', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION market_index_mark_stale()', t || '_index_del', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION market_index_mark_truncated()', t || '_index_trunc', t);
  END LOOP;
END
$$;

-- Rebuilds the index from the bars (about 10 s for 5.4M bars) unless it is current; the stock
-- ingest calls it after a load.
CREATE FUNCTION market_index_refresh() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  -- one refresh at a time, and none while a load marks it stale under it
  PERFORM 1 FROM market_index_state FOR UPDATE;
  IF (SELECT current FROM market_index_state) THEN
    RETURN;
  END IF;
  DELETE FROM market_index_days;
  DELETE FROM market_index_tickers;
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
  UPDATE market_index_state SET current = true, refreshed_at = now();
END
$$;

SELECT market_index_refresh();

REVOKE EXECUTE ON FUNCTION market_index_refresh(), market_index_mark_stale(), market_index_mark_truncated() FROM PUBLIC;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'datadesk_reader') THEN
    GRANT SELECT ON market_index_days, market_index_tickers, market_index_state TO datadesk_reader;
  END IF;
END
$$;
