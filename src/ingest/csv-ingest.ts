// Streams a CSV file into a table: parse, validate each row (a bad row goes to
// the reject file with its line number and the reason), load in batches
// through COPY and an upsert. A line the source says PostgreSQL reads as it is
// (copiesAsIs: the portal's own form) is staged as CSV without being split
// here. Bad data never stops the file: damaged lines are
// rejected by the reader, bad values by the source's row check, and a row
// PostgreSQL still refuses by refused-rows.ts. Re-running the same file
// changes nothing.
import { statSync } from 'node:fs';
import type pg from 'pg';
import type { TableSpec } from './table-spec.js';
import { BatchUpserter, addCounts, zeroCounts, type BatchCounts } from './upsert-batch.js';
import { RejectFile } from './rejects.js';
import { readCsvChunks } from './csv-records.js';
import { recordRun } from './run-log.js';
import { addRefusedRejects, mergeStaged, stageRows, type RefusedRow } from './refused-rows.js';
import path from 'node:path';
import { UserError } from '../core/errors.js';
import { bestEffort } from '../core/best-effort.js';

/** A row turned into COPY text values (the spec's columns), or why it was refused. */
export type RowResult = { values: string } | { reason: string };

export interface CsvSource {
  /** What the file's first line must be, field by field. */
  header: readonly string[];
  /** Converts the fields of one data row; must not throw. */
  parseRow(fields: string[]): RowResult;
  /** A reader for one file that also says which dialect it read (used instead of parseRow when given). */
  forFile?(): CsvFileReader;
}

export interface CsvFileReader {
  /** Converts the fields of one data row; must not throw. */
  parseRow(fields: string[]): RowResult;
  /**
   * Whether a data line (one whole record, no CR) is in a form PostgreSQL reads as CSV into the
   * spec's columns to the same values parseRow gives, so that it is staged as it is, its fields
   * never split here. A line it declines goes through parseRow. Must not throw.
   */
  copiesAsIs?(line: string): boolean;
  /** What the loaded rows were written in, for the summary (e.g. "read as the spreadsheet dialect (...)"). */
  dialect(): string | undefined;
}

export interface CsvIngestOptions {
  pool: pg.Pool;
  file: string;
  spec: TableSpec;
  source: CsvSource;
  rejectsPath: string;
  batchSize?: number;
  /** Called after each batch with bytes read so far and the file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

export interface IngestSummary extends BatchCounts {
  rowsRead: number;
  rejected: number;
  rejectsPath?: string;
  seconds: number;
  /** the reader's word on the file's dialect, when the source has one */
  dialect?: string;
}

/** The most rows one transaction merges (a cut loses at most these; they are staged again by the next run). */
const MAX_MERGE_ROWS = 1_000_000;

export async function ingestCsv(options: CsvIngestOptions): Promise<IngestSummary> {
  return recordRun(options.pool, `${options.spec.table} from ${path.basename(options.file)}`, () => ingestCsvFile(options));
}

async function ingestCsvFile(options: CsvIngestOptions): Promise<IngestSummary> {
  const { pool, file, spec, source } = options;
  const reader = source.forFile?.() ?? { parseRow: (f: string[]) => source.parseRow(f), dialect: () => undefined };
  const batchSize = options.batchSize ?? 100_000;
  let totalBytes: number;
  try {
    totalBytes = statSync(file).size;
  } catch {
    throw new UserError(`Cannot read ${file}: no such file`);
  }
  const started = performance.now();
  const rejects = new RejectFile(options.rejectsPath);
  const client = await pool.connect();
  const upserter = new BatchUpserter(client, spec);
  let counts = zeroCounts();
  let rowsRead = 0;
  const refused: RefusedRow[] = []; // rows PostgreSQL would not take
  // The database loads batch k while we parse batch k+1: at most one write in flight.
  let inFlight: Promise<void> = Promise.resolve();
  const progress = { bytesRead: 0 };
  try {
    await upserter.prepare();
    let batch: string[] = []; // COPY text lines from parseRow
    let asIs: string[] = []; // data lines taken as they are (copiesAsIs), as CSV
    let headerSeen = false;
    // Lines are staged a batch at a time; the staged rows are merged in one transaction after the
    // first batch (the first rows land soon), then every MAX_MERGE_ROWS rows: a large load merges
    // often enough to lose little if cut, and rarely, since each merge writes every rollup group
    // its rows touch: at 1M generated rows, merges of 0.1, 0.2, 0.4 and 0.3M rows (doubling) write
    // 2.25M groups of the 15 rollups, merges of 0.1 and 0.9M 2.08M, a single merge 1.99M.
    let mergeRows = batchSize;
    const flush = async (last: boolean) => {
      const lines = batch;
      const csvLines = asIs;
      batch = [];
      asIs = [];
      await inFlight;
      const bytes = progress.bytesRead;
      inFlight = (async () => {
        await stageRows(upserter, lines, refused);
        await stageRows(upserter, csvLines, refused, 'csv');
        if (upserter.stagedRows > 0 && (last || upserter.stagedRows >= mergeRows)) {
          counts = addCounts(counts, await mergeStaged(upserter, refused));
          mergeRows = Math.max(batchSize, MAX_MERGE_ROWS);
        }
        options.onProgress?.(Math.min(bytes, totalBytes), totalBytes);
      })();
      // surface a failed write at the next flush instead of as an unhandled rejection
      inFlight.catch(() => undefined);
    };

    // the first line offered is the header's (or what stands in its place): always read as a record
    let firstOffered = false;
    const take = (text: string, line: number): boolean => {
      if (!firstOffered) return !(firstOffered = true);
      if (!reader.copiesAsIs?.(text)) return false;
      rowsRead++;
      asIs.push(`${text},${line}`);
      return true;
    };
    for await (const records of readCsvChunks(file, { progress, take: reader.copiesAsIs ? take : undefined })) {
      for (const record of records) {
        if (!headerSeen) {
          if (record.error !== undefined) throw new UserError(`${file}: the header line is not valid CSV (${record.error})`);
          headerSeen = true;
          checkHeader(record.fields, source.header, file);
          continue;
        }
        rowsRead++;
        if (record.error !== undefined) {
          await rejects.add({ where: record.line, reason: record.error, raw: record.raw });
          continue;
        }
        const result = reader.parseRow(record.fields);
        if ('reason' in result) {
          await rejects.add({ where: record.line, reason: result.reason, raw: record.raw });
          continue;
        }
        batch.push(`${result.values}\t${record.line}`);
        if (batch.length + asIs.length >= batchSize) await flush(false);
      }
      if (batch.length + asIs.length >= batchSize) await flush(false);
    }
    if (!headerSeen) throw new UserError(`${file} is empty: expected a header line ${source.header.join(',')}`);
    await flush(true);
    await inFlight;
    await addRefusedRejects(file, refused, rejects);
    if (spec.afterLoad && (counts.inserted > 0 || counts.updated > 0)) await client.query(spec.afterLoad);
  } finally {
    await bestEffort(inFlight, 'the last ingest batch, after the load stopped');
    client.release();
    await rejects.close();
  }
  return {
    ...counts,
    rowsRead,
    rejected: rejects.count,
    rejectsPath: rejects.count ? rejects.path : undefined,
    seconds: (performance.now() - started) / 1000,
    dialect: reader.dialect(),
  };
}

function checkHeader(found: string[], expected: readonly string[], file: string): void {
  const same = found.length === expected.length && found.every((f, i) => f.trim() === expected[i]);
  if (same) return;
  const firstDiff = expected.findIndex((e, i) => found[i]?.trim() !== e);
  throw new UserError(
    `${file}: unexpected header. Expected ${expected.length} columns "${expected.join(',')}"; ` +
      `column ${firstDiff + 1} is "${found[firstDiff] ?? '(missing)'}" where "${expected[firstDiff] ?? '(none)'}" was expected.`,
  );
}
