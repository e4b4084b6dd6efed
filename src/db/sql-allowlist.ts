// The allow-list the SQL guard enforces, read once from fixtures/sql/guard-allowlist.json:
// the data relations with their columns, the pg_catalog functions, types,
// operators and parse-tree node types that model-written SQL may use.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';

export interface SqlAllowList {
  /** relation -> its columns */
  relations: Map<string, Set<string>>;
  /** every column of every relation: a qualified name that is one of these is a column, never a function call */
  columns: Set<string>;
  functions: Set<string>;
  types: Set<string>;
  operators: Set<string>;
  currentValues: Set<string>;
  nodeTypes: Set<string>;
}

interface AllowListFile {
  relations: Record<string, string[]>;
  functions: Record<string, string[]>;
  types: string[];
  operators: string[];
  current_values: string[];
  node_types: string[];
}

let cached: SqlAllowList | undefined;

export function sqlAllowList(): SqlAllowList {
  if (cached) return cached;
  const file = JSON.parse(readFileSync(fixturePath('sql', 'guard-allowlist.json'), 'utf8')) as AllowListFile;
  const relations = new Map(Object.entries(file.relations).map(([name, cols]) => [name, new Set(cols)]));
  cached = {
    relations,
    columns: new Set([...relations.values()].flatMap((cols) => [...cols])),
    functions: new Set(Object.values(file.functions).flat()),
    types: new Set(file.types),
    operators: new Set(file.operators),
    currentValues: new Set(file.current_values),
    nodeTypes: new Set(file.node_types),
  };
  return cached;
}
