// The backtest agent: a request (rule syntax or words) -> a strategy spec ->
// bars from the database -> the deterministic engine -> a channel-neutral
// Answer. The LLM, when there is one, only fills the spec; it never computes.
import { syntheticData, SYNTHETIC_PRICES_NOTE } from '../../db/freshness.js';
import type { Answer, TraceStep } from '../../core/answer.js';
import { makeAnswer, timed } from '../../core/answer.js';
import { UserError, describeError } from '../../core/errors.js';
import type { Candidate } from '../../backtest/run-spec.js';
import { dataChanges, runLink, type StoredRun, type TickerSummary } from '../../backtest/run-id.js';
import { KPI_NAMES, type KpiName, type Kpis } from '../../backtest/kpis.js';
import { compareThreaded, runSpecThreaded } from '../../backtest/run-threaded.js';
import type { RankingMinimum } from '../../backtest/ranking.js';
import { RuleSyntaxError, looksLikeRuleSyntax, parseRuleSyntax } from '../../backtest/rule-syntax.js';
import { checkSpec, specFields, strategySpecSchema, type StrategySpec } from '../../backtest/spec.js';
import { QueryTimeoutError } from '../../db/read-only.js';
import { LlmError } from '../../llm/client.js';
import { readOffline } from './free-text.js';
import { answerParts } from './answer-parts.js';
import { answerPortfolio } from './portfolio-answer.js';
import { addTraderParts } from './tearsheet-part.js';
import { executionLine, fmtKpi, KPI_LABELS, unevenWindows } from './narrate.js';
import { retrieve } from './retrieval.js';
import { rankForAnswer, readRankingOptions } from './ranking-options.js';
import { specFromText } from './spec-from-text.js';
import { RULE_SYNTAX_FORM, ruleFormAt } from './help.js';
import type { BacktestDeps, BacktestOutcome } from './backtest-deps.js';
import { keepRun } from './keep-run.js';
export type { BacktestDeps, BacktestOutcome };

/** `rerun 7K3QF9XQ2M`: a kept run, by its id. */
const RERUN = /^\s*rerun\s+([0-9A-Za-z]{10})\s*$/i;

import type { ProgressReporter } from '../../core/progress.js';
export type { ProgressReporter };

interface SpecReading {
  spec: StrategySpec;
  assumptions: string[];
  /** a ranking's minimum history and round trips (min-days:, min-trades:) */
  minimum: RankingMinimum;
  /** the user named the KPI */
  kpiGiven: boolean;
  /** a rerun: the run it repeats */
  rerun?: StoredRun;
}

const route = 'backtest' as const;

function errorAnswer(message: string, retryable: boolean, trace: TraceStep[]): Answer {
  return makeAnswer({ kind: 'error', route, message, retryable, trace });
}

/** The KPI was not named: the readers say so in their assumptions ("kpi: ... (not given)"). */
const kpiDefaulted = (assumptions: string[]) => assumptions.some((a) => a.startsWith('kpi:'));

async function readRequest(request: string, deps: BacktestDeps, trace: TraceStep[]): Promise<SpecReading | Answer> {
  const rerun = RERUN.exec(request);
  if (rerun) {
    const stored = await deps.runs?.get(rerun[1], deps.workspace);
    if (!stored) {
      // the same sentence for an unknown id and another workspace's: whether it exists elsewhere is not told
      return errorAnswer(
        `There is no backtest run ${rerun[1].toUpperCase()} here: run ids are those printed under a backtest answer in this workspace.`,
        false,
        trace,
      );
    }
    trace.push({ node: 'parse', ms: 0, note: `rerun of ${stored.id}` });
    const spec = strategySpecSchema.parse(stored.spec);
    const options = readRankingOptions(stored.request);
    return {
      spec,
      rerun: stored,
      minimum: options.minimum,
      kpiGiven: /\bkpi:/i.test(stored.request),
      assumptions: [`rerun of ${stored.id} (first run ${stored.created_at.toISOString().slice(0, 10)}): ${stored.request}`],
    };
  }
  const options = readRankingOptions(request);
  const text = options.text;
  const read = (spec: StrategySpec, assumptions: string[]): SpecReading => ({
    spec,
    assumptions: [...assumptions, ...options.given],
    minimum: options.minimum,
    kpiGiven: !kpiDefaulted(assumptions),
  });
  if (looksLikeRuleSyntax(text)) {
    try {
      const parsed = await timed(trace, 'parse', () => parseRuleSyntax(text), 'rule syntax');
      return read(parsed.spec, parsed.defaults);
    } catch (error) {
      // where and what, then one line of the right form (the page of examples is /backtest help)
      if (error instanceof RuleSyntaxError)
        return errorAnswer(
          `I could not read that rule: ${error.message}.\nThe right form: ${ruleFormAt(error.input, error.position, error.detail)} (/backtest help: examples)`,
          false,
          trace,
        );
      throw error;
    }
  }
  if (deps.llm) {
    const filled = await specFromText(text, deps.llm, trace);
    if ('problems' in filled) {
      return makeAnswer({
        kind: 'refusal',
        route,
        trace,
        reason: `To run this backtest I still need: ${filled.problems.join('; ')}.`,
        alternatives: ['Say it again with those details', `Or use the rule syntax: ${RULE_SYNTAX_FORM}`],
      });
    }
    return read(filled.spec, filled.assumptions);
  }
  const reading = await timed(trace, 'parse', () => readOffline(text), 'offline: patterns and BM25 over the rule library');
  if (reading.refused) {
    // not something more words would fix: said as such, with the long-only form to write instead
    return makeAnswer({
      kind: 'refusal',
      route,
      trace,
      reason: `${reading.problems.map((p) => p[0].toUpperCase() + p.slice(1)).join('; ')}.`,
      alternatives: [`Write the long side instead: /backtest ${reading.ruleSyntax}`],
    });
  }
  if (!reading.spec) {
    return makeAnswer({
      kind: 'refusal',
      route,
      trace,
      reason:
        `No LLM is configured, so I only run requests I can read exactly. I am missing ${reading.problems.join('; ')}.` +
        `\nMy reading so far, in the rule syntax: \`${reading.ruleSyntax}\``,
      alternatives: [
        `Send the corrected line: /backtest ${reading.ruleSyntax}`,
        'Configure an LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) for free-form requests',
      ],
    });
  }
  return read(reading.spec, reading.assumptions);
}

export async function answerBacktest(text: string, deps: BacktestDeps, progress?: ProgressReporter): Promise<Answer> {
  return (await runBacktest(text, deps, progress)).answer;
}

export async function runBacktest(text: string, deps: BacktestDeps, progress?: ProgressReporter): Promise<BacktestOutcome> {
  const trace: TraceStep[] = [];
  let specRead: StrategySpec | undefined;
  try {
    progress?.('Reading the strategy');
    const reading = await readRequest(text, deps, trace);
    if ('kind' in reading) return { answer: reading };
    const spec = reading.spec;
    specRead = spec;
    const problems = checkSpec(spec);
    if (problems.length) return { spec, answer: errorAnswer(`This backtest cannot run as asked: ${problems.join('; ')}.`, false, trace) };

    progress?.(spec.tickers.length > 1 ? `Fetching bars of ${spec.tickers.length} tickers` : `Fetching bars of ${spec.tickers[0]}`);
    const data = await timed(trace, 'retrieve', () =>
      retrieve(
        deps.pool,
        deps.statementTimeoutMs,
        spec.tickers,
        specFields(spec),
        spec.start,
        spec.end,
        (done, total) => progress?.(`Fetched ${done} of ${total} tickers`),
        { market: true },
      ),
    );
    // a portfolio is one run of its own engine, told by its own answer (portfolio-answer.ts)
    if (spec.portfolio) return await answerPortfolio(spec, text, reading, data, deps, trace);
    progress?.('Running the backtest');
    // on the worker threads: the event loop stays free for Slack, Teams and /healthz
    // the run and everything the answer sets beside its winner, whole before it is told
    const { result, view } = await timed(trace, 'simulate', async () => {
      const run = await runSpecThreaded(spec, data.tickers);
      const ranked = rankForAnswer(spec, run, reading.minimum);
      const comparisons = await compareThreaded(spec, data.tickers, run.candidates[ranked.winner], data.market);
      return { result: run, view: { ...ranked, comparisons, kpiGiven: reading.kpiGiven } };
    });
    const best = result.candidates[result.ranking[0]];
    const winner = result.candidates[view.winner];
    const answer = await timed(trace, 'narrate', () => answerParts(spec, result, view));
    if (spec.task === 'metrics') addTraderParts(answer, spec, result.candidates[result.ranking[0]]);
    // the run's id: the spec, the engine and the bars it read; kept so that `rerun ID` repeats it
    const kept = await keepRun(deps, data, {
      request: reading.rerun?.request ?? text,
      spec,
      headline: answer.headline,
      best: { label: best.label, kpis: best.kpis },
    });
    const id = kept.id;
    const final = makeAnswer({
      kind: 'result',
      route,
      trace,
      ...answer,
      sql: data.sql,
      assumptions: [
        ...reading.assumptions,
        executionLine(spec, winner),
        ...(spec.sizing === 'shares' ? ['sizing: any number of shares (at least 100)'] : []),
      ],
      notes: [
        ...(spec.task === 'metrics'
          ? []
          : [
              `${result.candidates.length} candidates compared; the table is sorted best first${view.ranking?.apart.length ? ', those below the ranking minimum last' : ''}.`,
            ]),
        ...(spec.task === 'ticker_selection' ? [unevenWindows(data.tickers)].filter(Boolean) : []),
        ...(data.skipped ? [`${data.skipped} tickers left out: fewer than 2 trading days in the window.`] : []),
        ...(reading.rerun ? [rerunNote(reading.rerun, { id, engine: kept.engine, summary: kept.summary, kpi: spec.kpi, best })] : []),
        deps.runs
          ? `Run id ${id}: /backtest rerun ${id} (or datadesk backtest run --id ${id}) repeats it and says if the data changed.${deps.publicBaseUrl ? ` Its parameters: ${runLink(deps.publicBaseUrl, id)}` : ''}`
          : `Run id ${id} (runs are not kept here, so it cannot be rerun by its id).`,
      ],
      freshness: `bars through ${data.lastDate}${(await syntheticData(deps.pool)).stocks ? ` (${SYNTHETIC_PRICES_NOTE})` : ''}`,
    });
    return { answer: final, spec, result, runId: id };
  } catch (error) {
    return { spec: specRead, answer: failureAnswer(error, deps, trace) };
  }
}

/** What a rerun found: the same numbers, or what changed since (the data, the engine) and what the run said then. */
function rerunNote(
  before: StoredRun,
  now: { id: string; engine: string; summary: TickerSummary[]; kpi: KpiName; best: Candidate },
): string {
  const kpi = (k: Kpis) => `${KPI_LABELS[now.kpi]} ${fmtKpi(now.kpi, k[now.kpi])}`;
  if (now.id === before.id) {
    const same = KPI_NAMES.every((k) => before.best.kpis[k] === now.best.kpis[k]);
    return same
      ? `Rerun of ${before.id}: the same spec, engine and data, and the same numbers (${kpi(now.best.kpis)}, as on ${before.created_at.toISOString().slice(0, 10)}).`
      : `Rerun of ${before.id}: the same spec, engine and data, but other numbers (${kpi(before.best.kpis)} then, ${kpi(now.best.kpis)} now): this is a bug; it has been logged.`;
  }
  const changes = dataChanges(before.data_summary, now.summary);
  const why = [
    changes.length
      ? `the data changed: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? `; and ${changes.length - 5} more` : ''}`
      : '',
    !changes.length && before.engine === now.engine ? 'the data changed (some prices differ)' : '',
    before.engine !== now.engine ? `the engine changed (${before.engine} then, ${now.engine} now)` : '',
  ].filter(Boolean);
  return `Rerun of ${before.id}: ${why.join('; ')}. Then: ${before.headline} (${before.best.label}, ${kpi(before.best.kpis)}). Now: ${now.best.label}, ${kpi(now.best.kpis)}; this run is ${now.id}.`;
}

function failureAnswer(error: unknown, deps: BacktestDeps, trace: TraceStep[]): Answer {
  if (error instanceof UserError) return errorAnswer(error.message, false, trace);
  if (error instanceof LlmError) {
    return errorAnswer(
      `I could not read this request with the language model: ${error.message}. The rule syntax works without it:\n${RULE_SYNTAX_FORM}`,
      error.retryable,
      trace,
    );
  }
  if (error instanceof QueryTimeoutError) {
    return errorAnswer(`${error.message}. Try a shorter window or fewer tickers.`, true, trace);
  }
  deps.logger.error(`backtest failed: ${describeError(error)}`);
  return errorAnswer('Something went wrong running this backtest; it has been logged. Please try again.', true, trace);
}
