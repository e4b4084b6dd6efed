// npm run bench -- playground: questions through the playground's HTTP API, as
// browsers send them (each in its own thread), to one `serve` on the benchmark
// database. First one at a time, then N at once. Printed: end-to-end p50/p99
// (POST /api/ask to the answer event), answers per second, errors, the chart
// fetch the page makes, serve's own CPU and PostgreSQL's per answer (from /proc),
// the load average, and where an answer's time goes (core/answer-cost.ts): the
// agent's stages from each answer's trace, and what is left of the end-to-end time outside the agent
// (the queue, the job's bookkeeping, the delivery to the page).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answerCost, COST_STAGES, type AnswerCost, type CostStage } from '../core/answer-cost.js';
import type { Answer } from '../core/answer.js';
import { quantile } from './stats.js';
import { CONVERSATION_FILES, conversationFile, loadConversations } from '../eval/conversation-eval.js';
import { loadBenchmarks } from '../eval/sql-eval.js';
import { cpuMsOf, DatabaseCpu, startServe } from './serve-process.js';
import pg from 'pg';
import { APP_SEARCH_PATH } from '../db/database.js';

/** Offline questions of the shapes people ask first (plan answers: no model needed). */
const QUESTIONS = [
  'How many thefts were reported in 2019?',
  'How many crimes were reported each year?',
  'Which 10 community areas had the most burglaries in 2020?',
  'How many arrests were made for narcotics in 2018?',
  'How many crimes happened in Austin in 2021?',
  'How many batteries were reported each month in 2019?',
  'Which 10 community areas had the most battery reports?',
  'What share of narcotics cases ended in an arrest?',
];

/**
 * --mix benchmarks: every question the benchmark files open with (crime-100, crime-chat-40 and the first turn of
 * each conversation set), shuffled by a fixed seed: the shapes people ask, not eight repeated ones (what a model
 * would answer is refused offline, as it is in the channel).
 */
function benchmarkQuestions(): string[] {
  const all = [
    ...loadBenchmarks().map((b) => b.question),
    ...CONVERSATION_FILES.flatMap((f) => loadConversations(conversationFile(f)).map((c) => c.turns[0].say)),
  ];
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all;
}

interface Asked {
  thread: string;
  ms: number;
  /** from the deliveries row (the database's clock): created -> taken by a worker, taken -> finished */
  queuedMs?: number;
  workedMs?: number;
  answer?: Answer;
  chartMs?: number;
  error?: string;
}

/** One question as the page asks it: POST /api/ask, read the events up to the answer, then fetch the chart the page shows. */
async function ask(url: string, text: string): Promise<Asked> {
  const started = performance.now();
  const thread = randomBytes(16).toString('hex');
  try {
    const res = await fetch(`${url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ thread, text }),
    });
    const body = await res.text();
    if (res.status !== 200) return { thread, ms: performance.now() - started, error: `HTTP ${res.status}: ${body.slice(0, 120)}` };
    const ms = performance.now() - started;
    const event = body.split('\n\n').find((e) => e.startsWith('event: answer\n'));
    if (!event) return { thread, ms, error: 'no answer event' };
    const payload = JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { answer: Answer; chartUrl: string | null };
    // a clarifying question or a refusal is a reply (counted by kind in the summary); an error answer is an error
    if (payload.answer.kind !== 'result')
      return { thread, ms, answer: payload.answer, ...(payload.answer.kind === 'error' ? { error: 'an error answer' } : {}) };
    if (!payload.chartUrl) return { thread, ms, answer: payload.answer };
    const chartStarted = performance.now();
    const chart = await fetch(`${url}${payload.chartUrl}`);
    await chart.arrayBuffer();
    return {
      thread,
      ms,
      answer: payload.answer,
      chartMs: performance.now() - chartStarted,
      ...(chart.status === 200 ? {} : { error: `chart HTTP ${chart.status}` }),
    };
  } catch (error) {
    return { thread, ms: performance.now() - started, error: (error as Error).message };
  }
}

const f1 = (n: number) => n.toFixed(1);

/** Mean cost per answer by stage, with the end-to-end time the agent's trace does not cover. */
function costLines(asked: Asked[]): string[] {
  const answered = asked.filter((a) => a.answer);
  if (!answered.length) return ['  no answers'];
  const costs: AnswerCost[] = answered.map((a) => {
    const inAgent = answerCost(a.answer!.trace).total.wallMs;
    const outside = (ms: number) => ({ wallMs: Math.max(0, ms), cpuMs: 0 });
    return answerCost(a.answer!.trace, {
      ...(a.queuedMs !== undefined && a.workedMs !== undefined
        ? {
            queue: outside(a.queuedMs),
            delivery: outside(a.workedMs - inAgent),
            receiving: outside(a.ms - a.queuedMs - a.workedMs),
          }
        : { receiving: outside(a.ms - inAgent) }),
      ...(a.chartMs !== undefined ? { chart: outside(a.chartMs) } : {}),
    });
  });
  const mean = (stage: CostStage, key: 'wallMs' | 'cpuMs') => costs.reduce((s, c) => s + (c.stages[stage]?.[key] ?? 0), 0) / costs.length;
  const rows = COST_STAGES.filter((s) => costs.some((c) => c.stages[s])).map(
    (s) => `  ${s.padEnd(10)} wall ${f1(mean(s, 'wallMs')).padStart(8)} ms   cpu ${f1(mean(s, 'cpuMs')).padStart(7)} ms`,
  );
  return [
    ...rows,
    '  (queue: from the job queued to a worker taking it; delivery: the worker after the answer was made (saving, delivering, finishing);',
    '   receiving: the rest of the end-to-end time (the request, queueing, the notice, reading the row, sending); chart: the page fetching it)',
  ];
}

/** Each answer's time in the queue and at the worker, from its deliveries row (its key names the thread). */
async function fillFromDeliveries(pool: pg.Pool, asked: Asked[]): Promise<void> {
  const { rows } = await pool.query<{ thread: string; queued: number; worked: number }>(
    `SELECT split_part(key, ':', 2) AS thread,
            extract(epoch FROM started_at - created_at) * 1000 AS queued,
            extract(epoch FROM finished_at - started_at) * 1000 AS worked
       FROM deliveries WHERE key LIKE 'web:%' AND split_part(key, ':', 2) = ANY($1) AND finished_at IS NOT NULL`,
    [asked.map((a) => a.thread)],
  );
  const byThread = new Map(rows.map((r) => [r.thread, r]));
  for (const a of asked) {
    const r = byThread.get(a.thread);
    if (r) Object.assign(a, { queuedMs: Number(r.queued), workedMs: Number(r.worked) });
  }
}

/** The database's committed and rolled-back transactions so far (pg_stat_database; its counters lag by up to half a second). */
async function transactions(pool: pg.Pool): Promise<number> {
  await new Promise((r) => setTimeout(r, 700));
  const { rows } = await pool.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0].n);
}

interface Spent {
  seconds: number;
  serveCpuMs: number;
  postgresCpuMs: number;
  /** the 1-minute load average at the start and at the end */
  load: [number, number];
}

function summary(label: string, asked: Asked[], spent: Spent, xacts: number): void {
  const { seconds, serveCpuMs, postgresCpuMs, load } = spent;
  const ok = asked.filter((a) => !a.error);
  const ms = ok.map((a) => a.ms);
  const errors = new Map<string, number>();
  for (const a of asked) if (a.error) errors.set(a.error, (errors.get(a.error) ?? 0) + 1);
  console.log(
    `${label}: ${ok.length} of ${asked.length} answered in ${seconds.toFixed(1)} s (${(ok.length / seconds).toFixed(1)} answers/s); ` +
      `end to end p50 ${f1(quantile(ms, 0.5))} ms, p99 ${f1(quantile(ms, 0.99))} ms, max ${f1(Math.max(...ms))} ms; ` +
      `errors ${asked.length - ok.length}${errors.size ? ` (${[...errors].map(([e, n]) => `${n} × ${e}`).join('; ')})` : ''}`,
  );
  const kinds = new Map<string, number>();
  for (const a of ok) kinds.set(a.answer?.kind ?? 'result', (kinds.get(a.answer?.kind ?? 'result') ?? 0) + 1);
  console.log(`  replies by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const charts = asked.filter((a) => a.chartMs !== undefined).map((a) => a.chartMs!);
  if (charts.length)
    console.log(`  chart fetched by the page: ${charts.length}, p50 ${f1(quantile(charts, 0.5))} ms, p99 ${f1(quantile(charts, 0.99))} ms`);
  console.log(
    `  CPU per question: serve ${f1(serveCpuMs / asked.length)} ms, PostgreSQL ${f1(postgresCpuMs / asked.length)} ms ` +
      `(user + system time over the run: serve's process; the database's backends, their parallel and autovacuum workers); ` +
      `load average ${load[0].toFixed(1)} -> ${load[1].toFixed(1)}`,
  );
  console.log(`  database transactions: ${f1(xacts / asked.length)} per question (pg_stat_database, the bench's own reads included)`);
  console.log("  mean cost per answer (CPU is the process's during each step: under load it counts the answers running alongside):");
  for (const line of costLines(asked)) console.log(line);
}

export async function playgroundLoadBench(o: {
  databaseUrl: string;
  questions: number;
  serial: number;
  workerConcurrency?: number;
  cpuProfileDir?: string;
  mix?: 'shapes' | 'benchmarks';
}): Promise<void> {
  const questions = o.mix === 'benchmarks' ? benchmarkQuestions() : QUESTIONS;
  console.log(
    `questions: ${o.mix === 'benchmarks' ? `${questions.length} from the benchmark files` : `${questions.length} shapes, repeated`}`,
  );
  if (o.cpuProfileDir) mkdirSync(o.cpuProfileDir, { recursive: true });
  const serve = await startServe(
    {
      DATABASE_URL: o.databaseUrl,
      DATADESK_ALLOW_SUPERUSER: 'true',
      DEMO_DATA: 'off',
      HOST: '127.0.0.1',
      PORT: '0',
      SOCRATA_SCHEDULE: 'off',
      LOG_LEVEL: 'info', // serve says where it listens at info
      THREAD_MEMORY_URL: '',
      LLM_BASE_URL: '',
      RATE_LIMIT_USER_PER_MINUTE: '10000',
      RATE_LIMIT_CHANNEL_PER_MINUTE: '10000',
      ANSWERING_PER_CHANNEL: '1000',
      DATADESK_HOME: path.join(os.tmpdir(), 'datadesk-playground-load-home'),
      ...(o.workerConcurrency ? { WORKER_CONCURRENCY: String(o.workerConcurrency) } : {}),
    },
    o.cpuProfileDir,
  );
  const pid = serve.child.pid!;
  const pool = new pg.Pool({ connectionString: o.databaseUrl, max: 1, options: APP_SEARCH_PATH });
  try {
    // warm: the schema, the reader's context, the connections
    for (const q of QUESTIONS) await ask(serve.url, q);
    // finished questions' dead rows not yet vacuumed make every question's reads of the waiting ones dearer (deliveries.take)
    const { rows: kept } = await pool.query<{ live: string; dead: string }>(
      `SELECT (SELECT count(*) FROM deliveries) AS live, n_dead_tup AS dead FROM pg_stat_user_tables WHERE relid = 'deliveries'::regclass`,
    );
    if (kept[0])
      console.log(
        `deliveries before the run: ${kept[0].live} rows, ${kept[0].dead} dead rows not yet vacuumed (pg_stat_user_tables' estimate)`,
      );
    const database = new DatabaseCpu(decodeURIComponent(new URL(o.databaseUrl).pathname.slice(1)));
    /** Runs `ask` and measures it: wall time, serve's and PostgreSQL's CPU, the load, the transactions. */
    const measured = async (label: string, asking: () => Promise<Asked[]>) => {
      const xacts = await transactions(pool);
      const load = os.loadavg()[0];
      const cpu = cpuMsOf(pid);
      database.start();
      const started = performance.now();
      const asked = await asking();
      const seconds = (performance.now() - started) / 1000;
      const serveCpuMs = cpuMsOf(pid) - cpu;
      const postgresCpuMs = database.stop();
      const spent: Spent = { seconds, serveCpuMs, postgresCpuMs, load: [load, os.loadavg()[0]] };
      await fillFromDeliveries(pool, asked);
      summary(label, asked, spent, (await transactions(pool)) - xacts - 1);
    };
    await measured('one at a time', async () => {
      const serial: Asked[] = [];
      for (let i = 0; i < o.serial; i++) serial.push(await ask(serve.url, questions[i % questions.length]));
      return serial;
    });
    await measured(`${o.questions} at once`, () =>
      Promise.all(Array.from({ length: o.questions }, (_, i) => ask(serve.url, questions[(o.serial + i) % questions.length]))),
    );
  } finally {
    await pool.end();
    serve.child.kill('SIGTERM');
    await new Promise((r) => serve.child.once('exit', r));
  }
  if (o.cpuProfileDir) console.log(`serve's CPU profile: ${o.cpuProfileDir} (open it in Chrome DevTools, Performance)`);
}
