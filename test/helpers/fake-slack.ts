// A local stand-in for the Slack Web API over real HTTP (Bolt's client points
// at it through slackApiUrl). It implements the methods the bot uses, the
// external file upload, and response_url, and records every call.
import { createHmac } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import type { Config } from '../../src/config/env.js';
import { clientOptionsOf } from '../../src/channels/slack/slack-app.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';
import { streamChunkProblems, unfurlProblems, viewProblems } from './block-kit-limits.js';

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** the token the call was made with (its Authorization header, or a token argument) */
  token?: string;
  /** refused with HTTP 429 (see FakeSlack.rateLimit) */
  limited?: boolean;
}

/** A workspace's "Allow" on Slack's authorize page, as oauth.v2.access answers it for its code. */
interface FakeGrant {
  teamId: string;
  teamName: string;
  botToken: string;
  installer: string;
  /** an org-wide install of this enterprise (team is then null) */
  enterpriseId?: string;
}

export interface FakeSlack {
  apiUrl: string;
  calls: SlackCall[];
  /** Slack error codes the next chat.postMessage calls answer with (ok: false) */
  failPostMessage: string[];
  /** channels this token cannot reach: every call naming one is refused with its code (channel_not_found, not_in_channel, …) */
  unreachableChannels: Map<string, string>;
  /** Slack error codes the next chat.update calls that carry blocks (an answer, not a progress line) answer with */
  failAnswerUpdate: string[];
  /** block types this Slack does not take: a message carrying one is refused with invalid_blocks (an older workspace) */
  refuseBlockTypes: Set<string>;
  /** whether this Slack has chat.startStream / appendStream / stopStream; off (the default): they answer unknown_method */
  streaming: boolean;
  /** a stream with no append for this long is no longer streaming (message_not_in_streaming_state), as Slack expires them */
  streamIdleMs: number;
  uploads: { fileId: string; bytes: Buffer }[];
  /** messages posted (chat.postMessage that answered ok), with their metadata: what conversations.history reads */
  messages: FakeSlackMessage[];
  /** Slack error codes the next files.completeUploadExternal calls answer with (a failed chart upload) */
  failFileUpload: string[];
  /** the next chat.postMessage calls are posted, but their reply is lost: 'hang' never answers, 'reset' drops the connection */
  losePostMessageReply: ('hang' | 'reset')[];
  /** the clock message ts are made from (ms); unset: fixed ts from 1700000101 on */
  now?: () => number;
  /** what apps.connections.open answers (Socket Mode): a fake-socket-mode.ts URL; unset: the method fails */
  socketModeUrl?: string;
  /** OAuth: the app's credentials oauth.v2.access checks, and the codes it takes (each once) */
  oauthApp: { clientId: string; clientSecret: string };
  grants: Map<string, FakeGrant>;
  /** the workspace each bot token belongs to (auth.test answers with it); tokens not listed are T1's; revoked ones answer invalid_auth */
  tokenTeams: Map<string, string>;
  revokedTokens: Set<string>;
  /** the next calls of these methods are refused with HTTP 429 and this Retry-After (seconds), as Slack rate-limits */
  rateLimit: { method: string; retryAfter: number }[];
  /**
   * links Slack sent link_shared for (the test posts the event and records them here): chat.unfurl takes only these,
   * under `${channel}:${message_ts}` for a posted message, or the event's unfurl_id for a link in the composer
   */
  sharedLinks: Map<string, string[]>;
  close(): Promise<void>;
  /** waits until a call matching `pred` was recorded (or fails after timeoutMs) */
  waitFor(pred: (c: SlackCall) => boolean, timeoutMs?: number): Promise<SlackCall>;
  of(method: string): SlackCall[];
}

interface FakeSlackMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown[];
  /** whose bot posted it: this app's (BBOT) unless told (another app's message in the thread) */
  bot_id?: string;
  /** a streamed message: open until stopped or idle for streamIdleMs; its chunks as appended */
  stream?: { open: boolean; lastAt: number; chunks: { type: string; [k: string]: unknown }[] };
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** a file shared into the channel or thread (files.completeUploadExternal), as Slack lists it there */
  files?: { id: string; name: string; title?: string }[];
}

function parseArgs(contentType: string | undefined, body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  const raw: Record<string, unknown> = contentType?.includes('application/json')
    ? text
      ? JSON.parse(text)
      : {}
    : Object.fromEntries(new URLSearchParams(text));
  for (const key of ['blocks', 'files', 'view', 'attachments', 'metadata', 'chunks', 'unfurls', 'user_auth_blocks']) {
    if (typeof raw[key] === 'string') raw[key] = JSON.parse(raw[key] as string);
  }
  return raw;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  let seq = 0;
  const fileNames = new Map<string, string>();
  const nextTs = () =>
    fake.now
      ? `${Math.floor(fake.now() / 1000)}.${String(++seq).padStart(6, '0')}`
      : `1700000${String(100 + ++seq).padStart(3, '0')}.000${seq}00`;
  const hung: http.ServerResponse[] = [];
  const fake: FakeSlack = {
    apiUrl: '',
    calls: [],
    failPostMessage: [],
    unreachableChannels: new Map(),
    failAnswerUpdate: [],
    refuseBlockTypes: new Set(),
    streaming: false,
    streamIdleMs: 60_000,
    uploads: [],
    messages: [],
    failFileUpload: [],
    losePostMessageReply: [],
    close: async () => undefined,
    oauthApp: { clientId: '111.222', clientSecret: 'fake-client-secret' },
    grants: new Map(),
    tokenTeams: new Map(),
    revokedTokens: new Set(),
    rateLimit: [],
    sharedLinks: new Map(),
    of: (method) => fake.calls.filter((c) => c.method === method),
    waitFor: (pred, timeoutMs) =>
      waitFor(
        () => fake.calls.find(pred),
        () => `Slack calls: ${fake.calls.map((c) => c.method).join(', ')}`,
        timeoutMs,
      ),
  };
  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://x');
      const upload = /^\/upload\/(\w+)$/.exec(url.pathname);
      if (upload) {
        fake.uploads.push({ fileId: upload[1], bytes: body });
        fake.calls.push({ method: 'upload', args: { fileId: upload[1], size: body.length }, at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${body.length}`);
        return;
      }
      if (url.pathname.startsWith('/response/')) {
        fake.calls.push({ method: 'response_url', args: JSON.parse(body.toString() || '{}'), at: Date.now() });
        res.writeHead(200).end('ok');
        return;
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const args = parseArgs(req.headers['content-type'], body);
      const bearer = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1];
      const token = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
      fake.calls.push({ method, args, at: Date.now(), token });
      const reply = (o: Record<string, unknown>) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, ...o }));
      const refuse = (error: string) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error }));
      if (token && fake.revokedTokens.has(token)) return refuse('token_revoked');
      const limited = fake.rateLimit.findIndex((l) => l.method === method);
      if (limited >= 0) {
        const [{ retryAfter }] = fake.rateLimit.splice(limited, 1);
        fake.calls[fake.calls.length - 1].limited = true;
        return res
          .writeHead(429, { 'retry-after': String(retryAfter), 'content-type': 'application/json' })
          .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      }
      const unreachable = fake.unreachableChannels.get(String(args.channel ?? args.channel_id ?? ''));
      if (unreachable) return refuse(unreachable);
      switch (method) {
        case 'oauth.v2.access': {
          // the app authenticates with its client id and secret (HTTP Basic, or in the form), and trades the code once
          const basic = /^Basic (.*)$/.exec(req.headers.authorization ?? '')?.[1];
          const [id, secret] = basic
            ? Buffer.from(basic, 'base64').toString().split(':')
            : [String(args.client_id ?? ''), String(args.client_secret ?? '')];
          if (id !== fake.oauthApp.clientId || secret !== fake.oauthApp.clientSecret) return refuse('invalid_client');
          const grant = fake.grants.get(String(args.code ?? ''));
          if (!grant) return refuse('invalid_code');
          fake.grants.delete(String(args.code));
          fake.tokenTeams.set(grant.botToken, grant.teamId);
          return reply({
            app_id: 'A1',
            authed_user: { id: grant.installer },
            scope: 'app_mentions:read,chat:write,commands',
            token_type: 'bot',
            access_token: grant.botToken,
            bot_user_id: 'UBOT',
            team: grant.enterpriseId ? null : { id: grant.teamId, name: grant.teamName },
            enterprise: grant.enterpriseId ? { id: grant.enterpriseId, name: grant.teamName } : null,
            is_enterprise_install: Boolean(grant.enterpriseId),
          });
        }
        case 'apps.connections.open': {
          // Slack takes only an app-level token here
          const token = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? String(args.token ?? '');
          if (!token.startsWith('xapp-'))
            return res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ ok: false, error: 'not_allowed_token_type' }));
          if (!fake.socketModeUrl)
            return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'internal_error' }));
          return reply({ url: fake.socketModeUrl });
        }
        case 'auth.test':
          return reply({
            user_id: 'UBOT',
            bot_id: 'BBOT',
            team_id: (token && fake.tokenTeams.get(token)) ?? 'T1',
            team: 'Test',
            user: 'datadesk',
            url: 'https://test.slack.com/',
          });
        case 'chat.postMessage':
          if (refusedBlock(args.blocks, fake.refuseBlockTypes))
            return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'invalid_blocks' }));
          if (fake.failPostMessage.length) {
            return res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ ok: false, error: fake.failPostMessage.shift() }));
          }
          {
            const message: FakeSlackMessage = { channel: String(args.channel), ts: nextTs(), text: args.text as string | undefined };
            if (args.thread_ts) message.thread_ts = String(args.thread_ts);
            if (args.blocks) message.blocks = args.blocks as unknown[];
            if (args.metadata) message.metadata = args.metadata as FakeSlackMessage['metadata'];
            fake.messages.push(message);
            const lost = fake.losePostMessageReply.shift();
            if (lost === 'hang') return void hung.push(res);
            if (lost === 'reset') return void res.destroy();
            return reply({ channel: args.channel, ts: message.ts, message: { text: args.text } });
          }
        case 'conversations.history': {
          // top-level messages of the channel, newest first, in (oldest, latest) (inclusive: the ends too)
          const inclusive = ['true', '1'].includes(String(args.inclusive));
          const oldest = args.oldest === undefined ? -Infinity : Number(args.oldest);
          const latest = args.latest === undefined ? Infinity : Number(args.latest);
          const inRange = (ts: number) => (inclusive ? ts >= oldest && ts <= latest : ts > oldest && ts < latest);
          const all = fake.messages
            .filter((m) => m.channel === args.channel && (!m.thread_ts || m.thread_ts === m.ts) && inRange(Number(m.ts)))
            .sort((a, b) => Number(b.ts) - Number(a.ts));
          const from = Number(args.cursor ?? 0) || 0;
          const limit = Number(args.limit ?? 100) || 100;
          const page = all.slice(from, from + limit);
          const withMetadata = ['true', '1'].includes(String(args.include_all_metadata));
          return reply({
            messages: page.map((m) => ({
              type: 'message',
              ts: m.ts,
              text: m.text,
              bot_id: 'BBOT',
              ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
            })),
            has_more: from + limit < all.length,
            response_metadata: { next_cursor: from + limit < all.length ? String(from + limit) : '' },
          });
        }
        case 'conversations.replies': {
          // a thread: its parent and replies, oldest first
          const inThread = fake.messages
            .filter((m) => m.channel === args.channel && (m.ts === args.ts || m.thread_ts === args.ts))
            .sort((a, b) => Number(a.ts) - Number(b.ts));
          const withMetadata = ['true', '1'].includes(String(args.include_all_metadata));
          return reply({
            messages: inThread.map((m) => ({
              type: 'message',
              ts: m.ts,
              thread_ts: m.thread_ts,
              text: m.text,
              bot_id: m.bot_id ?? 'BBOT',
              ...(m.files ? { files: m.files } : {}),
              ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
            })),
            has_more: false,
          });
        }
        case 'chat.update':
          if (refusedBlock(args.blocks, fake.refuseBlockTypes))
            return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'invalid_blocks' }));
          if (args.blocks && fake.failAnswerUpdate.length) {
            return res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ ok: false, error: fake.failAnswerUpdate.shift() }));
          }
          {
            const message = fake.messages.find((m) => m.channel === args.channel && m.ts === args.ts);
            if (message) {
              if (args.text !== undefined) message.text = String(args.text);
              if (args.blocks) message.blocks = args.blocks as unknown[];
              if (args.metadata) message.metadata = args.metadata as FakeSlackMessage['metadata'];
              if (message.stream) message.stream.open = false;
            }
          }
          return reply({ channel: args.channel, ts: args.ts });
        // streaming (docs.slack.dev/reference/methods/chat.startStream): one message, appended to, then stopped
        case 'chat.startStream': {
          if (!fake.streaming) return refuse('unknown_method');
          if (!args.thread_ts) return refuse('invalid_arguments');
          const dm = String(args.channel).startsWith('D');
          // outside a DM Slack requires whom the stream is for
          if (!dm && (!args.recipient_user_id || !args.recipient_team_id)) return refuse('invalid_arguments');
          const chunks = (args.chunks as FakeChunk[] | undefined) ?? [];
          if (!chunks.length && !args.markdown_text) return refuse('invalid_arguments');
          // Slack's published shape of the chunks (block-kit-limits.ts): a task's details over 256 characters are refused
          if (streamChunkProblems(args.chunks).length) return refuse('invalid_chunks');
          const message: FakeSlackMessage = {
            channel: String(args.channel),
            ts: nextTs(),
            thread_ts: String(args.thread_ts),
            text: String(args.markdown_text ?? '') + markdownOf(chunks),
            stream: { open: true, lastAt: Date.now(), chunks: [...chunks] },
          };
          fake.messages.push(message);
          return reply({ channel: args.channel, ts: message.ts });
        }
        case 'chat.appendStream':
        case 'chat.stopStream': {
          if (!fake.streaming) return refuse('unknown_method');
          const message = fake.messages.find((m) => m.channel === args.channel && m.ts === args.ts);
          if (!message) return refuse('message_not_found');
          const stream = message.stream;
          if (!stream?.open || Date.now() - stream.lastAt > fake.streamIdleMs) {
            if (stream) stream.open = false;
            return refuse('message_not_in_streaming_state');
          }
          if (method === 'chat.stopStream' && refusedBlock(args.blocks, fake.refuseBlockTypes)) return refuse('invalid_blocks');
          const chunks = (args.chunks as FakeChunk[] | undefined) ?? [];
          if (method === 'chat.appendStream' && !chunks.length && !args.markdown_text) return refuse('invalid_arguments');
          if (streamChunkProblems(args.chunks).length) return refuse('invalid_chunks');
          stream.chunks.push(...chunks);
          stream.lastAt = Date.now();
          message.text = (message.text ?? '') + String(args.markdown_text ?? '') + markdownOf(chunks);
          if (method === 'chat.stopStream') {
            stream.open = false;
            if (args.blocks) message.blocks = args.blocks as unknown[];
            if (args.metadata) message.metadata = args.metadata as FakeSlackMessage['metadata'];
          }
          return reply({ channel: args.channel, ts: message.ts });
        }
        case 'chat.delete': {
          const at = fake.messages.findIndex((m) => m.channel === args.channel && m.ts === args.ts);
          if (at >= 0) fake.messages.splice(at, 1);
          return reply({ channel: args.channel, ts: args.ts });
        }
        // a link's card (docs.slack.dev/reference/methods/chat.unfurl): channel and ts together, or unfurl_id and
        // source together; unfurls (or metadata) keyed by URLs that Slack sent link_shared for, each card within limits
        case 'chat.unfurl': {
          const byMessage = args.channel !== undefined || args.ts !== undefined;
          const byId = args.unfurl_id !== undefined || args.source !== undefined;
          if (byMessage === byId) return refuse('invalid_arguments');
          if (byMessage && (!args.channel || !args.ts)) return refuse(args.channel ? 'missing_ts' : 'missing_channel');
          if (byId && (!args.unfurl_id || !args.source)) return refuse(args.source ? 'missing_unfurl_id' : 'missing_source');
          if (byId && !['composer', 'conversations_history'].includes(String(args.source))) return refuse('invalid_source');
          if (args.unfurls === undefined) return refuse(args.metadata === undefined ? 'missing_unfurls' : 'invalid_arguments');
          if (unfurlProblems(args.unfurls).length) {
            const urls = args.unfurls && typeof args.unfurls === 'object' ? Object.values(args.unfurls) : [];
            return refuse(urls.every((u) => u && typeof u === 'object') ? 'invalid_blocks' : 'invalid_unfurls_format');
          }
          const shared = fake.sharedLinks.get(byMessage ? `${args.channel}:${args.ts}` : String(args.unfurl_id));
          if (!shared) return refuse(byMessage ? 'cannot_find_message' : 'invalid_unfurl_id');
          if (Object.keys(args.unfurls as object).some((url) => !shared.includes(url))) return refuse('cannot_unfurl_url');
          return reply({});
        }
        case 'chat.postEphemeral':
          return reply({ message_ts: nextTs() });
        case 'files.getUploadURLExternal': {
          const id = `F${++seq}`;
          fileNames.set(id, String(args.filename ?? ''));
          return reply({ upload_url: `${base}/upload/${id}`, file_id: id });
        }
        case 'files.completeUploadExternal':
          if (fake.failFileUpload.length) {
            return res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ ok: false, error: fake.failFileUpload.shift() }));
          }
          {
            const files = (typeof args.files === 'string' ? JSON.parse(args.files) : args.files) as { id: string; title?: string }[];
            // shared where it was sent, as a message of the bot's: what a later conversations.replies lists
            if (args.channel_id) {
              fake.messages.push({
                channel: String(args.channel_id),
                ts: nextTs(),
                ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
                files: files.map((f) => ({ id: f.id, name: fileNames.get(f.id) ?? '', title: f.title })),
              });
            }
            return reply({ files: files.map((f) => ({ id: f.id, title: f.title })) });
          }
        case 'views.publish':
          if (!args.user_id) return refuse('invalid_arguments');
          if (viewProblems(args.view as Record<string, unknown>).length) return refuse('invalid_blocks');
          return reply({ view: { id: 'V1' } });
        // a modal: Slack needs the click's trigger_id (valid for 3 s) and a view within the modal's limits
        case 'views.open':
          if (!args.trigger_id) return refuse('invalid_arguments');
          if (viewProblems(args.view as Record<string, unknown>).length) return refuse('invalid_blocks');
          return reply({ view: { id: `V${++seq}`, ...(args.view as Record<string, unknown>) } });
        // the agent view's thread utilities (recorded in calls like every method)
        case 'assistant.threads.setSuggestedPrompts':
        case 'assistant.threads.setStatus':
        case 'assistant.threads.setTitle':
          return reply({});
        default:
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'unknown_method' }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.apiUrl = `${base}/api/`;
  fake.close = () =>
    new Promise((r) => {
      for (const res of hung.splice(0)) res.destroy();
      server.close(() => r());
    });
  return fake;
}

/** The Web API client a single-workspace bot (SLACK_BOT_TOKEN) posts with. */
export function botClient(config: Config): WebClient {
  return new WebClient(config.slack!.botToken, clientOptionsOf(config.slack!));
}

/** Slack's request signature headers for a body (v0, HMAC-SHA256 with the signing secret). */
export function slackSignature(secret: string, body: string, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
}

/** POSTs a signed app_mention event to a bot's /slack/events. */
/** retryNum: sent as Slack's X-Slack-Retry-Num, as Slack does when it delivers an event again. */
export async function postMention(
  baseUrl: string,
  secret: string,
  e: { eventId: string; channel: string; text: string; ts: string; user?: string; retryNum?: number },
): Promise<number> {
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: e.eventId,
    team_id: 'T1',
    api_app_id: 'A1',
    event_time: 1,
    event: { type: 'app_mention', user: e.user ?? 'U1', channel: e.channel, text: e.text, ts: e.ts, event_ts: e.ts },
  });
  const retry: Record<string, string> = e.retryNum ? { 'x-slack-retry-num': String(e.retryNum), 'x-slack-retry-reason': 'http_error' } : {};
  const res = await fetch(`${baseUrl}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...slackSignature(secret, body), ...retry },
  });
  return res.status;
}

/** The form body Slack POSTs when a person clicks a button on the bot's message `messageTs` in thread `threadTs`. */
export function buttonClick(o: {
  user: string;
  channel?: string;
  messageTs: string;
  threadTs: string;
  action: { action_id: string; block_id: string; value?: string };
  /** the element clicked: a button unless told (feedback_buttons send their own type) */
  type?: string;
}): string {
  const channel = o.channel ?? 'C1';
  const payload = {
    type: 'block_actions',
    user: { id: o.user },
    team: { id: 'T1' },
    api_app_id: 'A1',
    token: 'x',
    trigger_id: 't',
    response_url: 'http://127.0.0.1:1/none',
    channel: { id: channel },
    container: { type: 'message', message_ts: o.messageTs, channel_id: channel },
    message: { ts: o.messageTs, thread_ts: o.threadTs, text: 'q' },
    actions: [{ type: o.type ?? 'button', ...o.action, action_ts: '1' }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

type FakeChunk = { type: string; text?: string; [k: string]: unknown };
/** The text of a stream's markdown_text chunks (task and plan updates are shown apart from the text). */
const markdownOf = (chunks: FakeChunk[]) =>
  chunks
    .filter((c) => c.type === 'markdown_text')
    .map((c) => c.text ?? '')
    .join('');

/** Whether blocks (as sent: an array, or its JSON in a form field) hold a block of a refused type. */
function refusedBlock(blocks: unknown, refused: Set<string>): boolean {
  if (!refused.size || blocks === undefined) return false;
  const list = (typeof blocks === 'string' ? JSON.parse(blocks) : blocks) as { type?: string }[];
  return Array.isArray(list) && list.some((b) => refused.has(String(b?.type)));
}
