// "Download CSV": all rows of an answer's query, streamed from PostgreSQL as
// CSV (COPY ... TO STDOUT), under the same walls as the answer itself: the SQL
// guard, the reader login, a READ ONLY transaction and a statement timeout, and
// a row limit the link states. Nothing is held in memory but a chunk at a time.
// An answer without one query behind its table (a backtest's KPIs) exports the
// rows it carries.
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Answer } from '../core/answer.js';
import { checkSql } from '../db/sql-guard.js';
import { withReadOnly } from '../db/read-only.js';
import type { ExportGate } from './export-gate.js';

export interface ExportSettings {
  /** exports' own pool on the reader login (the app's when there is none: then only our own compiled SQL was ever run) */
  pool: pg.Pool;
  rowLimit: number;
  statementTimeoutMs: number;
  /** how many exports run at once (in all, per person); none: no limit (tests, the CLI) */
  gate?: ExportGate;
}

export type ExportSource = { kind: 'query'; sql: string } | { kind: 'rows'; columns: string[]; rows: unknown[][] };

/** What a table answer can be exported from, if anything. */
export function exportSourceOf(answer: Answer): ExportSource | undefined {
  if (answer.kind !== 'result' || !answer.table) return undefined;
  if (answer.route === 'sql' && answer.sql.length === 1) return { kind: 'query', sql: answer.sql[0] };
  return { kind: 'rows', columns: answer.table.columns, rows: answer.table.rows };
}

export class ExportRefused extends Error {}

/**
 * Text that a spreadsheet would run as a formula (=, +, -, @, a tab or CR first: OWASP's CSV injection)
 * is written with a leading apostrophe. Only text: a negative number stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const defused = (s: string) => (FORMULA_START.test(s) ? `'${s}` : s);

const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? defused(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** text, varchar, bpchar, name: the columns whose cells are defused */
const TEXT_TYPES = new Set([25, 1043, 1042, 19]);
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The query's columns by position, text ones defused in SQL (the CSV itself is written by COPY), under their own names. */
async function defusedSelect(client: pg.PoolClient, sql: string, limit: number): Promise<string> {
  const probe = await client.query(`SELECT * FROM (${sql}\n) AS answer LIMIT 0`);
  const cols = probe.fields.map((_, i) => `c${i}`);
  const list = probe.fields.map((f, i) =>
    TEXT_TYPES.has(f.dataTypeID)
      ? `CASE WHEN left(answer.c${i}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || answer.c${i} ELSE answer.c${i} END AS ${ident(f.name)}`
      : `answer.c${i} AS ${ident(f.name)}`,
  );
  return `SELECT ${list.join(', ')} FROM (${sql}\n) AS answer(${cols.join(', ')}) LIMIT ${limit}`;
}

/**
 * Checks the export (the SQL guard) before anything is written, and returns
 * the writer: a refusal (ExportRefused) comes before the first byte, so the
 * caller can still answer with an error instead of half a file.
 */
export async function prepareCsvExport(
  settings: ExportSettings,
  source: ExportSource,
  signal?: AbortSignal,
): Promise<(out: Writable) => Promise<void>> {
  if (source.kind === 'rows') {
    return async (out) => {
      out.write([source.columns, ...source.rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n');
      out.end();
    };
  }
  const verdict = await checkSql(source.sql);
  if (!verdict.ok) throw new ExportRefused(`This answer's query cannot be exported: ${verdict.message}`);
  // the statement alone: a trailing ";" or "-- comment" would break the COPY around it
  const sql = verdict.statement;
  const limit = Math.max(1, Math.floor(settings.rowLimit));
  return (out) =>
    // the answer's watchdog (timeout plus grace), and stopped when the client goes away
    withReadOnly(settings.pool, { statementTimeoutMs: settings.statementTimeoutMs, watchdog: true, signal }, async (client) => {
      // a newline before each closing bracket: SQL ending in a -- comment would otherwise comment it out
      await pipeline(client.query(copyTo(`COPY (${await defusedSelect(client, sql, limit)}\n) TO STDOUT WITH (FORMAT csv, HEADER)`)), out);
    });
}

/** Writes the CSV to `out`; see prepareCsvExport. */
export async function writeCsvExport(settings: ExportSettings, source: ExportSource, out: Writable): Promise<void> {
  await (
    await prepareCsvExport(settings, source)
  )(out);
}

export class ExportTooBig extends Error {}

/** The CSV in memory, for a chat platform's file upload (which takes the whole file): at most `maxBytes`. */
export async function csvExportBuffer(settings: ExportSettings, source: ExportSource, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new ExportTooBig(`more than ${Math.round(maxBytes / 1_048_576)} MB of CSV`));
      chunks.push(chunk);
      done();
    },
  });
  await writeCsvExport(settings, source, sink);
  return Buffer.concat(chunks);
}
