// npm run bench -- load: the bot as a busy workspace sees it, over two `serve`
// processes on the benchmark database. N signed Slack mentions arrive, a few
// at a time, at either process (every 10th at both at once, as a retried
// delivery can), while one whole-market /backtest runs; halfway, one process
// is killed with SIGKILL and a new one started. Printed: the ack p50/p99, the
// /healthz p99 of both processes during the run, answers per second, and
// whether every question got exactly one answer (duplicates, missing). The
// Web API is a local stub that records what a thread would show.
import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { generateCrimes } from '../ingest/generate/crimes.js';
import { ingestCsv } from '../ingest/csv-ingest.js';
import { CRIMES_SPEC } from '../ingest/crimes/crime-table.js';
import { portalCsvSource } from '../ingest/crimes/portal-csv.js';
import { openBenchDatabase } from './bench-database.js';
import { loadStocksIfEmpty, STRATEGY } from './backtest-bench.js';
import { quantile } from './stats.js';
import { startServe, type Serve } from './serve-process.js';

const SECRET = 'load-bench-secret';
const QUESTIONS = [
  'How many thefts were reported in 2019?',
  'How many crimes were reported each year?',
  'Which 10 community areas had the most burglaries in 2020?',
  'How many arrests were made for narcotics in 2018?',
  'How many crimes happened in Austin in 2021?',
];

interface Thread {
  placeholders: Set<string>;
  answers: number;
  /** when the first answer was written (performance.now()) */
  answeredAt?: number;
}

const lastAnswerAt = (threads: Map<string, Thread>) => Math.max(0, ...[...threads.values()].map((t) => t.answeredAt ?? 0));

/**
 * A Slack Web API that answers ok and remembers, per thread, the bot's live messages and the answers written into
 * them: by chat.update, or as the final blocks of a stream (chat.stopStream). `classic`: a Slack without streaming.
 */
// message ts are Slack's kind, epoch seconds: a worker looks for a dead process's stream near the moment it began
async function startSlackStub(classic: boolean) {
  const threads = new Map<string, Thread>();
  const threadOfTs = new Map<string, string>();
  /** the metadata each message was posted with: conversations.replies gives it back (a worker finds an orphaned placeholder by it) */
  const metadataOf = new Map<string, unknown>();
  let seq = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0];
      const args: Record<string, string> = (req.headers['content-type'] ?? '').includes('json')
        ? JSON.parse(body || '{}')
        : Object.fromEntries(new URLSearchParams(body));
      const ok = (o: Record<string, unknown> = {}) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, ...o }));
      if (method === 'chat.postMessage') {
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
        if (args.thread_ts) {
          const t = threads.get(args.thread_ts) ?? { placeholders: new Set(), answers: 0 };
          if (!args.blocks) t.placeholders.add(ts);
          threads.set(args.thread_ts, t);
          threadOfTs.set(ts, args.thread_ts);
          if (args.metadata) metadataOf.set(ts, typeof args.metadata === 'string' ? JSON.parse(args.metadata) : args.metadata);
        }
        return ok({ channel: args.channel, ts });
      }
      if (method === 'chat.startStream') {
        if (classic) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":false,"error":"unknown_method"}');
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
        const t = threads.get(args.thread_ts) ?? { placeholders: new Set(), answers: 0 };
        t.placeholders.add(ts);
        threads.set(args.thread_ts, t);
        threadOfTs.set(ts, args.thread_ts);
        return ok({ channel: args.channel, ts });
      }
      if (method === 'chat.stopStream' && args.metadata)
        metadataOf.set(args.ts, typeof args.metadata === 'string' ? JSON.parse(args.metadata) : args.metadata);
      if (method === 'chat.update' || method === 'chat.stopStream') {
        const thread = threads.get(threadOfTs.get(args.ts) ?? '');
        if (thread && args.blocks) {
          thread.answers++;
          thread.answeredAt ??= performance.now();
        }
        return ok({ channel: args.channel, ts: args.ts });
      }
      if (method === 'conversations.replies') {
        const live = [...(threads.get(args.ts)?.placeholders ?? [])];
        return ok({
          messages: live.map((ts) => ({ type: 'message', ts, thread_ts: args.ts, bot_id: 'B', metadata: metadataOf.get(ts) })),
          has_more: false,
        });
      }
      if (method === 'chat.delete') {
        threads.get(threadOfTs.get(args.ts) ?? '')?.placeholders.delete(args.ts);
        return ok();
      }
      if (method === 'files.getUploadURLExternal')
        return ok({ upload_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`, file_id: `F${++seq}` });
      if (method === 'files.completeUploadExternal') return ok({ files: [] });
      if (method === 'upload') return res.writeHead(200).end('OK');
      return ok({ user_id: 'UBOT', bot_id: 'B', team_id: 'T' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    threads,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const signed = (body: string) => {
  const ts = Math.floor(Date.now() / 1000);
  return {
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
};

async function timedPost(url: string, body: string, type: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/slack/events`, { method: 'POST', headers: { 'content-type': type, ...signed(body) }, body });
  await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status} from ${url}`);
  return performance.now() - started;
}

export async function ensureCrimes(pool: pg.Pool, rows: number): Promise<void> {
  const { rows: n } = await pool.query('SELECT count(*)::int AS n FROM crimes');
  if (n[0].n > 0) return;
  const file = path.join(os.tmpdir(), 'datadesk-load-crimes.csv');
  await generateCrimes({ rows, seed: 7, out: file });
  await ingestCsv({ pool, file, spec: CRIMES_SPEC, source: portalCsvSource, rejectsPath: `${file}.rejects.csv` });
  rmSync(file, { force: true });
  await pool.query('ANALYZE crimes');
  console.log(`loaded ${rows.toLocaleString('en-US')} synthetic crimes`);
}

export async function loadBench(
  config: Config,
  logger: Logger,
  o: { events: number; tickers: number; concurrency: number; busy?: number; classic?: boolean },
): Promise<void> {
  const bench = await openBenchDatabase(config, logger, false);
  await ensureCrimes(bench.pool, 200_000);
  await loadStocksIfEmpty(bench.pool, o.tickers);
  const benchUrl = new URL(bench.pool.options.connectionString as string);
  await bench.close();
  const slack = await startSlackStub(Boolean(o.classic));
  const env = {
    DATABASE_URL: benchUrl.toString(),
    DATADESK_ALLOW_SUPERUSER: 'true',
    DEMO_DATA: 'off',
    HOST: '127.0.0.1',
    PORT: '0',
    SOCRATA_SCHEDULE: 'off',
    LOG_LEVEL: 'info',
    SLACK_BOT_TOKEN: 'xoxb-load',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: slack.url,
    THREAD_MEMORY_URL: '',
    RATE_LIMIT_USER_PER_MINUTE: '10000',
    RATE_LIMIT_CHANNEL_PER_MINUTE: '10000',
    DATADESK_HOME: path.join(os.tmpdir(), 'datadesk-load-home'),
    // fairness is measured under the shipped per-channel cap; otherwise the cap is lifted to measure throughput
    ...(o.busy === undefined ? { ANSWERING_PER_CHANNEL: '100' } : {}),
  };
  const bots: Serve[] = await Promise.all([startServe(env), startServe(env)]);
  const health: number[] = [];
  let polling = true;
  const pollers = [0, 1].map(async (i) => {
    while (polling) {
      const bot = bots[i];
      const started = performance.now();
      try {
        await (await fetch(`${bot.url}/healthz`)).text();
        health.push(performance.now() - started);
      } catch {
        /* the killed process, until its replacement is up */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  const acks: number[] = [];
  // --busy s: that share of the mentions in one channel (C0), interleaved with the rest over four quiet ones
  const channelOf = (i: number) =>
    o.busy === undefined ? `C${(i + 1) % 5}` : (i * 7919) % 1000 < o.busy * 1000 ? 'C0' : `C${1 + (i % 4)}`;
  const events = Array.from({ length: o.events }, (_, i) => ({
    id: `EvLoad${Date.now()}x${i}`,
    ts: `1800${String(Date.now()).slice(-6)}.${String(i).padStart(6, '0')}`,
    user: `U${i % 100}`,
    twice: i % 10 === 0,
    channel: channelOf(i),
    sentAt: 0,
  }));
  const started = performance.now();
  let killedAt = '';
  let retried = 0;
  const failures = new Map<string, number>();
  try {
    // the whole-market backtest, while the questions arrive
    const backtest = new URLSearchParams({
      command: '/backtest',
      text: `compare all ${STRATEGY}`,
      user_id: 'UBT',
      channel_id: 'CBT',
      team_id: 'T',
      response_url: 'http://127.0.0.1:1/r',
      trigger_id: `t${Date.now()}`,
    }).toString();
    acks.push(await timedPost(bots[0].url, backtest, 'application/x-www-form-urlencoded'));
    let next = 0;
    const send = async () => {
      while (next < events.length) {
        const e = events[next++];
        e.sentAt = performance.now();
        if (next === Math.floor(events.length / 2) && !killedAt) {
          killedAt = `after ${next} events`;
          bots[1].child.kill('SIGKILL');
          bots[1] = await startServe(env);
        }
        const body = JSON.stringify({
          type: 'event_callback',
          event_id: e.id,
          team_id: 'T',
          api_app_id: 'A',
          event_time: 1,
          event: {
            type: 'app_mention',
            user: e.user,
            channel: e.channel,
            text: `<@UBOT> ${QUESTIONS[next % QUESTIONS.length]}`,
            ts: e.ts,
            event_ts: e.ts,
          },
        });
        const targets = e.twice ? [0, 1] : [next % 2];
        // a delivery that fails (the killed process) is retried, as Slack retries, at whichever process is up then
        const deliver = async (i: number) => {
          for (let attempt = 0; attempt < 4; attempt++) {
            try {
              acks.push(await timedPost(bots[(i + attempt) % 2].url, body, 'application/json'));
              return;
            } catch (error) {
              retried++;
              const why = (error as Error).message.replace(/127\.0\.0\.1:\d+/, 'a process');
              failures.set(why, (failures.get(why) ?? 0) + 1);
              await new Promise((r) => setTimeout(r, 1_000));
            }
          }
        };
        await Promise.all(targets.map(deliver));
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, send));
    const sentIn = (performance.now() - started) / 1000;
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline && events.some((e) => !(slack.threads.get(e.ts)?.answers ?? 0)))
      await new Promise((r) => setTimeout(r, 200));
    const seconds = (lastAnswerAt(slack.threads) - started) / 1000;
    await new Promise((r) => setTimeout(r, 2_000)); // time for a second answer, were there one
    const answered = events.filter((e) => (slack.threads.get(e.ts)?.answers ?? 0) > 0).length;
    const duplicates = events.filter((e) => (slack.threads.get(e.ts)?.answers ?? 0) > 1).length;
    const strayPlaceholders = events.filter((e) => (slack.threads.get(e.ts)?.placeholders.size ?? 0) > 1).length;
    const backtestThread = [...slack.threads.entries()].find(([ts]) => !events.some((e) => e.ts === ts));
    console.log(
      `load: ${o.events} Slack mentions, ${o.classic ? 'placeholder edited into the answer (a Slack without streaming)' : 'each answer streamed into one message'} (${events.filter((e) => e.twice).length} delivered to both processes at once), ${o.concurrency} in flight, plus one whole-market /backtest (${o.tickers} tickers); one process killed with SIGKILL ${killedAt} and restarted`,
    );
    console.log(`all mentions delivered (acknowledged) ${sentIn.toFixed(1)} s after the start`);
    if (failures.size) console.log(`failed deliveries: ${[...failures].map(([why, n]) => `${n} × ${why}`).join('; ')}`);
    console.log(
      `ack: p50 ${quantile(acks, 0.5).toFixed(1)} ms, p99 ${quantile(acks, 0.99).toFixed(1)} ms, max ${Math.max(...acks).toFixed(0)} ms (${acks.length} requests; ${retried} deliveries failed and were retried)`,
    );
    console.log(
      `/healthz of both processes during the run: p99 ${quantile(health, 0.99).toFixed(1)} ms, max ${Math.max(...health).toFixed(0)} ms (${health.length} polls)`,
    );
    // from the mention's delivery to its first answer: in the busy channel and in the quiet ones (--busy), or in all
    const wait = (of: (e: (typeof events)[number]) => boolean) =>
      events.filter((e) => of(e) && slack.threads.get(e.ts)?.answeredAt).map((e) => slack.threads.get(e.ts)!.answeredAt! - e.sentAt);
    const line = (xs: number[]) =>
      `${xs.length} answers, p50 ${(quantile(xs, 0.5) / 1000).toFixed(2)} s, p99 ${(quantile(xs, 0.99) / 1000).toFixed(2)} s`;
    if (o.busy !== undefined)
      console.log(
        `wait for an answer (ANSWERING_PER_CHANNEL at its default): busy channel ${line(wait((e) => e.channel === 'C0'))}; quiet channels ${line(wait((e) => e.channel !== 'C0'))}`,
      );
    else console.log(`wait for an answer (per-channel cap lifted): ${line(wait(() => true))}`);
    console.log(
      `answered ${answered} of ${o.events} in ${seconds.toFixed(1)} s (${(answered / seconds).toFixed(1)} answers/s); duplicates ${duplicates}; threads with a stray placeholder ${strayPlaceholders}; missing ${o.events - answered}; whole-market backtest ${backtestThread?.[1].answeredAt ? `answered after ${((backtestThread[1].answeredAt - started) / 1000).toFixed(1)} s` : 'NOT answered'}`,
    );
  } finally {
    polling = false;
    await Promise.all(pollers);
    for (const b of bots) b.child.kill('SIGTERM');
    await slack.close();
  }
}
