-- Block questions at the real size (issue 22). No index led with block, so at
-- 8.5M rows "which blocks had the most thefts" was a parallel scan of the whole
-- table (630 ms) and a window over each block's incidents in date order
-- ("average days between consecutive crimes on the same block", the seed
-- paper's hard question) sorted all 8.5M rows first (12.4 s of the 15 s limit).
-- Measured on 8.5M generated crimes, JIT off, work_mem 64MB:

-- block, then date: one block's incidents (a blocks filter), and every block's
-- incidents in date order without a sort: the all-blocks window 12.4 -> 3.7 s
CREATE INDEX IF NOT EXISTS crimes_block_date_idx ON crimes (block, date);

-- a type's blocks, each in date order: "which blocks had the most thefts" as an
-- index-only scan (630 -> 93 ms), and the per-block gaps of one type in a year
-- ("hours between consecutive burglaries on the same block in 2019", 20 ms)
CREATE INDEX IF NOT EXISTS crimes_type_block_date_idx ON crimes (primary_type, block, date);
