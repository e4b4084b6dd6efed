// The verified pairs in PostgreSQL (table verified_queries). Two kinds, both
// keyed by what a question means rather than by the words typed:
//   - plan pairs: a resolved query plan (with the glossary choices it rests
//     on) someone vouched for. Any question in any thread that resolves to
//     the same plan is answered as verified, whatever its wording; the SQL is
//     the compiler's, so a pair is parameterised by construction. The
//     fixture's questions are seeded as plan pairs.
//   - question pairs: SQL the model wrote for a question the plan cannot say,
//     with that question in full words; asked again in those words (case,
//     accents and punctuation aside) as a complete question, it gets that SQL.
// A thumbs-up never replaces a pair; an operator can (`datadesk verified`),
// and who and when is kept. A pair belongs to the scope whose curator
// vouched for it and answers only there (a workspace, or the playground's own
// scope: scope.ts); the fixture's pairs and an operator's (workspace NULL) are
// every workspace's, and only they are. Every process re-reads the table when it changes
// (a cheap count-and-latest check per question).
import type pg from 'pg';
import { fixturePlan, verifiedQueries } from './verified-queries.js';
import { compilePlan } from '../plan/compile.js';
import { planKey } from '../plan/plan-key.js';
import type { ReadContext } from '../plan/reader.js';
import { resolvedQuestion } from '../plan/read/describe.js';
import { foldText } from '../plan/read/tokens.js';

export interface VerifiedPair {
  id: string;
  question: string;
  sql: string;
  source: 'feedback' | 'cli' | 'fixture';
  added_by: string | null;
  created_at: Date;
  /** set for a plan pair */
  plan_key: string | null;
  plan: unknown;
  /** the workspace it answers in; null: every workspace */
  workspace: string | null;
}

/**
 * What makes two questions "the same words": Unicode compatibility forms folded (NFKC), accents and
 * other marks stripped, case, spacing and punctuation ignored. "thefts\u0301" and "thefts" are one.
 */
function normalizeQuestion(question: string): string {
  // the reader's own folding (tokens.ts), so "the same words" means one thing everywhere
  return foldText(question)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}%]+/gu, ' ')
    .trim();
}

export interface AddOutcome {
  id: string;
  /** false when a pair for the same plan or question existed: it is kept as it was */
  added: boolean;
}

const COLUMNS = 'id::text, question, sql, source, added_by, created_at, plan_key, plan, workspace';

/** a map key of a pair: its workspace ('' for shared) and its plan key or normalized question */
const slot = (workspace: string | null | undefined, key: string) => `${workspace ?? ''}\u0000${key}`;

export class VerifiedStore {
  private byPlan = new Map<string, VerifiedPair>();
  private byQuestion = new Map<string, VerifiedPair>();
  private version = '';
  private seeded = false;

  constructor(private readonly pool: pg.Pool) {}

  /** The reader's context for the fixture's questions: the community area names (the dates they name are absolute). */
  private async readContext(): Promise<ReadContext> {
    const { rows } = await this.pool.query<{ community_area: number; name: string }>('SELECT community_area, name FROM community_areas');
    const today = new Date().toISOString().slice(0, 10);
    return { areas: new Map(rows.map((r) => [r.name.toLowerCase(), r.community_area])), earliestDate: '2001-01-01', latestDate: today };
  }

  /** The fixture's questions that need no choice, as plan pairs (once; existing rows win). */
  async seed(): Promise<number> {
    const ctx = await this.readContext();
    const pairs = verifiedQueries().flatMap((v) => {
      const read = fixturePlan(v, ctx);
      if (!read || Object.keys(read.choices).length) return [];
      return [
        {
          question: resolvedQuestion(read.plan, ctx),
          key: planKey(read.plan, {}),
          plan: read.plan,
          sql: compilePlan(read.plan, {}, { rollups: false }).sql,
        },
      ];
    });
    // one statement for all of them: it runs on each process's first question
    const { rowCount } = await this.pool.query(
      `INSERT INTO verified_queries (question, plan_key, plan, choices, sql, source)
       SELECT q, k, p, '{}'::jsonb, s, 'fixture' FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::text[]) AS t(q, k, p, s)
       -- only the missing ones: a conflicting insert would still take a number, and pair ids would jump at every start
       WHERE NOT EXISTS (SELECT 1 FROM verified_queries v WHERE v.plan_key = t.k AND v.workspace IS NULL)
       ON CONFLICT (workspace, plan_key) WHERE plan_key IS NOT NULL DO NOTHING`,
      [pairs.map((p) => p.question), pairs.map((p) => p.key), pairs.map((p) => JSON.stringify(p.plan)), pairs.map((p) => p.sql)],
    );
    this.seeded = true;
    return rowCount ?? 0;
  }

  private async refresh(): Promise<void> {
    if (!this.seeded) await this.seed();
    const { rows } = await this.pool.query<{ v: string }>(
      `SELECT count(*) || ':' || coalesce(max(greatest(created_at, replaced_at))::text, '') AS v FROM verified_queries`,
    );
    if (rows[0].v === this.version) return;
    const { rows: all } = await this.pool.query<VerifiedPair & { normalized: string | null }>(
      `SELECT ${COLUMNS}, normalized FROM verified_queries ORDER BY id`,
    );
    this.byPlan = new Map(all.filter((p) => p.plan_key).map((p) => [slot(p.workspace, p.plan_key!), p]));
    this.byQuestion = new Map(all.filter((p) => p.normalized).map((p) => [slot(p.workspace, p.normalized!), p]));
    this.version = rows[0].v;
  }

  /** The pair for this resolved plan (its key: planKey): the workspace's own, else a shared one. */
  async matchPlan(key: string, workspace?: string): Promise<VerifiedPair | undefined> {
    await this.refresh();
    return (workspace ? this.byPlan.get(slot(workspace, key)) : undefined) ?? this.byPlan.get(slot(null, key));
  }

  /** The question pair asked in these words (the workspace's own, else a shared one); the caller asks only for complete questions, never fragments. */
  async matchQuestion(question: string, workspace?: string): Promise<VerifiedPair | undefined> {
    await this.refresh();
    const normalized = normalizeQuestion(question);
    return (workspace ? this.byQuestion.get(slot(workspace, normalized)) : undefined) ?? this.byQuestion.get(slot(null, normalized));
  }

  /**
   * Question pairs people vouched for whose questions share most words with this one (Jaccard over the
   * words, at least `minOverlap`): the model's nearest examples, ahead of the fixture's.
   */
  async similar(question: string, workspace?: string, k = 2, minOverlap = 0.35): Promise<VerifiedPair[]> {
    await this.refresh();
    const words = (q: string) =>
      new Set(
        normalizeQuestion(q)
          .split(' ')
          .filter((w) => w.length > 2),
      );
    const asked = words(question);
    const visible = (p: VerifiedPair) => p.workspace === null || p.workspace === (workspace ?? null);
    return [...this.byQuestion.values(), ...[...this.byPlan.values()].filter((p) => p.source !== 'fixture')]
      .filter(visible)
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

  /** The pairs that answer in a workspace: its own (a curator's 👍 there) first, then the shared ones, each by id. */
  async answeringIn(workspace: string): Promise<VerifiedPair[]> {
    const all = (await this.list()).filter((p) => p.workspace === workspace || p.workspace === null);
    return [...all.filter((p) => p.workspace !== null), ...all.filter((p) => p.workspace === null)];
  }

  async list(): Promise<VerifiedPair[]> {
    await this.refresh();
    return [...this.byPlan.values(), ...this.byQuestion.values()].sort((a, b) => Number(a.id) - Number(b.id));
  }

  /**
   * Vouches for a resolved answer: a plan (with its key and choices) or a question with its SQL. An existing
   * pair for the same plan or question is kept as it was (added: false) unless `replace` (an operator).
   */
  async add(pair: {
    question: string;
    sql: string;
    source: 'feedback' | 'cli';
    addedBy?: string;
    plan?: { key: string; plan: unknown; choices: Record<string, string> };
    replace?: boolean;
    /** the workspace it answers in (a curator's 👍: always one); absent: every workspace (an operator's) */
    workspace?: string;
  }): Promise<AddOutcome> {
    if (pair.source === 'feedback' && !pair.workspace) throw new Error('a 👍 makes a pair for its own workspace only');
    const key = pair.plan ? 'plan_key' : 'normalized';
    const value = pair.plan ? pair.plan.key : normalizeQuestion(pair.question);
    if (!pair.replace && pair.workspace) {
      // a pair every workspace shares (the shipped ones, an operator's) is kept too: a 👍 never shadows it in its workspace
      const shared = await this.pool.query<{ id: string }>(
        `SELECT id::text FROM verified_queries WHERE ${key} = $1 AND workspace IS NULL`,
        [value],
      );
      if (shared.rows[0]) return { id: shared.rows[0].id, added: false };
    }
    const onConflict = pair.replace
      ? `DO UPDATE SET question = excluded.question, sql = excluded.sql, plan = excluded.plan, choices = excluded.choices,
           replaced_by = excluded.added_by, replaced_at = now()`
      : 'DO NOTHING';
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO verified_queries (question, ${key}, plan, choices, sql, source, added_by, workspace) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (workspace, ${key}) WHERE ${key} IS NOT NULL ${onConflict} RETURNING id::text`,
      [
        pair.question,
        value,
        pair.plan ? JSON.stringify(pair.plan.plan) : null,
        pair.plan ? JSON.stringify(pair.plan.choices) : null,
        pair.sql,
        pair.source,
        pair.addedBy ?? null,
        pair.workspace ?? null,
      ],
    );
    this.version = '';
    if (rows[0]) return { id: rows[0].id, added: true };
    const existing = await this.pool.query<{ id: string }>(
      `SELECT id::text FROM verified_queries WHERE ${key} = $1 AND workspace IS NOT DISTINCT FROM $2`,
      [value, pair.workspace ?? null],
    );
    return { id: existing.rows[0].id, added: false };
  }

  async remove(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM verified_queries WHERE id = $1', [id]);
    this.version = '';
    return rowCount === 1;
  }
}
