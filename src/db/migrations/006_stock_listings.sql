-- One row per listed ticker: code, name, exchange table, first and last bar.
-- Resolving "Kweichow Moutai" or listing all tickers must not scan 6.5M bars;
-- the stock ingest refreshes this view after every load.
CREATE MATERIALIZED VIEW stock_listings AS
SELECT stock_code, max(name) AS name, max(short_name) AS short_name, exchange,
       min(trade_date) AS first_date, max(trade_date) AS last_date, count(*) AS bars
FROM (
  SELECT stock_code, name, short_name, trade_date, 'shanghai_stock_exchange' AS exchange FROM shanghai_stock_exchange
  UNION ALL
  SELECT stock_code, name, short_name, trade_date, 'shenzhen_stock_exchange' FROM shenzhen_stock_exchange
  UNION ALL
  SELECT stock_code, name, short_name, trade_date, 'beijing_stock_exchange' FROM beijing_stock_exchange
) bars
GROUP BY stock_code, exchange;

CREATE UNIQUE INDEX stock_listings_code_idx ON stock_listings (stock_code, exchange);
CREATE INDEX stock_listings_name_idx ON stock_listings (lower(name));

GRANT SELECT ON stock_listings TO datadesk_reader;
