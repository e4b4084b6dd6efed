// The Teams endpoint: POST /api/messages through botbuilder's CloudAdapter with
// configuration-based auth. All Bot Framework code stays in this folder, so a
// move to the Teams SDK (@microsoft/teams.apps) would touch nothing else.
import { bestEffort } from '../../core/best-effort.js';
import type http from 'node:http';
import { CloudAdapter, ConfigurationBotFrameworkAuthentication, type TurnContext } from 'botbuilder';
import type { Logger } from '../../core/logger.js';
import { describeError } from '../../core/errors.js';
import type { Route } from '../../server/http-server.js';
import { isLoopback } from '../../server/host-names.js';
import type { DataDeskTeamsBot } from './teams-bot.js';
import { REACHED_AT } from './handlers/turn.js';

export const TEAMS_MESSAGES_PATH = '/api/messages';

export interface TeamsCredentials {
  appId: string;
  appPassword: string;
  tenantId: string;
  appType: 'MultiTenant' | 'SingleTenant' | 'UserAssignedMSI';
}

export function createTeamsAdapter(credentials: TeamsCredentials, logger: Logger): CloudAdapter {
  const auth = new ConfigurationBotFrameworkAuthentication({
    MicrosoftAppId: credentials.appId,
    MicrosoftAppPassword: credentials.appPassword,
    MicrosoftAppTenantId: credentials.tenantId,
    MicrosoftAppType: credentials.appType,
  });
  const adapter = new CloudAdapter(auth);
  adapter.onTurnError = async (context: TurnContext, error: Error) => {
    logger.error(`teams: turn failed: ${describeError(error)}`);
    await bestEffort(
      context.sendActivity('Sorry, something went wrong while answering; it has been logged. Please try again.'),
      'telling Teams a turn failed',
    );
  };
  return adapter;
}

/** What an activity must have before the adapter sees it. */
function malformed(body: unknown): string | undefined {
  const a = body as { type?: unknown; serviceUrl?: unknown; conversation?: { id?: unknown }; channelId?: unknown } | undefined;
  if (!a || typeof a !== 'object') return 'the body is not a JSON activity';
  if (typeof a.type !== 'string') return 'the activity has no type';
  if (typeof a.serviceUrl !== 'string' || !/^https?:\/\//.test(a.serviceUrl)) return 'the activity has no serviceUrl';
  if (typeof a.conversation?.id !== 'string') return 'the activity has no conversation id';
  if (typeof a.channelId !== 'string') return 'the activity has no channelId';
  return undefined;
}

/**
 * The address Teams reached this bot at: scheme (a proxy's X-Forwarded-Proto, else the socket's) and host (a
 * proxy's X-Forwarded-Host, else Host), when they are a plain scheme and host[:port]. The request it comes with is
 * Teams' own (authenticated, or loopback-only in local mode).
 */
function addressReached(req: http.IncomingMessage): string | undefined {
  const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.split(',')[0]?.trim();
  const proto = first(req.headers['x-forwarded-proto']) ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  const host = first(req.headers['x-forwarded-host']) ?? first(req.headers.host);
  if (!host || !/^https?$/.test(proto) || !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return undefined;
  return `${proto}://${host}`;
}

async function readJson(req: http.IncomingMessage, limit = 1 << 20): Promise<unknown> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error('too large');
  }
  return JSON.parse(body);
}

/** The name in a Host header or URL host, without port or brackets. */
const hostName = (host: string) => host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');

/**
 * Local mode (no app id, nothing authenticated): the request must come from a
 * program on this machine, not a web page (no Origin; JSON, which a page
 * cannot send cross-site without a preflight we never answer; a loopback Host
 * header, against DNS rebinding), and the answer must go back to this machine.
 */
function notLocal(req: http.IncomingMessage, body: unknown): { status: number; error: string } | undefined {
  if (req.headers.origin) return { status: 403, error: 'The local Teams endpoint does not take requests from web pages.' };
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return { status: 415, error: 'Expected Content-Type: application/json.' };
  if (!isLoopback(hostName(req.headers.host ?? '')))
    return { status: 403, error: 'The local Teams endpoint answers only requests addressed to this machine (Host).' };
  const serviceUrl = (body as { serviceUrl?: string } | undefined)?.serviceUrl;
  let serviceHost = '';
  try {
    serviceHost = new URL(serviceUrl ?? '').hostname;
  } catch {
    // checked as malformed later
  }
  if (serviceUrl && !isLoopback(hostName(serviceHost))) {
    return {
      status: 403,
      error: 'Without MICROSOFT_APP_ID the bot answers only to a serviceUrl on this machine (the Bot Framework Emulator).',
    };
  }
  return undefined;
}

export interface TeamsRouteOptions {
  /** unauthenticated local mode (TEAMS_LOCAL=true): only this machine, both ways (see notLocal) */
  local?: boolean;
}

export function teamsRoutes(adapter: CloudAdapter, bot: DataDeskTeamsBot, logger: Logger, options: TeamsRouteOptions = {}): Route {
  return async (req, res) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== TEAMS_MESSAGES_PATH) return false;
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return true;
    }
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      body = undefined;
    }
    const refused = options.local ? notLocal(req, body) : undefined;
    if (refused) {
      logger.warn(`teams (local mode): refused a request: ${refused.error}`);
      res.writeHead(refused.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: refused.error }));
      return true;
    }
    const problem = malformed(body);
    if (problem) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `Malformed activity: ${problem}.` }));
      return true;
    }
    // the minimal Request/Response botbuilder needs, over node's own
    const shimReq = {
      body: body as Record<string, unknown>,
      headers: req.headers as Record<string, string | string[] | undefined>,
      method: req.method,
    };
    const shimRes = {
      socket: res.socket,
      status: (code: number) => {
        res.statusCode = code;
      },
      header: (name: string, value: unknown) => res.setHeader(name, String(value)),
      send: (payload?: unknown) => {
        if (payload !== undefined && !res.headersSent && typeof payload === 'object') res.setHeader('content-type', 'application/json');
        res.write(payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload));
      },
      end: () => res.end(),
    };
    try {
      const reachedAt = addressReached(req);
      await adapter.process(shimReq, shimRes, (context) => {
        if (reachedAt) context.turnState.set(REACHED_AT, reachedAt);
        return bot.run(context);
      });
    } catch (error) {
      logger.warn(`teams: ${describeError(error)}`);
      if (!res.headersSent) res.writeHead(500).end();
    }
    if (!res.writableEnded) res.end();
    return true;
  };
}
