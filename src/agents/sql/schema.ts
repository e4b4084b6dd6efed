// The schema node's knowledge: live introspection of the tables the agent may
// read (columns and types from the catalog, descriptions from fixtures, a few
// real values of the low-cardinality columns so the model writes 'THEFT', not
// 'Theft'), cached until the next migration. Only the columns relevant to a
// question go into the prompt.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { fixturePath } from '../../core/paths.js';
import { ROLLUPS } from '../../db/rollups.js';

interface ColumnInfo {
  table: string;
  name: string;
  type: string;
  description: string;
  values?: string[];
}

export interface SchemaInfo {
  tables: { name: string; description: string; columns: ColumnInfo[] }[];
  /** community area names -> numbers, for slot filling and routing */
  areas: Map<string, number>;
}

interface ColumnDocs {
  tables: Record<string, { description: string; columns: Record<string, string> }>;
  lowCardinality: string[];
}

const SQL_TABLES = ['crimes', 'community_areas'];

export async function introspectSchema(pool: pg.Pool): Promise<SchemaInfo> {
  const docs = JSON.parse(readFileSync(fixturePath('knowledge', 'columns.json'), 'utf8')) as ColumnDocs;
  const { rows } = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = ANY($1) ORDER BY table_name, ordinal_position`,
    [SQL_TABLES],
  );
  const values = new Map<string, string[]>();
  for (const col of docs.lowCardinality) {
    // the most frequent values first, ties by name: the same list on every run (a sample changed it each time and
    // left out rare types the prompt then called unknown). Crime types are listed whole; others their top 40.
    // Read once per process and cached by the agent.
    // Counted from the smallest rollup that keeps the column (the same counts: 1.3 s -> ms at 8.5M rows).
    const rollup = ROLLUPS.find((r) => r.columns.includes(col));
    const incidents = rollup ? 'sum(n)' : 'count(*)';
    const { rows: vs } = await pool.query<{ v: string }>(
      `SELECT ${col} AS v FROM ${rollup?.table ?? 'crimes'} WHERE ${col} IS NOT NULL GROUP BY 1 ORDER BY ${incidents} DESC, 1${col === 'primary_type' ? '' : ' LIMIT 40'}`,
    );
    values.set(
      col,
      vs.map((r) => r.v),
    );
  }
  const areas = new Map<string, number>();
  for (const r of (await pool.query<{ community_area: number; name: string }>('SELECT community_area, name FROM community_areas')).rows) {
    areas.set(r.name.toLowerCase(), r.community_area);
  }
  return {
    tables: SQL_TABLES.map((t) => ({
      name: t,
      description: docs.tables[t]?.description ?? '',
      columns: rows
        .filter((r) => r.table_name === t)
        .map((r) => ({
          table: t,
          name: r.column_name,
          type: r.data_type,
          description: docs.tables[t]?.columns[r.column_name] ?? '',
          ...(t === 'crimes' && values.has(r.column_name) ? { values: values.get(r.column_name) } : {}),
        })),
    })),
    areas,
  };
}

/** Columns every crime question may need, whatever its words. */
const ALWAYS = new Set(['id', 'date', 'primary_type', 'year', 'community_area', 'name']);

/** The schema as prompt text, keeping the columns the question's words point at. */
export function schemaPrompt(schema: SchemaInfo, question: string): string {
  const words = question.toLowerCase();
  const relevant = (c: ColumnInfo) =>
    ALWAYS.has(c.name) ||
    words.includes(c.name.replace(/_/g, ' ')) ||
    c.description
      .toLowerCase()
      .split(/\W+/)
      .some((w) => w.length > 4 && words.includes(w)) ||
    (c.name === 'arrest' && /arrest/.test(words)) ||
    (c.name === 'domestic' && /domestic/.test(words)) ||
    (c.name === 'location_description' && /\b(where|street|place|location|residence|apartment|store|alley|sidewalk)\b/.test(words)) ||
    (c.name === 'block' && /block|address|street/.test(words)) ||
    (['district', 'ward', 'beat'].includes(c.name) && words.includes(c.name)) ||
    (['latitude', 'longitude'].includes(c.name) && /where|map|location|coordinates|near/.test(words)) ||
    (c.name === 'description' && /type|kind|description|subcategor/.test(words));
  return schema.tables
    .map((t) => {
      const cols = t.columns.filter(relevant);
      return `TABLE ${t.name} -- ${t.description}\n${cols
        .map(
          (c) =>
            `  ${c.name} ${c.type} -- ${c.description}${c.values ? `; ${c.name === 'primary_type' ? 'values (all of them)' : 'values include'}: ${c.values.join(', ')}` : ''}`,
        )
        .join('\n')}`;
    })
    .join('\n\n');
}
