// The local playground's HTTP side: the page and two
// endpoints that stream a question's progress and its Answer as Server-Sent
// Events. It adapts HTTP to the desk's InboundMessage, queues it as a job like
// every channel does, follows the job's progress (job-events.ts) and sends the
// Answer as JSON; the page renders it (public/app.js). Who may use it is decided in
// playground-access.ts; the checks run here, before any work. Chart images
// are served by chartRoutes (server/chart-routes.ts) from the same ChartStore.
import { typedCommand } from '../../agents/typed-command.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../agents/desk.js';
import { loadConfigFromProcess } from '../../config/load.js';
import type { Answer, AnswerTable } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import { packageRoot } from '../../core/paths.js';
import { RateLimiter, turnCost } from '../../core/rate-limit.js';
import type { ChartStore } from '../../charts/chart-store.js';
import type { Route } from '../../server/http-server.js';
import type { AnswerJob } from '../../jobs/answer-job.js';
import type { Deliveries } from '../../jobs/deliveries.js';
import type { JobEvents } from '../../jobs/job-events.js';
import type { AnswerQueue } from '../../jobs/queue.js';
import { GAVE_UP_MESSAGE } from '../../jobs/answer-worker.js';
import { makeAnswer } from '../../core/answer.js';
import { exportSourceOf, type ExportSettings } from '../../export/csv-export.js';
import { sendCsvExport } from '../../export/csv-response.js';
import { formatSql } from './format-sql.js';
import { decodeRerun, encodeRerun } from '../../core/rerun.js';
import type pg from 'pg';
import { recordFeedback } from '../../feedback/feedback.js';
import type { VerifiedStore } from '../../verified/verified-store.js';
import { UserError } from '../../core/errors.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../db/errors.js';
import { receive } from '../inbox.js';
import {
  checkOrigin,
  hasToken,
  isToken,
  needsToken,
  playgroundAccess,
  playgroundOff,
  tokenCookie,
  type PlaygroundAccess,
  type Refusal,
} from './playground-access.js';
import { isLoopback } from '../../server/host-names.js';

const PUBLIC = path.join(packageRoot, 'src', 'channels', 'web', 'public');
const STATIC: Record<string, string> = { '/': 'index.html', '/app.js': 'app.js', '/style.css': 'style.css' };
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const API = new Set(['/api/ask', '/api/choose', '/api/feedback']);
/** a download link: the thread (128 secret bits) and the answer's id */
const EXPORT_PATH = /^\/api\/export\/([0-9a-f]{32})\/([0-9a-f-]{36})\.csv$/;
/** The page loads only its own files and talks only to this server; no other site may frame it. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
/** How long the page waits before saying no worker has taken its question, and before it stops waiting. */
const NO_WORKER_AFTER_MS = 20_000;
const GIVE_UP_WAITING_MS = 10 * 60_000;
/** While events arrive, the row is read when the answer's end is told, and this often anyway (a notification gone astray). */
const LOOK_ANYWAY_MS = 5_000;
/** 128 random bits from the page's crypto.getRandomValues: a thread cannot be guessed, so it cannot be read or continued by another. */
const THREAD_ID = /^[0-9a-f]{32}$/;

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage, limit = 64 * 1024): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new BadRequest(413, `The request is over ${limit / 1024} KB.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadRequest(400, 'The request is not valid JSON. Send {"thread": "<32 hex digits>", "text": "..."}.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new BadRequest(400, 'Send a JSON object: {"thread": "<32 hex digits>", "text": "..."}.');
  return parsed as Record<string, unknown>;
}

const isJson = (req: http.IncomingMessage) => (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === 'application/json';

function refuse(res: http.ServerResponse, r: Refusal): true {
  res
    .writeHead(r.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...r.headers })
    .end(JSON.stringify({ error: r.error }));
  return true;
}

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
  return (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface PlaygroundDeps {
  queue: AnswerQueue;
  deliveries: Deliveries;
  events: JobEvents;
  charts: ChartStore;
  logger: Logger;
  /** where thumbs up and down are kept, and the pairs a thumbs-up promotes */
  feedback?: { pool: pg.Pool; verified: VerifiedStore };
  /** where "Download CSV" reads from (no link without it) */
  exports?: ExportSettings;
  /** HOST, PLAYGROUND_TOKEN and friends (playgroundAccess(config)); read from the environment as `serve` reads it when not given */
  access?: PlaygroundAccess;
}

/** Rows of a table the page gets: it shows the first 10, and the browser keeps every thread (localStorage, a few MB). */
const PAGE_ROWS = 100;

/** The answer with its tables cut to what the page can show (rowCount stays: Download CSV has every row). */
function shortened(answer: Answer): Answer {
  if (answer.kind !== 'result') return answer;
  const cut = (t: AnswerTable): AnswerTable =>
    t.rows.length <= PAGE_ROWS ? t : { ...t, rows: t.rows.slice(0, PAGE_ROWS), truncated: true };
  return {
    ...answer,
    ...(answer.table ? { table: cut(answer.table) } : {}),
    extraTables: answer.extraTables.map((e) => ({ ...e, table: cut(e.table) })),
  };
}

/** The route, and whether it serves anything (off on a non-loopback HOST without a token). */
export type PlaygroundRoute = Route & { enabled: boolean };

export function playgroundRoutes(deps: PlaygroundDeps): PlaygroundRoute {
  const access = deps.access ?? playgroundAccess(loadConfigFromProcess());
  const off = playgroundOff(access);
  if (off) deps.logger.warn(`Playground: ${off}`);
  // a client's bucket: a question costs 1, a follow-up fragment or button 0.5 (turnCost); a refused one is not
  // queued, so it never enters the thread the desk remembers, and the page drops it from its own copy
  const limiter = new RateLimiter(access.perMinute, Date.now, access.burst);
  // clicks (a clarification's choice, 👍/👎) are no new questions: they have a budget of their own, so normal use
  // (a question, its choice, a verdict) never hits "Too many questions"
  const clicks = new RateLimiter(access.perMinute * 6);

  /** The answer as sent to the page: the Answer, the URLs of its chart image, and where to download its rows as CSV. */
  const forPage = (kept: Answer, key: string | undefined) => {
    const answer = shortened(kept);
    const exportUrl = key && deps.exports && exportSourceOf(answer) ? `/api/export/${key.split(':').slice(1).join('/')}.csv` : null;
    const exportLimit = exportUrl ? deps.exports!.rowLimit : null;
    // the answer's id in this thread: what feedback names
    const answerId = key ? key.split(':')[2] : null;
    const sqlShown = answer.kind === 'result' ? answer.sql.map(formatSql) : [];
    // "Re-run": the value the page posts back to /api/ask (the plan and the numbers then; core/rerun.ts), as Slack's button carries it
    const rerun = encodeRerun(kept) ?? null;
    if (answer.kind !== 'result' || !answer.chart) return { answer, chartUrl: null, exportUrl, exportLimit, sqlShown, answerId, rerun };
    // drawn when the page fetches them: a page shows one of the two (the phone's on a narrow screen), the other is never drawn
    const [wide, phone] = deps.charts.putLater(answer.chart, ['full', 'phone']);
    return {
      answer,
      chartUrl: `/charts/${wide}.png`,
      // the same chart laid out for a phone's width: its labels stay readable there
      phoneChartUrl: `/charts/${phone}.png`,
      exportUrl,
      exportLimit,
      sqlShown,
      answerId,
      rerun,
    };
  };

  /** GET /api/export/<thread>/<id>.csv: all rows of that answer's query, streamed. */
  const exportCsv = async (req: http.IncomingMessage, res: http.ServerResponse, thread: string, id: string) => {
    const row = await deps.deliveries.get(`web:${thread}:${id}`);
    await sendCsvExport(res, row?.answer, deps.exports, deps.logger, req.socket.remoteAddress ?? 'unknown');
  };

  /** Answers one question or choice as Server-Sent Events. */
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => {
    const body = await readJson(req);
    const thread = typeof body.thread === 'string' && THREAD_ID.test(body.thread) ? body.thread : undefined;
    if (!thread) throw new BadRequest(400, 'thread must be 32 lowercase hex digits (128 random bits, e.g. from crypto.getRandomValues).');
    if (pathname === '/api/feedback') {
      // a curator's 👍 changes answers for everyone: only the person at this machine (a loopback playground, a loopback
      // client) is one; a shared playground behind PLAYGROUND_TOKEN keeps every verdict but verifies nothing
      if (typeof body.answer !== 'string' || !/^[0-9a-f-]{36}$/.test(body.answer) || (body.verdict !== 'up' && body.verdict !== 'down')) {
        throw new BadRequest(400, 'Send {"thread": "...", "answer": "<the answer id>", "verdict": "up" | "down"}.');
      }
      if (!deps.feedback) throw new BadRequest(404, 'Feedback is not kept by this server.');
      try {
        const outcome = await recordFeedback(deps.feedback.pool, deps.deliveries, deps.feedback.verified, {
          deliveryKey: `web:${thread}:${body.answer}`,
          platform: 'web',
          userId: `playground:${thread.slice(0, 8)}`,
          verdict: body.verdict,
          curator: isLoopback(access.host) && !access.token && isLoopback(req.socket.remoteAddress ?? ''),
        });
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(outcome));
      } catch (error) {
        if (error instanceof UserError) throw new BadRequest(404, error.message);
        throw error;
      }
      return;
    }
    // a browser thread is one person's conversation: the per-channel limit of answers at once applies to it, not to
    // every playground user together (200 people asking at once waited behind a shared limit of 3)
    const base = { platform: 'web' as const, threadId: `web:${thread}`, channel: `playground:${thread}` };
    let message: InboundMessage;
    let action: AnswerJob['action'] = { type: 'answer' };
    if (pathname === '/api/ask') {
      const text = typeof body.text === 'string' ? body.text.trim().slice(0, 2_000) : '';
      if (!text)
        throw new BadRequest(400, 'text must be the question, e.g. {"thread": "...", "text": "How many thefts were reported in 2019?"}.');
      const typed = typedCommand(text);
      // a Re-run button sends the answer's value (its plan and its numbers then): the plan is asked again, and the answer
      // says what changed since
      const rerun = body.rerun === undefined ? undefined : typeof body.rerun === 'string' ? decodeRerun(body.rerun) : undefined;
      if (body.rerun !== undefined && !rerun)
        throw new BadRequest(400, "rerun must be the value of an answer's Re-run button, as the page received it; ask the question again.");
      // a follow-up button sends the plan it asks (the edit of the answer it sits under)
      const plan =
        rerun?.plan ??
        (typed.kind === 'question' && body.plan && typeof body.plan === 'object' && !Array.isArray(body.plan)
          ? (body.plan as Record<string, unknown>)
          : undefined);
      const wait = limiter.take(req.socket.remoteAddress ?? 'unknown', turnCost({ text, click: plan !== undefined }));
      if (wait > 0) {
        throw new BadRequest(429, `Too many questions: at most ${access.perMinute} a minute. Try again in ${wait} s.`, {
          'retry-after': String(wait),
        });
      }
      message = rerun
        ? { ...base, text: 'Re-run on today’s data', plan: rerun.plan, rerun: rerun.baseline }
        : { ...base, ...typed, ...(plan ? { plan } : {}) };
    } else {
      if (typeof body.term !== 'string' || typeof body.option !== 'string')
        throw new BadRequest(400, 'term and option must be strings, as in the clarifying question.');
      message = { ...base, text: `(choice ${body.term}=${body.option})` };
      action = { type: 'choose', term: body.term, option: body.option };
    }
    const send = sse(res);
    let answer: Answer;
    let key: string | undefined;
    try {
      ({ answer, key } = await answerAsJob(message, action, (step) => send('progress', { step })));
    } catch (error) {
      // the queue lives in the database: without it the question cannot be taken, and the page is told so
      if (!isDatabaseUnavailable(error)) throw error;
      deps.logger.warn(`playground: ${(error as Error).message}`);
      answer = makeAnswer({
        kind: 'error',
        route: message.kind === 'backtest' ? 'backtest' : 'sql',
        trace: [],
        retryable: true,
        message: DATABASE_UNAVAILABLE_MESSAGE,
      });
    }
    send('answer', forPage(answer, key));
    res.end();
  };

  /**
   * Queues the question and waits for its answer, relaying progress. The answer usually comes with the notice of
   * the question's end (Deliveries.finish notifies at commit); the row is read when it did not fit there, when the
   * end is failed, or when events may have been missed (the LISTEN connection lost:
   * then every second until it is back); otherwise only every LOOK_ANYWAY_MS, in case a notification went astray.
   */
  const answerAsJob = async (
    message: InboundMessage,
    action: AnswerJob['action'],
    progress: (step: string) => void,
  ): Promise<{ answer: Answer; key: string }> => {
    const key = `web:${message.threadId.slice(4)}:${randomUUID()}`;
    let look = false;
    let told: Answer | undefined;
    let wake = () => {};
    const unsubscribe = await deps.events.subscribe(key, (event) => {
      if ('step' in event) return progress(event.step);
      if ('answer' in event) told = event.answer;
      look = true;
      wake();
    });
    try {
      const started = action.type === 'choose' ? 'Applying your choice' : 'Starting';
      await receive(deps, { key, message, action, reply: { platform: 'web' } }, async (inLine) => progress(inLine ?? started));
      const since = Date.now();
      let toldNoWorker = false;
      for (;;) {
        if (!look) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, deps.events.listening ? LOOK_ANYWAY_MS : 1_000);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        // the answer came with the notice of its end: nothing to read
        if (told) return { answer: told, key };
        look = false;
        const row = await deps.deliveries.get(key);
        if (row?.status === 'answered' && row.answer) return { answer: row.answer, key };
        if (row?.status === 'failed')
          return { answer: makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: GAVE_UP_MESSAGE }), key };
        // nobody has started it: say so (a `serve --no-worker` with no `datadesk worker` running); it stays queued for when one starts
        if (row?.status === 'queued' && !toldNoWorker && Date.now() - since > NO_WORKER_AFTER_MS) {
          toldNoWorker = true;
          progress('Still waiting for a worker to take your question (is a `datadesk worker` running?)');
        }
        if (Date.now() - since > GIVE_UP_WAITING_MS) {
          return {
            answer: makeAnswer({
              kind: 'error',
              route: 'sql',
              trace: [],
              retryable: true,
              message:
                'No worker took your question within 10 minutes. Start `datadesk worker` (or run `serve` without --no-worker) and ask again.',
            }),
            key,
          };
        }
      }
    } finally {
      unsubscribe();
    }
  };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const isStatic = req.method === 'GET' && STATIC[url.pathname] !== undefined;
    const isApi = req.method === 'POST' && API.has(url.pathname);
    const exportOf = req.method === 'GET' ? EXPORT_PATH.exec(url.pathname) : null;
    if (!isStatic && !isApi && !exportOf) return false;
    if (off) return refuse(res, { status: 404, error: `Not served: ${off}` });
    const wrongOrigin = checkOrigin(req, access);
    if (wrongOrigin) return refuse(res, wrongOrigin);
    if (access.token) {
      const offered = url.searchParams.get('token');
      if (isStatic && url.pathname === '/' && offered !== null) {
        // the link with the token: trade it for a cookie, and take it out of the address bar
        if (!isToken(offered, access.token)) {
          return refuse(res, { status: 401, error: "That token is not this playground's PLAYGROUND_TOKEN." });
        }
        res
          .writeHead(303, {
            location: '/',
            'set-cookie': tokenCookie(req, access.token),
            'cache-control': 'no-store',
            'referrer-policy': 'no-referrer',
          })
          .end();
        return true;
      }
      if (!hasToken(req, access.token)) return refuse(res, needsToken());
    }
    if (isStatic) {
      const file = STATIC[url.pathname];
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)], 'cache-control': 'no-cache', ...PAGE_HEADERS });
      res.end(await readFile(path.join(PUBLIC, file)));
      return true;
    }
    if (exportOf) {
      // a download is a click: counted like one, so a script cannot start exports without end
      const wait = clicks.take(req.socket.remoteAddress ?? 'unknown');
      if (wait > 0)
        return refuse(res, { status: 429, error: `Too many downloads. Try again in ${wait} s.`, headers: { 'retry-after': String(wait) } });
      await exportCsv(req, res, exportOf[1], exportOf[2]);
      return true;
    }
    // a form or a no-cors fetch from another site can only send text/plain, form data or multipart
    if (!isJson(req)) return refuse(res, { status: 415, error: 'Send the request as JSON, with Content-Type: application/json.' });
    // a question is counted once its text is read (a fragment costs less: see answer()); a click here
    const wait = url.pathname === '/api/ask' ? 0 : clicks.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      const error = `Too many clicks: at most ${access.perMinute * 6} a minute. Try again in ${wait} s.`;
      return refuse(res, { status: 429, error, headers: { 'retry-after': String(wait) } });
    }
    try {
      await answer(req, res, url.pathname);
    } catch (error) {
      if (error instanceof BadRequest && !res.headersSent) {
        return refuse(res, { status: error.status, error: error.message, headers: error.headers });
      }
      throw error;
    }
    return true;
  };
  return Object.assign(route, { enabled: !off });
}
