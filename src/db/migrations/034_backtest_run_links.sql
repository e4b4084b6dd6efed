-- A backtest run's link (/runs/<ID>, issue 36): the page says only whether a
-- run of that id exists anywhere (its parameters stay in its workspace), so it
-- looks runs up by id alone.
CREATE INDEX backtest_runs_id ON datadesk_app.backtest_runs (id);
