// The factor library and its atomic rules (fixtures/backtest/*.json), validated
// on load. A factor's short code is a template: {n} is a parameter, {n+1} the
// parameter plus one.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fixturePath } from '../core/paths.js';
import { UserError } from '../core/errors.js';

const paramSchema = z.object({ name: z.string(), default: z.number(), min: z.number() });
const factorSchema = z.object({
  id: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  name: z.string(),
  aliases: z.array(z.string()),
  category: z.enum(['Risk', 'Quality', 'Momentum', 'Technical']),
  kind: z.enum(['value', 'line', 'event']),
  shortCode: z.string(),
  params: z.array(paramSchema),
  description: z.string(),
});
const ruleSchema = z.object({
  id: z.string(),
  factor: z.string(),
  side: z.enum(['buy', 'sell']),
  op: z.enum(['>', '<', '>=', '<=']),
  threshold: z.number(),
  description: z.string(),
  params: z.record(z.string(), z.number()).optional(),
});

export type Factor = z.infer<typeof factorSchema>;
export type Rule = z.infer<typeof ruleSchema>;

export interface Library {
  factors: Factor[];
  rules: Rule[];
  factor(id: string): Factor | undefined;
}

let cached: Library | undefined;

export function loadLibrary(): Library {
  if (cached) return cached;
  const read = (file: string) => JSON.parse(readFileSync(fixturePath('backtest', file), 'utf8')) as Record<string, unknown>;
  const factors = z.array(factorSchema).parse(read('factors.json').factors);
  const rules = z.array(ruleSchema).parse(read('rules.json').rules);
  const byId = new Map(factors.map((f) => [f.id, f]));
  for (const r of rules) if (!byId.has(r.factor)) throw new Error(`rule ${r.id} names unknown factor ${r.factor}`);
  cached = { factors, rules, factor: (id) => byId.get(id.toUpperCase()) };
  return cached;
}

/** Parameter values: the factor's defaults, overridden by `given`, each checked against its minimum. */
export function resolveParams(factor: Factor, given: Record<string, number> = {}): Record<string, number> {
  const values: Record<string, number> = {};
  for (const p of factor.params) values[p.name] = p.default;
  for (const [name, value] of Object.entries(given)) {
    const p = factor.params.find((x) => x.name === name);
    if (!p) {
      throw new UserError(
        `${factor.id} has no parameter "${name}"${factor.params.length ? ` (it takes ${factor.params.map((x) => x.name).join(', ')})` : ' (it takes none)'}`,
      );
    }
    if (!Number.isInteger(value) || value < p.min)
      throw new UserError(`${factor.id} parameter ${name} must be a whole number of at least ${p.min}, not ${value}`);
    values[name] = value;
  }
  return values;
}

/** The factor's short code with parameters filled in. */
export function instantiate(factor: Factor, given: Record<string, number> = {}): string {
  const values = resolveParams(factor, given);
  return factor.shortCode.replace(/\{(\w+)([+-]\d+)?\}/g, (_, name: string, offset?: string) => {
    if (!(name in values)) throw new Error(`factor ${factor.id}: template names unknown parameter ${name}`);
    return String(values[name] + (offset ? Number(offset) : 0));
  });
}
