// An answer's source as Teams' AI citation (learn.microsoft.com "Enhance
// AI-generated bot messages", Citations; the Teams AI library's
// ClientCitation): the message's one schema.org Message entity, the same
// that carries the "AI generated" label, gets a `citation` list with one
// Claim at position 1, and the message says "[1]" where it rests on it. The
// claim's pop-up shows what was asked, the table the SQL ran on and the
// data's freshness (abstract, keywords); its modal window shows the same
// and the SQL itself, as a stringified Adaptive Card without any action.
//
// What the claim says comes from the Answer's `sources` (the question as
// resolved, the SQL, the tables it read, the data's last day), and where an
// answer has none (a backtest, a digest), from its resolved question, its
// SQL and its freshness.
import type { Answer } from '../../core/answer.js';
import { AI_GENERATED_ENTITY } from './entity-fields.js';

/** The in-text mark of the one claim: Teams links "[1]" in the message to the claim at position 1. */
export const CITATION_MARK = '[1]';

/** Teams' limits on a claim's appearance: name 80 characters, abstract 160, at most 3 keywords of 28. */
const NAME_MAX = 80;
const ABSTRACT_MAX = 160;
const KEYWORDS_MAX = 3;
const KEYWORD_MAX = 28;
/** The SQL the modal window shows: each statement up to this many characters, at most this many statements (the card has it all). */
const SQL_CHARS = 2_000;
const SQL_STATEMENTS = 3;

/**
 * The Answer's `sources` as this file reads it (core/answer.ts), structurally: the part is new, and a
 * renderer that reads only these fields works with any answer that has them.
 */
interface SourcesLike {
  question?: string;
  understood?: string[];
  sql: string;
  tables: string[];
  freshness?: string;
  rowsReturned?: number;
  ranOn?: string;
}

/** What a claim shows. */
export interface CitedSource {
  question?: string;
  understood?: string[];
  sql: string[];
  tables: string[];
  freshness?: string;
  rows?: number;
  ranOn?: string;
}

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** The relations a query reads, for an answer without `sources`: names after FROM and JOIN that are not its own CTEs. */
function tablesIn(sql: string): string[] {
  const ctes = new Set([...sql.matchAll(/(?:\bWITH(?:\s+RECURSIVE)?|,)\s+([A-Za-z_]\w*)\s+AS\s*\(/gi)].map((m) => m[1].toLowerCase()));
  const names = [...sql.matchAll(/\b(?:FROM|JOIN)\s+((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)/gi)].map((m) => m[1].toLowerCase());
  return [...new Set(names.filter((n) => !ctes.has(n)))].sort();
}

/** What an answer's claim shows, or undefined when no SQL produced it (help, a refusal, a clarifying question). */
export function citedSource(answer: Answer): CitedSource | undefined {
  if (answer.kind !== 'result') return undefined;
  const sources = (answer as { sources?: SourcesLike }).sources;
  if (sources?.sql) {
    return {
      question: sources.question ?? answer.resolved?.question,
      understood: sources.understood,
      sql: [sources.sql],
      tables: sources.tables,
      freshness: sources.freshness ?? answer.freshness,
      rows: sources.rowsReturned,
      ranOn: sources.ranOn,
    };
  }
  const sql = answer.sql.filter((s) => s.trim());
  if (!sql.length) return undefined;
  return {
    question: answer.resolved?.question,
    understood: answer.understood,
    sql,
    tables: [...new Set(sql.flatMap(tablesIn))].sort(),
    freshness: answer.freshness,
  };
}

type Json = Record<string, unknown>;

const run = (t: string, style: Json = {}): Json => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: t, ...style }] });
const labelled = (label: string, value: string): Json => ({
  type: 'RichTextBlock',
  inlines: [
    { type: 'TextRun', text: `${label}: `, weight: 'Bolder' },
    { type: 'TextRun', text: value },
  ],
});

/** The modal window's card: no actions, text as TextRuns (no markdown, as in the answer card). */
export function citationCard(s: CitedSource): Json {
  const statements = s.sql.slice(0, SQL_STATEMENTS);
  const body: Json[] = [];
  if (s.question) body.push(labelled('Question', s.question));
  if (s.understood?.length) body.push(labelled('Understood as', s.understood.join(' · ')));
  body.push(labelled('Ran on', `${s.tables.join(', ') || 'no table'}${s.ranOn ? ` (${s.ranOn})` : ''}`));
  if (s.freshness) body.push(labelled('Data', s.freshness));
  if (s.rows !== undefined) body.push(labelled('Returned', `${s.rows.toLocaleString('en-US')} row${s.rows === 1 ? '' : 's'}`));
  body.push(run(statements.length > 1 ? 'The SQL that ran, in order' : 'The SQL that ran', { weight: 'Bolder' }));
  for (const sql of statements) body.push(run(clip(sql, SQL_CHARS), { fontType: 'Monospace', size: 'Small' }));
  if (s.sql.length > statements.length)
    body.push(run(`and ${s.sql.length - statements.length} more statement(s), shown in the answer`, { size: 'Small', isSubtle: true }));
  return { type: 'AdaptiveCard', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', version: '1.5', body };
}

/** The claim at position 1: name, abstract and keywords within Teams' limits, the modal window's card as text. */
export function citationClaim(s: CitedSource): Json {
  const on = s.tables.join(', ') || 'the data';
  const abstract = [s.question, `Ran on ${on}`, s.freshness && `data: ${s.freshness}`].filter(Boolean).join(' · ');
  const keywords = [...s.tables.slice(0, 2), s.freshness ?? ''].filter(Boolean).slice(0, KEYWORDS_MAX);
  return {
    '@type': 'Claim',
    position: 1,
    appearance: {
      '@type': 'DigitalDocument',
      name: clip(`The SQL that ran on ${on}`, NAME_MAX),
      abstract: clip(abstract, ABSTRACT_MAX),
      ...(keywords.length ? { keywords: keywords.map((k) => clip(k, KEYWORD_MAX)) } : {}),
      text: JSON.stringify(citationCard(s)),
      encodingFormat: 'application/vnd.microsoft.card.adaptive',
      image: { '@type': 'ImageObject', name: 'Source Code' },
    },
  };
}

/**
 * The message entity of an answer: the "AI generated" label and, when SQL produced the answer, its claim. One
 * entity: Teams refuses a message with more than one root Message entity (400).
 */
export function answerMessageEntity(answer: Answer): Json & { type: string } {
  const source = citedSource(answer);
  return source ? { ...AI_GENERATED_ENTITY, citation: [citationClaim(source)] } : { ...AI_GENERATED_ENTITY };
}

/** The bytes the claim adds to a message: counted against the card's budget, since Teams limits the whole message. */
export function citationBytes(answer: Answer): number {
  const source = citedSource(answer);
  return source ? Buffer.byteLength(JSON.stringify(citationClaim(source))) : 0;
}
