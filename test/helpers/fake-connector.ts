// A local stand-in for the Bot Framework connector (the activity's serviceUrl):
// POST /v3/conversations/{id}/activities[/{replyToId}] and PUT .../{activityId},
// recording every activity the bot sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

export interface ConnectorCall {
  verb: 'send' | 'reply' | 'update';
  conversationId: string;
  activityId?: string;
  activity: Record<string, unknown>;
}

export interface FakeConnector {
  serviceUrl: string;
  calls: ConnectorCall[];
  waitFor(pred: (c: ConnectorCall) => boolean, timeoutMs?: number): Promise<ConnectorCall>;
  close(): Promise<void>;
}

export async function startFakeConnector(): Promise<FakeConnector> {
  let seq = 0;
  const fake: FakeConnector = {
    serviceUrl: '',
    calls: [],
    close: async () => undefined,
    waitFor: (pred, timeoutMs) =>
      waitFor(
        () => fake.calls.find(pred),
        () => `connector calls: ${fake.calls.map((c) => `${c.verb}:${c.activity.type}`).join(', ')}`,
        timeoutMs,
      ),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const m = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(req.url ?? '');
      if (!m) return res.writeHead(404).end();
      const conversationId = decodeURIComponent(m[1]);
      const activityId = m[2] ? decodeURIComponent(m[2]) : undefined;
      const verb = req.method === 'PUT' ? 'update' : activityId ? 'reply' : 'send';
      fake.calls.push({ verb, conversationId, activityId, activity: JSON.parse(body || '{}') });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: verb === 'update' ? activityId : `act-${++seq}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
