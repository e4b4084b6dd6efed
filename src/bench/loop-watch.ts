// What the event loop goes through while some work runs in this process: its
// delay (monitorEventLoopDelay) and a /healthz served here and polled every
// 20 ms, as a receiver's acknowledgements would wait. Used by the backtest and
// event-loop benches.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { quantile } from './stats.js';

/** What the event loop went through while `work` ran: its delay, and a /healthz polled every 20 ms. */
export async function watchLoop<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; loopP99: number; loopMax: number; healthP99: number; healthMax: number; polls: number }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t = performance.now();
      await new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve());
          })
          .on('error', reject);
      });
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const started = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - started;
    // a stall that ends with the work is recorded at the histogram's next tick
    await new Promise((r) => setTimeout(r, 30));
    histogram.disable();
    return {
      value,
      ms,
      loopP99: histogram.percentile(99) / 1e6,
      loopMax: histogram.max / 1e6,
      healthP99: quantile(latencies, 0.99),
      healthMax: Math.max(...latencies),
      polls: latencies.length,
    };
  } finally {
    polling = false;
    await poll;
    agent.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
