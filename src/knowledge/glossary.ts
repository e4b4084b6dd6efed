// Domain terms (fixtures/knowledge/glossary.json). Ambiguous ones carry
// options; a thread's choice (or the workspace default) picks one.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fixturePath } from '../core/paths.js';

const optionSchema = z.object({ id: z.string(), label: z.string(), description: z.string(), sql: z.string() });
const termSchema = z.object({
  id: z.string(),
  label: z.string(),
  patterns: z.array(z.string()),
  question: z.string().optional(),
  options: z.array(optionSchema).optional(),
  definition: z.string().optional(),
});
export type GlossaryTerm = z.infer<typeof termSchema>;
export type GlossaryOption = z.infer<typeof optionSchema>;

let terms: GlossaryTerm[] | undefined;

export function glossary(): GlossaryTerm[] {
  terms ??= z.array(termSchema).parse(JSON.parse(readFileSync(fixturePath('knowledge', 'glossary.json'), 'utf8')).terms);
  return terms;
}

/** Terms the question uses, in glossary order. */
export function termsIn(question: string): GlossaryTerm[] {
  return glossary().filter((t) => t.patterns.some((p) => new RegExp(p, 'i').test(question)));
}

export const isAmbiguous = (t: GlossaryTerm) => (t.options?.length ?? 0) > 1;

export function option(termId: string, optionId: string): GlossaryOption | undefined {
  return glossary()
    .find((t) => t.id === termId)
    ?.options?.find((o) => o.id === optionId);
}

/** "night=22-06,weekend=sat_sun" -> {night: "22-06", ...}; unknown terms or options are errors. */
export function parseGlossaryDefaults(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [term, opt] = pair.split('=').map((s) => s.trim());
    if (!option(term, opt)) {
      const t = glossary().find((x) => x.id === term);
      throw new Error(
        t?.options
          ? `${term} has no option "${opt}" (options: ${t.options.map((o) => o.id).join(', ')})`
          : `"${term}" is not an ambiguous glossary term (terms: ${glossary()
              .filter(isAmbiguous)
              .map((x) => x.id)
              .join(', ')})`,
      );
    }
    out[term] = opt;
  }
  return out;
}
