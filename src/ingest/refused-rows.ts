// The backstop behind the row checks: when PostgreSQL refuses a batch because
// of the data in it (a value out of range, an index entry too large...), the
// batch is split in halves until each refused row is alone (the lines of a
// COPY into the staging table, or the line range of a merge); that row is noted
// with PostgreSQL's message and every other row loads. One bad row must never
// fail a whole file. With k bad rows in a batch of n this rewrites about
// n * log2(2k) rows, and nothing when the checks caught all.
// Batches hold only COPY lines: keeping each row's source text as well cost
// ~200 MiB more per million rows, so the refused rows' text is read back from
// the file once at the end (addRefusedRejects).
import type { BatchUpserter, BatchCounts, LineRange } from './upsert-batch.js';
import { addCounts, zeroCounts } from './upsert-batch.js';
import type { RejectFile } from './rejects.js';
import { readCsvRecords } from './csv-records.js';

export interface RefusedRow {
  line: number;
  reason: string;
}

/** SQLSTATEs that one row's values cause: data exceptions (22xxx), NOT NULL and CHECK violations, an index row too large. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code === '23502' || code === '23514' || code === '54000');
}

/** Stages COPY lines (text or CSV) whose last value is the source line number; refused rows are added to `refused`. */
export async function stageRows(
  upserter: BatchUpserter,
  lines: readonly string[],
  refused: RefusedRow[],
  format: 'text' | 'csv' = 'text',
): Promise<void> {
  try {
    await upserter.stage(lines, format);
  } catch (error) {
    if (!isDataError(error) || lines.length === 0) throw error;
    if (lines.length === 1) {
      const line = Number(lines[0].slice(lines[0].lastIndexOf(format === 'csv' ? ',' : '\t') + 1));
      refused.push({ line, reason: `refused by PostgreSQL: ${(error as Error).message}` });
      return;
    }
    const half = lines.length >> 1;
    await stageRows(upserter, lines.slice(0, half), refused, format);
    await stageRows(upserter, lines.slice(half), refused, format);
  }
}

/**
 * Merges every staged row, and empties the staging table. When the merge is refused for a row's
 * data (a CHECK the staging table does not have, an index row too large), the staged rows are
 * merged in halves of their line range, each in its own transaction, until the refused row is alone.
 */
export async function mergeStaged(upserter: BatchUpserter, refused: RefusedRow[]): Promise<BatchCounts> {
  let counts: BatchCounts;
  try {
    counts = await upserter.merge();
  } catch (error) {
    if (!isDataError(error)) throw error;
    counts = await mergeRange(upserter, { from: 0, to: Number.MAX_SAFE_INTEGER }, refused);
  }
  await upserter.clear();
  return counts;
}

async function mergeRange(upserter: BatchUpserter, range: LineRange, refused: RefusedRow[]): Promise<BatchCounts> {
  const { rows, first } = await upserter.stagedIn(range);
  if (rows === 0) return zeroCounts();
  try {
    return await upserter.merge(undefined, range);
  } catch (error) {
    if (!isDataError(error)) throw error;
    if (rows === 1) {
      refused.push({ line: first!, reason: `refused by PostgreSQL: ${(error as Error).message}` });
      return zeroCounts();
    }
    const middle = Math.floor((Math.max(range.from, first!) + range.to) / 2);
    const low = await mergeRange(upserter, { from: range.from, to: middle }, refused);
    return addCounts(low, await mergeRange(upserter, { from: middle + 1, to: range.to }, refused));
  }
}

/** Adds the refused rows to the rejects file, with their text read again from the source file. */
export async function addRefusedRejects(file: string, refused: readonly RefusedRow[], rejects: RejectFile): Promise<void> {
  if (refused.length === 0) return;
  const byLine = new Map(refused.map((r) => [r.line, r.reason]));
  for await (const record of readCsvRecords(file)) {
    const reason = byLine.get(record.line);
    if (reason === undefined) continue;
    await rejects.add({ where: record.line, reason, raw: record.raw });
    byLine.delete(record.line);
    if (byLine.size === 0) return;
  }
  // the file changed while it was loaded: the rows are still rejected, without their text
  for (const [line, reason] of byLine) await rejects.add({ where: line, reason, raw: '' });
}
