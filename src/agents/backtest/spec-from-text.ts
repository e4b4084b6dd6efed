// Free-form request -> StrategySpec with the LLM, as AutoBacktest does it:
// a summarizer lists the mentions, BM25 maps each mention to library rules,
// then the LLM fills the zod-validated spec from those candidates. An invalid
// spec is repaired once with the exact problems; after that the user is told
// what is missing.
import { z } from 'zod';
import type { TraceStep } from '../../core/answer.js';
import { timed } from '../../core/answer.js';
import { searchRules } from '../../backtest/factor-search.js';
import { loadLibrary } from '../../backtest/library.js';
import { checkSpec, strategySpecSchema, TASKS, type StrategySpec } from '../../backtest/spec.js';
import type { LlmClient } from '../../llm/client.js';
import { rulesAssumptions } from '../../backtest/rules-words.js';
import { asksForShort, notUsedLine, SHORT_REFUSAL } from './trader-words.js';
import { renderPrompt } from '../../llm/prompts.js';

const summarySchema = z.object({
  tickers: z.array(z.string()).default([]),
  start: z.string().nullable().optional(),
  end: z.string().nullable().optional(),
  buy_mentions: z.array(z.string()).default([]),
  sell_mentions: z.array(z.string()).default([]),
  kpi_mention: z.string().nullable().optional(),
  task_hint: z.enum(TASKS).nullable().optional(),
});
type Summary = z.infer<typeof summarySchema>;

export type SpecFromText = { spec: StrategySpec; assumptions: string[]; mentions: Summary } | { problems: string[] };

function candidateRules(summary: Summary): string {
  const lines = new Set<string>();
  for (const [side, mentions] of [
    ['buy', summary.buy_mentions],
    ['sell', summary.sell_mentions],
  ] as const) {
    for (const mention of mentions) {
      for (const m of searchRules(mention, side, 3)) lines.add(`${m.rule.id} (${side}): ${m.rule.description}`);
    }
  }
  return [...lines].join('\n') || '(none matched)';
}

function factorList(): string {
  return loadLibrary()
    .factors.map(
      (f) => `${f.id} (${f.kind}${f.params.length ? `; ${f.params.map((p) => `${p.name}=${p.default}`).join(', ')}` : ''}): ${f.name}`,
    )
    .join('\n');
}

export async function specFromText(text: string, llm: LlmClient, trace: TraceStep[]): Promise<SpecFromText> {
  // long-only: a short side is refused before any model reads it (it must not come back as a long buy rule)
  if (asksForShort(text)) return { problems: [`a long-only request: ${SHORT_REFUSAL}`] };
  const summary = await timed(trace, 'summarize', async () => {
    const { value, usage } = await llm.chatJson({
      system: 'You extract facts from requests as JSON.',
      user: renderPrompt('backtest-summarize', { request: text }),
      schema: summarySchema,
    });
    trace.push({ node: 'summarize.tokens', ms: 0, tokens: usage.promptTokens + usage.completionTokens });
    return value;
  });
  const missing: string[] = [];
  if (!summary.tickers.length) missing.push('which stock (a 6-digit code or the company name)');
  if (!summary.buy_mentions.length) missing.push('when to buy (an indicator or condition)');
  if (missing.length) return { problems: missing };

  const prompt = renderPrompt('backtest-spec', {
    request: text,
    summary: JSON.stringify(summary),
    rules: candidateRules(summary),
    factors: factorList(),
    schema: JSON.stringify(z.toJSONSchema(strategySpecSchema, { io: 'input' })),
  });
  const fill = async (user: string) =>
    timed(trace, 'fill-spec', async () => {
      const { value, usage } = await llm.chatJson({ system: 'You write strategy specs as JSON.', user, schema: strategySpecSchema });
      trace.push({ node: 'fill-spec.tokens', ms: 0, tokens: usage.promptTokens + usage.completionTokens });
      return value;
    });
  let spec = await fill(prompt);
  let problems = checkSpec(spec);
  if (problems.length) {
    spec = await fill(
      `${prompt}\n\nYour previous spec was ${JSON.stringify(spec)}. It has these problems: ${problems.join('; ')}. Reply with a corrected spec.`,
    );
    problems = checkSpec(spec);
  }
  if (problems.length) return { problems };
  return {
    spec,
    mentions: summary,
    assumptions: [
      `read by ${llm.model}: ${spec.task.replace('_', ' ')}, kpi ${spec.kpi.replace('_', ' ')}`,
      ...(spec.start ? [] : ['window: all available data']),
      ...rulesAssumptions(spec),
      // every trader word the spec does not apply is named
      ...[notUsedLine(text, spec)].filter(Boolean),
    ],
  };
}
