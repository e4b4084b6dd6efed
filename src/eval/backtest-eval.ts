// datadesk eval backtest: BacktestBench-style tasks generated from the factor
// library and the database (a random ticker and a window of at least 252 days,
// 1-4 buy and 1-4 sell rules combined by intersection, a random KPI), stated as
// text (by the LLM when one is configured, else in the rule syntax), answered by
// the agent, and scored against the engine run directly on the task's spec.
import type pg from 'pg';
import type { Logger } from '../core/logger.js';
import { runBacktest, type BacktestDeps } from '../agents/backtest/agent.js';
import { retrieve } from '../agents/backtest/retrieval.js';
import { KPI_NAMES } from '../backtest/kpis.js';
import { loadLibrary, resolveParams, type Rule } from '../backtest/library.js';
import { runSpec, type SpecResult } from '../backtest/run-spec.js';
import { specFields, TASKS, type Condition, type StrategySpec, type Task } from '../backtest/spec.js';
import { specToSyntax } from '../backtest/spec-to-syntax.js';
import { Random } from '../ingest/generate/random.js';
import type { LlmClient } from '../llm/client.js';
import { renderPrompt } from '../llm/prompts.js';

export interface EvalTask {
  id: string;
  family: Task;
  spec: StrategySpec;
  text: string;
}

interface EvalOutcome {
  task: EvalTask;
  correct: boolean;
  failure?: string;
  /** factor ids of the task vs. those the agent used */
  truthFactors: string[];
  agentFactors: string[];
}

const MIN_WINDOW = 252;

function ruleToCondition(rule: Rule): Condition {
  const factor = loadLibrary().factor(rule.factor)!;
  const left = { factor: factor.id, params: resolveParams(factor, rule.params) };
  return factor.kind === 'event' ? { type: 'event', event: left } : { type: 'compare', left, op: rule.op, right: rule.threshold };
}

function pickRules(random: Random, side: 'buy' | 'sell', count: number): Condition[] {
  const pool = loadLibrary().rules.filter((r) => r.side === side);
  const chosen = new Set<Rule>();
  while (chosen.size < count) chosen.add(pool[random.int(0, pool.length - 1)]);
  return [...chosen].map(ruleToCondition);
}

function factorsOf(spec: StrategySpec): string[] {
  const ids = new Set<string>();
  const lib = loadLibrary();
  const add = (c: Condition) => {
    if (c.type === 'rule') ids.add(lib.rules.find((r) => r.id === c.rule.toUpperCase())?.factor ?? c.rule);
    else if (c.type === 'compare') {
      ids.add(c.left.factor.toUpperCase());
      if (typeof c.right !== 'number') ids.add(c.right.factor.toUpperCase());
    } else if (c.type === 'cross') {
      ids.add(c.left.factor.toUpperCase());
      ids.add(c.right.factor.toUpperCase());
    } else if (c.type === 'event') ids.add(c.event.factor.toUpperCase());
  };
  for (const s of spec.strategies) [...s.buy, ...s.sell].forEach(add);
  return [...ids].sort();
}

interface Listing {
  code: string;
  first: string;
  last: string;
}

async function tradingDates(pool: pg.Pool, code: string): Promise<string[]> {
  const { rows } = await pool.query<{ d: string }>(
    `SELECT trade_date::text AS d FROM (SELECT trade_date FROM shanghai_stock_exchange WHERE stock_code = $1
       UNION ALL SELECT trade_date FROM shenzhen_stock_exchange WHERE stock_code = $1
       UNION ALL SELECT trade_date FROM beijing_stock_exchange WHERE stock_code = $1) x ORDER BY 1`,
    [code],
  );
  return rows.map((r) => r.d);
}

export async function generateTasks(pool: pg.Pool, perFamily: number, seed: number): Promise<EvalTask[]> {
  const random = new Random(seed);
  const { rows: listings } = await pool.query<Listing>(
    `SELECT stock_code AS code, first_date::text AS first, last_date::text AS last FROM stock_listings WHERE bars >= $1 ORDER BY stock_code`,
    [MIN_WINDOW + 20],
  );
  if (listings.length < 5)
    throw new Error(`the evaluation needs at least 5 tickers with ${MIN_WINDOW + 20} bars; found ${listings.length}`);
  const tasks: EvalTask[] = [];
  for (const family of TASKS) {
    for (let k = 0; k < perFamily; k++) {
      const anchor = listings[random.int(0, listings.length - 1)];
      const dates = await tradingDates(pool, anchor.code);
      const startIdx = random.int(0, dates.length - MIN_WINDOW);
      const endIdx = random.int(startIdx + MIN_WINDOW - 1, dates.length - 1);
      const [start, end] = [dates[startIdx], dates[endIdx]];
      let tickers = [anchor.code];
      if (family === 'ticker_selection') {
        const eligible = listings.filter((l) => l.first <= start && l.last >= end && l.code !== anchor.code);
        const count = Math.min(eligible.length, random.int(2, 4));
        const picked = new Set<string>();
        while (picked.size < count) picked.add(eligible[random.int(0, eligible.length - 1)].code);
        tickers = [anchor.code, ...picked];
      }
      const strategy = (name: string) => ({
        name,
        buy: pickRules(random, 'buy', random.int(1, 4)),
        sell: pickRules(random, 'sell', random.int(1, 4)),
      });
      const strategies = family === 'strategy_selection' ? ['A', 'B', 'C'].slice(0, random.int(2, 3)).map(strategy) : [strategy('A')];
      let parameter: StrategySpec['parameter'];
      if (family === 'parameter_confirmation') {
        const lib = loadLibrary();
        const withParams = strategies[0].buy
          .map((c) => (c.type === 'compare' ? c.left : c.type === 'event' ? c.event : undefined))
          .filter((r) => r && lib.factor(r.factor)!.params.length);
        const ref = withParams[0] ?? { factor: 'RSI', params: { n: 14 } };
        if (!withParams.length) strategies[0].buy.push({ type: 'compare', left: ref, op: '<', right: 30 });
        const factor = lib.factor(ref.factor)!;
        const p = factor.params[random.int(0, factor.params.length - 1)];
        const base = ref.params?.[p.name] ?? p.default;
        const candidates = [...new Set([Math.max(p.min, Math.round(base / 2)), base, base * 2])];
        parameter = { factor: factor.id, param: p.name, candidates: candidates.length >= 2 ? candidates : [base, base + 1] };
      }
      const spec: StrategySpec = {
        task: family,
        tickers,
        start,
        end,
        strategies,
        kpi: KPI_NAMES[random.int(0, KPI_NAMES.length - 1)],
        capital: 1_000_000,
        costs: 'none',
        sizing: 'lots',
        ...(parameter ? { parameter } : {}),
      };
      tasks.push({ id: `${family}-${k + 1}`, family, spec, text: specToSyntax(spec) });
    }
  }
  return tasks;
}

/** With an LLM, each task is restated as a person would write it. */
async function phraseTasks(tasks: EvalTask[], llm: LlmClient): Promise<void> {
  for (const task of tasks) {
    const { text } = await llm.chatText({
      system: 'You write short requests to a trading assistant.',
      user: renderPrompt('eval-phrase-backtest', { rule: task.text }),
    });
    task.text = text.trim();
  }
}

async function truthOf(task: EvalTask, deps: BacktestDeps): Promise<SpecResult> {
  const data = await retrieve(deps.pool, deps.statementTimeoutMs, task.spec.tickers, specFields(task.spec), task.spec.start, task.spec.end);
  return runSpec(task.spec, data.tickers);
}

const close = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

async function scoreTask(task: EvalTask, deps: BacktestDeps): Promise<EvalOutcome> {
  const truth = await truthOf(task, deps);
  const outcome = await runBacktest(task.text, deps);
  const truthFactors = factorsOf(task.spec);
  const agentFactors = outcome.spec ? factorsOf(outcome.spec) : [];
  const base = { task, truthFactors, agentFactors };
  if (!outcome.result || !outcome.spec) {
    const a = outcome.answer;
    const why = a.kind === 'error' ? a.message : a.kind === 'refusal' ? a.reason : a.kind;
    return { ...base, correct: false, failure: `no result: ${why.split('\n')[0].slice(0, 100)}` };
  }
  const s = outcome.spec;
  if (s.task !== task.spec.task) return { ...base, correct: false, failure: `wrong task family (${s.task})` };
  if ([...s.tickers].sort().join() !== [...task.spec.tickers].sort().join()) return { ...base, correct: false, failure: 'wrong tickers' };
  if (s.start !== task.spec.start || s.end !== task.spec.end) return { ...base, correct: false, failure: 'wrong window' };
  if (s.kpi !== task.spec.kpi) return { ...base, correct: false, failure: 'wrong KPI' };
  const expected = truth.candidates[truth.ranking[0]];
  const got = outcome.result.candidates[outcome.result.ranking[0]];
  if (task.family === 'metrics') {
    const ok = close(got.kpis[task.spec.kpi], expected.kpis[task.spec.kpi]);
    return { ...base, correct: ok, failure: ok ? undefined : 'wrong value (conditions read differently)' };
  }
  const ok = got.label === expected.label && close(got.kpis[task.spec.kpi], expected.kpis[task.spec.kpi]);
  return { ...base, correct: ok, failure: ok ? undefined : `wrong choice: ${got.label} instead of ${expected.label}` };
}

export interface EvalReport {
  lines: string[];
  outcomes: EvalOutcome[];
}

export async function evaluateBacktests(deps: BacktestDeps & { logger: Logger }, perFamily: number, seed: number): Promise<EvalReport> {
  const tasks = await generateTasks(deps.pool, perFamily, seed);
  if (deps.llm) await phraseTasks(tasks, deps.llm);
  const outcomes: EvalOutcome[] = [];
  for (const task of tasks) outcomes.push(await scoreTask(task, deps));

  const lines = [
    `Backtest evaluation: ${tasks.length} tasks (${perFamily} per family, seed ${seed}), stated ${deps.llm ? `in words by ${deps.llm.model}` : 'in the rule syntax (no LLM configured)'}`,
    'family | tasks | correct | accuracy',
  ];
  for (const family of TASKS) {
    const of = outcomes.filter((o) => o.task.family === family);
    const ok = of.filter((o) => o.correct).length;
    lines.push(`${family} | ${of.length} | ${ok} | ${((100 * ok) / Math.max(1, of.length)).toFixed(1)}%`);
  }
  const ok = outcomes.filter((o) => o.correct).length;
  lines.push(`all | ${outcomes.length} | ${ok} | ${((100 * ok) / Math.max(1, outcomes.length)).toFixed(1)}%`);
  let tp = 0,
    predicted = 0,
    actual = 0;
  for (const o of outcomes) {
    const truth = new Set(o.truthFactors);
    tp += o.agentFactors.filter((f) => truth.has(f)).length;
    predicted += o.agentFactors.length;
    actual += o.truthFactors.length;
  }
  lines.push(
    `indicator retrieval: precision ${((100 * tp) / Math.max(1, predicted)).toFixed(1)}%, recall ${((100 * tp) / Math.max(1, actual)).toFixed(1)}%`,
  );
  const reasons = new Map<string, number>();
  for (const o of outcomes) if (o.failure) reasons.set(o.failure, (reasons.get(o.failure) ?? 0) + 1);
  if (reasons.size) {
    lines.push('failures:');
    for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) lines.push(`  ${n} x ${reason}`);
    for (const o of outcomes.filter((x) => x.failure)) lines.push(`  ${o.task.id}: ${o.failure} — ${o.task.text.slice(0, 160)}`);
  }
  return { lines, outcomes };
}
