// manifests/slack/manifest.yml against what the code uses: the URLs, the events
// the listeners subscribe to, the slash commands, the scopes every Web API
// method called needs (and no scope nothing needs), and should_escape against
// how slack-text.ts reads command text. The lists come from the code, so a new
// listener, command or Web API call without its manifest line fails here.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SLACK_BOT_EVENTS, SLACK_COMMANDS, SLACK_EVENTS_PATH } from '../../../src/channels/slack/slack-app.js';
import { fromSlackText } from '../../../src/channels/slack/slack-text.js';
import { SLACK_REDIRECT_PATH } from '../../../src/channels/slack/slack-install.js';
import { SLACK_BOT_SCOPES } from '../../../src/config/env.js';

const root = path.resolve(import.meta.dirname, '../../..');
const manifest = parse(readFileSync(path.join(root, 'manifests/slack/manifest.yml'), 'utf8')) as {
  features: {
    app_home: Record<string, boolean>;
    bot_user: unknown;
    slash_commands: { command: string; url: string; should_escape: boolean }[];
    unfurl_domains?: string[];
  };
  oauth_config: { redirect_urls: string[]; scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    socket_mode_enabled: boolean;
  };
};

/** Slack's bot scopes for each Web API method (docs.slack.dev/reference/methods): what a call the code makes needs. */
const METHOD_SCOPES: Record<string, string[]> = {
  // auth.test needs no scope: any token may ask whose it is
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  // streaming (docs.slack.dev/reference/methods/chat.startStream): chat:write
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  // uploadV2 is files.getUploadURLExternal + files.completeUploadExternal
  'files.uploadV2': ['files:write'],
  'views.publish': [],
  // a modal (the 👎's reason box) opened with the click's trigger_id: no scope (docs.slack.dev/reference/methods/views.open)
  'views.open': [],
  // the agent view: the thread titled with the resolved question (its status and prompts go through Bolt's Assistant)
  'assistant.threads.setTitle': ['assistant:write'],
  'assistant.threads.setStatus': ['assistant:write'],
  // the bot reads its own messages back in channels, private channels, DMs and group DMs
  'conversations.history': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  // a backtest run link's card (docs.slack.dev/reference/methods/chat.unfurl)
  'chat.unfurl': ['links:write'],
};
/** The scope each bot event needs. */
const EVENT_SCOPES: Record<string, string[]> = {
  app_mention: ['app_mentions:read'],
  app_home_opened: [],
  'message.im': ['im:history'],
  reaction_added: ['reactions:read'],
  reaction_removed: ['reactions:read'],
  // the app's own lifecycle: sent to every app, no scope
  app_uninstalled: [],
  tokens_revoked: [],
  // the agent view
  assistant_thread_started: ['assistant:write'],
  assistant_thread_context_changed: ['assistant:write'],
  // a link of an unfurl domain posted (docs.slack.dev/reference/events/link_shared)
  link_shared: ['links:read'],
};

/** Every .ts file under a folder. */
const sources = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );

/** The Web API methods the code calls through a WebClient (client.chat.postMessage(...) -> chat.postMessage), and where. */
function webApiCalls(): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  for (const file of [...sources('src/channels/slack'), ...sources('src/digest'), ...sources('src/jobs')]) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/\bclient\.([a-z]+)\.([a-zA-Z0-9]+)(?:\.([a-zA-Z0-9]+))?\s*\(/g)) {
      const method = [m[1], m[2], m[3]].filter(Boolean).join('.');
      calls.set(method, [...(calls.get(method) ?? []), file]);
    }
  }
  return calls;
}

/** The listeners registered in slack-app.ts: app.event('x'), app.message (DMs: message.im), app.command('/x'). */
function registered(): { events: string[]; commands: string[]; other: string[] } {
  const code = readFileSync(path.join(root, 'src/channels/slack/slack-app.ts'), 'utf8');
  const events: string[] = [];
  const commands: string[] = [];
  const other: string[] = [];
  for (const m of code.matchAll(/\bapp\.(event|message|command|action|view|shortcut|options|function|assistant)\(\s*([^,)]*)/g)) {
    const [, kind, first] = m;
    const literal = /^'([^']+)'/.exec(first)?.[1];
    // Bolt's Assistant listens for a thread opened, its context changed, and the messages in it (message.im)
    if (kind === 'assistant') events.push('assistant_thread_started', 'assistant_thread_context_changed');
    else if (kind === 'event' && literal) events.push(literal);
    else if (kind === 'message') events.push('message.im');
    else if (kind === 'command' && literal) commands.push(literal);
    else if (kind === 'command' && /RegExp\(`\^\(\?!/.test(first))
      continue; // the catch-all for unknown commands
    else if (kind === 'action' || kind === 'view')
      continue; // actions and modal submissions (view_submission) arrive at the interactivity URL, checked below
    else other.push(`${kind}(${first})`);
  }
  return { events, commands, other };
}

describe('the Slack manifest covers what the code uses', () => {
  it('the events URL, the interactivity URL and every slash command point at /slack/events on one host', () => {
    const urls = [
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
      ...manifest.features.slash_commands.map((c) => c.url),
    ];
    expect(urls).toHaveLength(2 + SLACK_COMMANDS.length);
    const parsed = urls.map((u) => new URL(u));
    expect(new Set(parsed.map((u) => u.host)).size).toBe(1);
    for (const u of parsed) {
      expect(u.protocol).toBe('https:');
      expect(u.pathname).toBe(SLACK_EVENTS_PATH);
    }
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
  });

  it('run links unfurl: link_shared is subscribed and the unfurl domain is the same host as the URLs (PUBLIC_BASE_URL)', () => {
    expect(manifest.settings.event_subscriptions.bot_events).toContain('link_shared');
    // Slack takes bare domains (no scheme, no path), at most 5
    expect(manifest.features.unfurl_domains).toEqual([new URL(manifest.settings.event_subscriptions.request_url).host]);
  });

  it('the lists slack-app.ts exports are the listeners it registers', () => {
    const { events, commands, other } = registered();
    expect(other, 'a listener kind this test does not know: add what it needs to the manifest and here').toEqual([]);
    expect([...events].sort()).toEqual([...SLACK_BOT_EVENTS].sort());
    expect([...commands].sort()).toEqual([...SLACK_COMMANDS].sort());
  });

  it('every event the code subscribes to is in bot_events, and nothing else is', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...SLACK_BOT_EVENTS].sort());
    // the Home tab is what app_home_opened publishes into; DMs come through the Messages tab
    expect(manifest.features.app_home.home_tab_enabled).toBe(SLACK_BOT_EVENTS.includes('app_home_opened'));
    expect(manifest.features.app_home.messages_tab_enabled).toBe(SLACK_BOT_EVENTS.includes('message.im'));
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(false);
  });

  it("an OAuth install asks for the manifest's bot scopes, and Slack sends the admin back to the route the bot serves", () => {
    expect([...SLACK_BOT_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
    expect(manifest.oauth_config.redirect_urls.map((u) => new URL(u).pathname)).toEqual([SLACK_REDIRECT_PATH]);
  });

  it('every slash command registered is in slash_commands, and nothing else is', () => {
    expect(manifest.features.slash_commands.map((c) => c.command).sort()).toEqual([...SLACK_COMMANDS].sort());
  });

  it('the bot scopes are what the Web API calls, events and commands need: none missing, none spare', () => {
    const calls = webApiCalls();
    const unknown = [...calls.keys()].filter((m) => !(m in METHOD_SCOPES));
    expect(
      unknown,
      `Web API methods with no scope listed here (${unknown.map((m) => `${m} in ${calls.get(m)!.join(', ')}`).join('; ')}): look up its scope, add it here and to the manifest`,
    ).toEqual([]);
    // the calls this test knows of are all still found (the scan works)
    for (const m of [
      'chat.postMessage',
      'chat.update',
      'chat.delete',
      'chat.postEphemeral',
      'files.uploadV2',
      'views.publish',
      'conversations.history',
      'conversations.replies',
    ])
      expect(calls.has(m), m).toBe(true);
    const needed = new Set([
      ...[...calls.keys()].flatMap((m) => METHOD_SCOPES[m]),
      ...SLACK_BOT_EVENTS.flatMap((e) => EVENT_SCOPES[e] ?? [`(no scope known for ${e})`]),
      ...(SLACK_COMMANDS.length ? ['commands'] : []),
    ]);
    const granted = new Set(manifest.oauth_config.scopes.bot);
    expect(
      [...needed].filter((s) => !granted.has(s)),
      'missing from oauth_config.scopes.bot',
    ).toEqual([]);
    expect(
      [...granted].filter((s) => !needed.has(s)),
      'granted but nothing in the code needs it',
    ).toEqual([]);
  });

  it('should_escape matches how slack-text.ts reads a command', () => {
    for (const c of manifest.features.slash_commands) expect(c.should_escape, c.command).toBe(false);
    // should_escape: false sends people and channels as typed; &, < and > still come as entities, which are decoded
    expect(fromSlackText('600519 2023 buy: RSI(14) &lt; 30 sell: RSI(14) &gt; 70 &amp; @ann #general')).toBe(
      '600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70 & @ann #general',
    );
    // and were it turned on, the escaped forms would read the same
    expect(fromSlackText('<@U123|ann> <#C123|general> <https://example.com|example.com>')).toBe(fromSlackText('@ann #general example.com'));
  });
});
