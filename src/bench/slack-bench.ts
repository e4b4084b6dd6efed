// npm run bench -- slack: how fast the Slack endpoint acknowledges signed
// events and slash commands (p50/p99 over a few hundred requests), with the
// agents working behind it. The Web API is a minimal local stub that answers
// ok to everything: this measures our ack path, not Slack.
import { quantile } from './stats.js';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { createDesk } from '../agents/create-desk.js';
import { createSlackApp } from '../channels/slack/slack-app.js';
import { openDatabase } from '../db/database.js';
import { startHttpServer } from '../server/http-server.js';
import { startJobs } from '../jobs/runtime.js';
import { configuredPlatforms } from '../channels/platforms.js';

export async function slackBench(base: Config, logger: Logger, requests: number): Promise<void> {
  const stub = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, ts: `${Date.now() / 1000}`, user_id: 'UBOT', bot_id: 'B', team_id: 'T' })),
    );
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const secret = 'bench-secret';
  const config = {
    ...base,
    ...loadConfig({
      ...process.env,
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}/api/`,
      RATE_LIMIT_USER_PER_MINUTE: '10000',
      RATE_LIMIT_CHANNEL_PER_MINUTE: '10000',
      THREAD_MEMORY_URL: 'memory',
    }),
  };
  const db = await openDatabase(config, logger);
  const { desk, memory } = createDesk(config, db, logger);
  const { outboxes } = configuredPlatforms({ config, pool: db.write, logger, chartLink: () => '' });
  const jobs = await startJobs({ pool: db.write, desk, logger, settings: config.jobs, work: true, outboxes });
  const app = createSlackApp({ config, desk, readPool: db.read, writePool: db.write, logger, queue: jobs.queue });
  const server = await startHttpServer('127.0.0.1', 0, [app.route!], logger);
  const sign = (body: string) => {
    const ts = Math.floor(Date.now() / 1000);
    return {
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
    };
  };
  const time = async (body: string, type: string) => {
    const t = performance.now();
    const res = await fetch(`${server.url}/slack/events`, { method: 'POST', headers: { 'content-type': type, ...sign(body) }, body });
    await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return performance.now() - t;
  };
  try {
    const events: number[] = [];
    for (let i = 0; i < requests; i++) {
      const ts = `1900000000.${String(i).padStart(6, '0')}`;
      const body = JSON.stringify({
        type: 'event_callback',
        event_id: `EvBench${i}`,
        team_id: 'T',
        api_app_id: 'A',
        event_time: 1,
        event: { type: 'app_mention', user: 'U1', channel: 'C1', text: '<@UBOT> How many thefts were reported in 2019?', ts, event_ts: ts },
      });
      events.push(await time(body, 'application/json'));
    }
    const commands: number[] = [];
    for (let i = 0; i < requests; i++) {
      const body = new URLSearchParams({
        command: '/backtest',
        text: 'help',
        user_id: 'U1',
        channel_id: 'C1',
        team_id: 'T',
        response_url: 'http://127.0.0.1:1/r',
        trigger_id: 't',
      }).toString();
      commands.push(await time(body, 'application/x-www-form-urlencoded'));
    }
    console.log(
      `event ack (app_mention, ${requests} signed requests): p50 ${quantile(events, 0.5).toFixed(1)} ms, p99 ${quantile(events, 0.99).toFixed(1)} ms, max ${Math.max(...events).toFixed(1)} ms`,
    );
    console.log(
      `slash command ack (/backtest help, ${requests} signed requests): p50 ${quantile(commands, 0.5).toFixed(1)} ms, p99 ${quantile(commands, 0.99).toFixed(1)} ms, max ${Math.max(...commands).toFixed(1)} ms`,
    );
  } finally {
    await new Promise((r) => setTimeout(r, 2_000)); // let the answers behind the acks finish
    await server.close();
    await jobs.stop();
    await memory.close();
    await db.close();
    stub.close();
  }
}
