// The verified question/SQL pairs in PostgreSQL (table verified_queries): a
// curator's thumbs-up, `datadesk verified add`, or the fixture's question
// types (seeded once, those that need no clarification, for listing and
// export). A question asked again in the words of a pair a person vouched
// for (case, spacing and punctuation aside) is answered with its pair's SQL,
// and the answer says it is verified. Every process
// reads the table when it changes (a cheap count-and-latest check per
// question), so a pair promoted in Slack is used at once by every worker.
import type pg from 'pg';
import { exampleSql, verifiedQueries } from './verified-queries.js';

export interface VerifiedPair {
  id: string;
  question: string;
  sql: string;
  source: 'feedback' | 'cli' | 'fixture';
  added_by: string | null;
  created_at: Date;
}

/** What makes two questions "the same words": case, spacing and punctuation do not count. */
export function normalizeQuestion(question: string): string {
  return question.toLowerCase().replace(/[^\p{L}\p{N}%]+/gu, ' ').trim();
}

export class VerifiedStore {
  private pairs = new Map<string, VerifiedPair>();
  private version = '';
  private seeded = false;

  constructor(private readonly pool: pg.Pool) {}

  /** The fixture's question types that need no choice, as pairs of their example question and SQL (once; existing rows win). */
  async seed(): Promise<number> {
    const pairs = verifiedQueries()
      .filter((v) => !v.terms?.length)
      .flatMap((v) => {
        const sql = exampleSql(v);
        return sql ? [{ question: v.question, normalized: normalizeQuestion(v.question), sql }] : [];
      });
    // one statement for all of them: it runs on each process's first question
    const { rowCount } = await this.pool.query(
      `INSERT INTO verified_queries (question, normalized, sql, source)
       SELECT q, n, s, 'fixture' FROM unnest($1::text[], $2::text[], $3::text[]) AS t(q, n, s)
       ON CONFLICT (normalized) DO NOTHING`,
      [pairs.map((p) => p.question), pairs.map((p) => p.normalized), pairs.map((p) => p.sql)],
    );
    this.seeded = true;
    return rowCount ?? 0;
  }

  private async refresh(): Promise<void> {
    if (!this.seeded) await this.seed();
    const { rows } = await this.pool.query<{ v: string }>(`SELECT count(*) || ':' || coalesce(max(created_at)::text, '') AS v FROM verified_queries`);
    if (rows[0].v === this.version) return;
    const { rows: all } = await this.pool.query<VerifiedPair & { normalized: string }>('SELECT id::text, question, normalized, sql, source, added_by, created_at FROM verified_queries ORDER BY id');
    this.pairs = new Map(all.map((p) => [p.normalized, p]));
    this.version = rows[0].v;
  }

  /**
   * The pair a person vouched for, asked in these very words, if any. The
   * fixture's rows are listed and exported with the rest but not matched here:
   * their question types already answer through the reader and the templates,
   * which also read other wordings.
   */
  async match(question: string): Promise<VerifiedPair | undefined> {
    await this.refresh();
    const pair = this.pairs.get(normalizeQuestion(question));
    return pair?.source === 'fixture' ? undefined : pair;
  }

  /**
   * Pairs people vouched for whose questions share most words with this one
   * (Jaccard over the words, at least `minOverlap`): the model's nearest
   * examples, ahead of the fixture's.
   */
  async similar(question: string, k = 2, minOverlap = 0.35): Promise<VerifiedPair[]> {
    await this.refresh();
    const words = (q: string) => new Set(normalizeQuestion(q).split(' ').filter((w) => w.length > 2));
    const asked = words(question);
    return [...this.pairs.values()]
      .filter((p) => p.source !== 'fixture')
      .map((p) => {
        const theirs = words(p.question);
        const shared = [...asked].filter((w) => theirs.has(w)).length;
        return { p, score: shared / (asked.size + theirs.size - shared || 1) };
      })
      .filter((x) => x.score >= minOverlap)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((x) => x.p);
  }

  async list(): Promise<VerifiedPair[]> {
    await this.refresh();
    return [...this.pairs.values()];
  }

  /** Adds or replaces the pair for this question; returns its id. */
  async add(pair: { question: string; sql: string; source: 'feedback' | 'cli'; addedBy?: string }): Promise<string> {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO verified_queries (question, normalized, sql, source, added_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (normalized) DO UPDATE SET question = excluded.question, sql = excluded.sql, source = excluded.source, added_by = excluded.added_by, created_at = now()
       RETURNING id::text`,
      [pair.question, normalizeQuestion(pair.question), pair.sql, pair.source, pair.addedBy ?? null],
    );
    this.version = '';
    return rows[0].id;
  }

  async remove(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM verified_queries WHERE id = $1', [id]);
    this.version = '';
    return rowCount === 1;
  }
}
