-- Daily A-share bars in BacktestBench's schema, one table per exchange.
CREATE TABLE shanghai_stock_exchange (
  stock_code        text NOT NULL,
  name              text NOT NULL,
  short_name        text,
  trade_date        date NOT NULL,
  opening_price     double precision NOT NULL,
  closing_price     double precision NOT NULL,
  highest_price     double precision NOT NULL,
  lowest_price      double precision NOT NULL,
  volume_traded     double precision,
  amount_traded     double precision,
  change_amount     double precision,
  percentage_change double precision,
  PRIMARY KEY (stock_code, trade_date)
);
CREATE TABLE shenzhen_stock_exchange (LIKE shanghai_stock_exchange INCLUDING ALL);
CREATE TABLE beijing_stock_exchange (LIKE shanghai_stock_exchange INCLUDING ALL);

-- Tickers are found by company name too (the primary key serves lookups by code).
CREATE INDEX shanghai_stock_exchange_name_idx ON shanghai_stock_exchange (lower(name));
CREATE INDEX shenzhen_stock_exchange_name_idx ON shenzhen_stock_exchange (lower(name));
CREATE INDEX beijing_stock_exchange_name_idx ON beijing_stock_exchange (lower(name));
