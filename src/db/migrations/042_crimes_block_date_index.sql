-- The seed paper's hard question, "the average days between consecutive
-- crimes on the same block" over every incident, grouped all 8.5M rows by
-- block (2.66 s). Each block's gaps add up to its last incident minus its
-- first, so the exact answer needs only each block's first and last: with
-- this index they are two index-only probes per block (the blocks and their
-- counts come from crimes_by_block; src/plan/compile.ts compileGap). A
-- question about some blocks (`block IN (...)`) reads just those, too.
CREATE INDEX IF NOT EXISTS crimes_block_date_idx ON crimes (block, date);
