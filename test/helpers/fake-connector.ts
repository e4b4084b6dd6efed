// A local stand-in for the Bot Framework connector (the activity's serviceUrl):
// POST /v3/conversations/{id}/activities[/{replyToId}] and PUT .../{activityId},
// recording every activity the bot sends. It streams as Teams does
// (learn.microsoft.com "Stream bot messages"): in personal chats only, a
// typing activity with a streaminfo entity and no streamId starts a stream
// (201, its id), later ones name it (202), the final message (streamType
// final) ends it and is the message of the stream's id; a stream past its
// cap, or ended, answers 403 ContentStreamNotAllowed.
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
  /** how long a stream may run before Teams ends it (two minutes) */
  streamCapMs: number;
  /** conversations the bot was removed from: Teams answers 403 to anything sent there */
  gone: Set<string>;
  /** the messages that stay in a conversation: what a person sees there (typing and informative updates do not) */
  messagesIn(conversationId: string): ConnectorCall[];
  waitFor(pred: (c: ConnectorCall) => boolean, timeoutMs?: number): Promise<ConnectorCall>;
  close(): Promise<void>;
}

export async function startFakeConnector(): Promise<FakeConnector> {
  let seq = 0;
  const streams = new Map<string, { startedAt: number; ended: boolean }>();
  const fake: FakeConnector = {
    serviceUrl: '',
    calls: [],
    streamCapMs: 120_000,
    gone: new Set(),
    messagesIn: (conversationId) =>
      fake.calls.filter((c) => c.conversationId === conversationId && c.verb !== 'update' && c.activity.type === 'message'),
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
      const activity = JSON.parse(body || '{}') as Record<string, unknown>;
      const answer = (status: number, o: Record<string, unknown>) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (fake.gone.has(conversationId))
        return answer(403, { error: { code: 'BotNotInConversationRoster', message: 'The bot is not part of the conversation roster.' } });
      const info = ((activity.entities as { type?: string }[] | undefined) ?? []).find((e) => e.type === 'streaminfo') as
        { streamId?: string; streamType?: string; streamSequence?: number } | undefined;
      if (info && verb !== 'update') {
        const refuse = (message: string) => answer(403, { error: { code: 'ContentStreamNotAllowed', message } });
        const personal = (activity.conversation as { conversationType?: string } | undefined)?.conversationType === 'personal';
        if (!personal) return refuse('Content stream is not allowed');
        if (!info.streamId) {
          if (activity.type !== 'typing' || !activity.text)
            return answer(400, { error: { code: 'BadRequest', message: 'Start streaming activities should include text' } });
          const id = `act-${++seq}`;
          streams.set(id, { startedAt: Date.now(), ended: false });
          fake.calls.push({ verb, conversationId, activityId: id, activity });
          return answer(201, { id });
        }
        const stream = streams.get(info.streamId);
        if (!stream) return answer(400, { error: { code: 'BadRequest', message: 'unknown streamId' } });
        if (stream.ended) return refuse('Content stream is not allowed on an already completed streamed message');
        if (Date.now() - stream.startedAt > fake.streamCapMs) return refuse('Content stream finished due to exceeded streaming time.');
        if (info.streamType === 'final') stream.ended = true;
        fake.calls.push({ verb, conversationId, activityId: info.streamType === 'final' ? info.streamId : undefined, activity });
        return answer(202, {});
      }
      fake.calls.push({ verb, conversationId, activityId, activity });
      answer(200, { id: verb === 'update' ? activityId : `act-${++seq}` });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
