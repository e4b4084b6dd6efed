// "Add to Slack": the OAuth install of a Slack app that many workspaces use
// (SLACK_CLIENT_ID). Bolt's InstallProvider does the protocol: GET
// /slack/install shows the Add to Slack page and hands out a state (signed,
// so the page writes nothing however often it is fetched; bound to a cookie of
// the installer's browser; one use, ten minutes: installation-store.ts), Slack sends the admin back to GET /slack/oauth_redirect with a
// code, and the provider exchanges it (oauth.v2.access) for the workspace's
// bot token, which the installation store keeps sealed. Events are then
// answered with the token of the workspace they came from (`authorize`).
// The state's cookie needs https: over plain http both pages answer with a page
// that says so, except on localhost, where the cookie goes without `Secure`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InstallProvider, type Installation, type InstallURLOptions } from '@slack/oauth';
import type { WebClientOptions } from '@slack/web-api';
import type pg from 'pg';
import type { Config } from '../../config/env.js';
import type { Logger } from '../../core/logger.js';
import type { Route } from '../../server/http-server.js';
import { escapeHtml, htmlPage, sendHtml } from '../../server/html-page.js';
import { RateLimiter } from '../../core/rate-limit.js';
import { PgInstallationStore, SignedStateStore } from './installation-store.js';
import { slackTokenKeys } from './token-seal.js';

export const SLACK_INSTALL_PATH = '/slack/install';
export const SLACK_REDIRECT_PATH = '/slack/oauth_redirect';

/** Slack's redirects back to us a minute per client address (an admin needs one; a retry or two is plenty). */
const CALLBACKS_PER_MINUTE = 10;

type OAuthSettings = NonNullable<NonNullable<Config['slack']>['oauth']>;

export interface SlackInstaller {
  provider: InstallProvider;
  store: PgInstallationStore;
  route: Route;
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  sendHtml(res, status, htmlPage(title, body));
}

/** What each bot scope lets Data Desk do, in the words an admin reads before installing. */
const SCOPE_WORDS: Record<string, string> = {
  'app_mentions:read': 'read the messages that mention @Data Desk',
  'channels:history': 'read back its own messages in public channels it is in (to finish an answer or a digest after a restart)',
  'groups:history': 'the same in private channels it is invited to',
  'chat:write': 'post answers and digests',
  commands: 'take /backtest and /datadesk',
  'files:write': 'upload chart images and CSV exports into the thread',
  'im:history': 'read direct messages sent to it',
  'mpim:history': 'read group direct messages it is in',
  'reactions:read': 'see thumbs-up and thumbs-down reactions on its answers (feedback)',
};

/** The Add to Slack page: what the app will be able to do, then the button (Slack's own page asks the admin next). */
function installPage(scopes: string[]): (url: string) => string {
  return (url) => {
    const items = scopes
      .map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(SCOPE_WORDS[s] ?? 'as Slack describes it on the next page')}</li>`)
      .join('');
    return htmlPage(
      'Add Data Desk to your Slack workspace',
      '<p>Data Desk answers questions about the Chicago crime data and runs A-share backtests in the channels you invite it to. It will be able to:</p>' +
        `<ul>${items}</ul>` +
        "<p>Your workspace's answers, feedback, verified questions and digests are kept apart from every other workspace's.</p>" +
        `<p><a class="add" href="${escapeHtml(url)}">Add to Slack</a></p>`,
      'a.add{display:inline-block;padding:.7rem 1.2rem;min-height:44px;box-sizing:border-box;background:#4a154b;color:#fff;border-radius:6px;text-decoration:none;font-weight:600}',
    );
  };
}

/** What the admin sees after Slack sent them back: where the bot is now, and what to do first. */
function installedPage(res: ServerResponse, installation: Installation): void {
  const where = installation.isEnterpriseInstall
    ? `every workspace of ${installation.enterprise?.name ?? 'your organization'}`
    : (installation.team?.name ?? 'your workspace');
  const open = installation.team?.id
    ? `<p><a href="slack://app?team=${encodeURIComponent(installation.team.id)}&id=${encodeURIComponent(installation.appId ?? '')}">Open Slack</a></p>`
    : '';
  page(
    res,
    200,
    'Data Desk is installed',
    `<p>Data Desk is now in ${escapeHtml(where)}.</p>` +
      '<p>Invite it to a channel (<code>/invite @Data Desk</code>) and mention it with a question, for example <em>@Data Desk how many thefts were reported in 2019?</em>, or send it a direct message. <code>/datadesk help</code> lists what it can do.</p>' +
      '<p>Its answers, feedback, verified questions and digests are kept for this workspace alone. Removing the app (Manage apps → Remove) deletes its token here and stops its digests.</p>' +
      open,
  );
}

/**
 * The scheme the admin's browser used. This server speaks plain http; behind a proxy or a tunnel that ends https
 * the proxy says so (X-Forwarded-Proto, Forwarded: proto=), and otherwise PUBLIC_BASE_URL's scheme counts when the
 * browser named its host.
 */
function browserScheme(req: IncomingMessage, publicUrl: URL | undefined): string {
  const forwarded = req.headers['x-forwarded-proto'];
  const proto =
    (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0] ??
    /(?:^|[;,\s])proto=([a-z]+)/i.exec(req.headers.forwarded ?? '')?.[1];
  if (proto) return proto.trim().toLowerCase();
  if (publicUrl && publicUrl.host === req.headers.host?.toLowerCase()) return publicUrl.protocol.slice(0, -1);
  return 'http';
}

/** The host name the browser asked for, without its port ("" when there is none or it is unreadable). */
function hostName(req: IncomingMessage): string {
  try {
    return new URL(`http://${req.headers.host ?? ''}`).hostname.toLowerCase();
  } catch {
    return '';
  }
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The install's state cookie is set `Secure` (InstallProvider), which browsers keep only over https (some also on
 * http://localhost, not all). Over plain http on this machine the flag goes, so that a local install works in any
 * browser; the cookie stays HttpOnly and bound to its state.
 */
function cookiesWithoutSecure(res: ServerResponse): void {
  const set = res.setHeader.bind(res);
  const strip = (c: string) => c.replace(/;\s*Secure(?=;|$)/gi, '');
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    set(
      name,
      name.toLowerCase() !== 'set-cookie'
        ? value
        : typeof value === 'string'
          ? strip(value)
          : Array.isArray(value)
            ? value.map(strip)
            : value,
    )) as ServerResponse['setHeader'];
}

/** Plain http from anywhere but this machine: the browser drops the state cookie, so say so instead of failing later. */
function httpsRequiredPage(res: ServerResponse, host: string): void {
  page(
    res,
    400,
    'Installing Data Desk needs https',
    `<p>This page was opened over plain http${host ? ` at <code>${escapeHtml(host)}</code>` : ''}. The install keeps its one-time state in a cookie marked <code>Secure</code>, which browsers keep only over https, so Slack's answer could not be matched to this browser and nothing would be installed.</p>` +
      '<p>Serve the bot behind https (a reverse proxy such as Caddy, or a tunnel; see docs/deploy-slack.md), set <code>PUBLIC_BASE_URL</code> to that https address, and open <code>https://&lt;your host&gt;/slack/install</code>. On the machine that runs the bot, <code>http://localhost:&lt;port&gt;/slack/install</code> works too.</p>',
  );
}

export function createSlackInstaller(o: {
  oauth: OAuthSettings;
  pool: pg.Pool;
  logger: Logger;
  clientOptions?: WebClientOptions;
  redirectUri?: string;
  /** Slack's redirects back a minute per client address (default 10) */
  callbacksPerMinute?: number;
}): SlackInstaller {
  const store = new PgInstallationStore(o.pool, slackTokenKeys(o.oauth.tokenKeys));
  const installUrlOptions: InstallURLOptions = { scopes: o.oauth.scopes, ...(o.redirectUri ? { redirectUri: o.redirectUri } : {}) };
  const provider = new InstallProvider({
    clientId: o.oauth.clientId,
    clientSecret: o.oauth.clientSecret,
    stateStore: new SignedStateStore(o.pool, o.oauth.clientSecret),
    installationStore: store,
    installUrlOptions,
    renderHtmlForInstallPath: installPage(o.oauth.scopes),
    clientOptions: o.clientOptions,
    ...(o.oauth.authorizeUrl ? { authorizationUrl: o.oauth.authorizeUrl } : {}),
    logger: {
      debug: (...m) => o.logger.debug(`slack oauth: ${m.join(' ')}`),
      info: (...m) => o.logger.info(`slack oauth: ${m.join(' ')}`),
      warn: (...m) => o.logger.warn(`slack oauth: ${m.join(' ')}`),
      error: (...m) => o.logger.error(`slack oauth: ${m.join(' ')}`),
      setLevel: () => undefined,
      getLevel: () => 'info' as never,
      setName: () => undefined,
    },
  });
  const callbacks = new RateLimiter(o.callbacksPerMinute ?? CALLBACKS_PER_MINUTE);
  const publicUrl = o.redirectUri ? new URL(o.redirectUri) : undefined;
  let warnedPlainHttp = false; // once a process: the page tells each visitor
  const route: Route = async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== SLACK_INSTALL_PATH && path !== SLACK_REDIRECT_PATH) return false;
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('GET only.');
      return true;
    }
    if (browserScheme(req, publicUrl) !== 'https') {
      const host = hostName(req);
      if (!LOOPBACK_NAMES.has(host)) {
        if (!warnedPlainHttp)
          o.logger.warn(
            `Slack: ${path} was opened over plain http (Host: ${req.headers.host ?? 'none'}); an install needs https: put the bot behind https and set PUBLIC_BASE_URL (docs/deploy-slack.md)`,
          );
        warnedPlainHttp = true;
        httpsRequiredPage(res, req.headers.host ?? '');
        return true;
      }
      cookiesWithoutSecure(res);
    }
    if (path === SLACK_INSTALL_PATH) {
      await provider.handleInstallPath(req, res, undefined, installUrlOptions);
      return true;
    }
    // the callback is the one step that writes (the used state's nonce, then the installation): a few a minute per address
    const wait = callbacks.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      res.setHeader('retry-after', String(wait));
      page(res, 429, 'Too many install attempts', `<p>Too many install attempts from this address. Try again in ${wait} s.</p>`);
      return true;
    }
    await provider.handleCallback(req, res, {
      success: (installation) => {
        o.logger.info(
          `Slack: installed in ${installation.isEnterpriseInstall ? `enterprise ${installation.enterprise?.id}` : `workspace ${installation.team?.id}`} (${installation.team?.name ?? installation.enterprise?.name ?? ''}) by ${installation.user.id}`,
        );
        installedPage(res, installation);
      },
      failure: (error) => {
        o.logger.warn(`Slack: an install did not complete: ${error.message}`);
        page(
          res,
          400,
          'Data Desk was not installed',
          `<p>${escapeHtml(error.message)}</p><p><a href="${SLACK_INSTALL_PATH}">Start again</a></p>`,
        );
      },
    });
    return true;
  };
  return { provider, store, route };
}
