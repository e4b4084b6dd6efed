// A local WebSocket server that speaks Slack's Socket Mode protocol, for the
// bot's Socket Mode (SLACK_APP_TOKEN). The fake Web API (fake-slack.ts)
// answers apps.connections.open with this server's ws:// URL; a client that
// connects gets `hello`, then the envelopes a test sends
// ({envelope_id, type: events_api | slash_commands | interactive, payload,
// accepts_response_payload, and retry_attempt/retry_reason for events}), and
// must acknowledge each by sending {envelope_id, payload?} back, which is
// recorded with the time it took.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { waitFor } from './wait.js';

type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

interface Envelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

interface Ack {
  envelope_id: string;
  /** what the client sent with the ack ({} for a bare ack; the slash command's response, say) */
  payload?: Record<string, unknown>;
  /** ms from sending the envelope to receiving its ack */
  ms: number;
}

export interface FakeSocketMode {
  /** the ws:// URL apps.connections.open hands out */
  url: string;
  /** how many connections were opened (each got a hello) */
  connections: number;
  acks: Ack[];
  /** messages from the client that are not acks of a known envelope */
  stray: unknown[];
  /** waits until a client is connected and has been sent hello */
  connected(timeoutMs?: number): Promise<void>;
  /** sends an envelope to the connected client; returns its envelope_id */
  send(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    o?: { envelopeId?: string; retryAttempt?: number; retryReason?: string; acceptsResponsePayload?: boolean },
  ): string;
  /** waits for the ack of an envelope */
  ackOf(envelopeId: string, timeoutMs?: number): Promise<Ack>;
  /** asks the client to reconnect, as Slack does before recycling a connection */
  disconnect(reason?: 'warning' | 'refresh_requested' | 'link_disabled'): void;
  close(): Promise<void>;
}

export async function startFakeSocketMode(appId = 'A1'): Promise<FakeSocketMode> {
  const server = http.createServer((_req, res) => res.writeHead(426).end('WebSocket only'));
  const wss = new WebSocketServer({ server, path: '/link' });
  const sentAt = new Map<string, number>();
  let current: WebSocket | undefined;
  let helloed = false;

  wss.on('connection', (socket) => {
    current = socket;
    fake.connections++;
    socket.on('message', (data, isBinary) => {
      let message: { envelope_id?: string; payload?: Record<string, unknown> } | undefined;
      try {
        message = isBinary ? undefined : JSON.parse(data.toString());
      } catch {
        /* recorded below */
      }
      const id = message?.envelope_id;
      if (!id || !sentAt.has(id)) {
        fake.stray.push(message ?? data.toString());
        return;
      }
      fake.acks.push({ envelope_id: id, payload: message!.payload, ms: Date.now() - sentAt.get(id)! });
    });
    socket.on('close', () => {
      if (current === socket) {
        current = undefined;
        helloed = false;
      }
    });
    // Slack's hello: the connection is ready for envelopes
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: appId },
      }),
    );
    helloed = true;
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  const fake: FakeSocketMode = {
    url: `ws://127.0.0.1:${port}/link`,
    connections: 0,
    acks: [],
    stray: [],
    connected: (timeoutMs = 10_000) =>
      waitFor(
        () => (current && helloed ? true : undefined),
        () => `no Socket Mode client connected (${fake.connections} connections so far)`,
        timeoutMs,
      ).then(() => undefined),
    send(type, payload, o = {}) {
      if (!current) throw new Error('no Socket Mode client is connected');
      const envelope: Envelope = {
        envelope_id: o.envelopeId ?? randomUUID(),
        type,
        payload,
        accepts_response_payload: o.acceptsResponsePayload ?? type !== 'events_api',
        ...(type === 'events_api' ? { retry_attempt: o.retryAttempt ?? 0, retry_reason: o.retryReason ?? '' } : {}),
      };
      sentAt.set(envelope.envelope_id, Date.now());
      current.send(JSON.stringify(envelope));
      return envelope.envelope_id;
    },
    ackOf: (envelopeId, timeoutMs = 10_000) =>
      waitFor(
        () => fake.acks.find((a) => a.envelope_id === envelopeId),
        () => `no ack of envelope ${envelopeId}; acks: ${fake.acks.map((a) => a.envelope_id).join(', ') || 'none'}`,
        timeoutMs,
      ),
    disconnect(reason = 'refresh_requested') {
      current?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }));
    },
    close: () =>
      new Promise((r) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => server.close(() => r()));
      }),
  };
  return fake;
}
