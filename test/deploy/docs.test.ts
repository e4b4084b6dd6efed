// The deployment docs against the code: every `datadesk` command they write is
// one the CLI has, with options it takes; every variable they name is one
// src/config/env.ts accepts (or one of the few outside the app, each checked
// where it lives); every link into the repository leads to a file. And the
// Socket Mode manifest is manifest.yml without its URLs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliCommands, envNames, parseCommandLine, read, root, unknownOptions } from './deploy-facts.js';

const DOCS = ['docs/deploy-slack.md', 'docs/deploy-teams.md', 'docs/operations.md', 'README.md'];

/** The code in a markdown text: fenced blocks and `inline spans`. */
function codeOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const prose = markdown.replace(/^```[a-z]*\n[\s\S]*?^```/gm, '');
  return [...blocks, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1])];
}

/** "npx datadesk X …", "node dist/cli/main.js X …", or a span that starts "datadesk X": the part after the program. */
function commandLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const code of codeOf(markdown))
    for (const line of code.replace(/\\\n\s*/g, ' ').split('\n')) {
      for (const m of line.matchAll(/(?:npx datadesk|node dist\/cli\/main\.js|^datadesk)((?: [a-z][a-z-]*)+[^|;&`#]*)/g)) lines.push(m[1]);
    }
  return lines;
}

/** Variables outside src/config/env.ts that the docs may name, and where each is real. */
const OUTSIDE: Record<string, () => void> = {
  POSTGRES_PASSWORD: () => expect(read('compose.yaml')).toContain('POSTGRES_PASSWORD:'),
  DATADESK_DB_PASSWORD: () => expect(read('deploy/postgres-init.sh')).toContain('$DATADESK_DB_PASSWORD'),
  DATADESK_TEST_HOME: () => expect(read('test/helpers/global-setup.ts')).toContain('process.env.DATADESK_TEST_HOME'),
  DATADESK_TEST_PG_PORT: () => expect(read('test/helpers/global-setup.ts')).toContain('process.env.DATADESK_TEST_PG_PORT'),
};

describe('deployment docs', () => {
  it.each(DOCS)(
    '%s: every datadesk command exists, with its options',
    async (file) => {
      const commands = await cliCommands();
      const lines = commandLines(read(file));
      expect(lines.length).toBeGreaterThan(0);
      const parsed = lines.map((line) => ({ line: line.trim(), ...parseCommandLine(line, commands) }));
      const wrong = parsed.filter((p) => !p.command).map((p) => `${p.line}: no such command`);
      // each command's --help once, a few at a time (a node process each)
      const withOptions = parsed.filter((p) => p.command && p.options.length);
      for (let i = 0; i < withOptions.length; i += 4)
        await Promise.all(
          withOptions.slice(i, i + 4).map(async (p) => {
            for (const o of await unknownOptions(p.command, p.options)) wrong.push(`${p.line}: ${p.command} has no ${o}`);
          }),
        );
      expect(wrong).toEqual([]);
    },
    300_000,
  );

  it.each(DOCS.filter((f) => f.startsWith('docs/')))('%s: every variable it names is one the app reads', (file) => {
    const accepted = envNames();
    const named = new Set(
      codeOf(read(file)).flatMap((code) => [...code.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map((m) => m[1])),
    );
    const unknown = [...named].filter((n) => !accepted.has(n) && !(n in OUTSIDE) && !n.endsWith('_'));
    expect(unknown).toEqual([]);
    for (const n of named) OUTSIDE[n]?.();
  });

  it('the README quick start names the ports, homes and the docs', () => {
    const readme = read('README.md');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    for (const s of [
      'npm install && npm start',
      'npm test',
      'npx datadesk --help',
      'EMBEDDED_PG_PORT',
      'DATADESK_HOME',
      'DATADESK_TEST_HOME',
      'DATADESK_TEST_PG_PORT',
      'docs/deploy-slack.md',
      'docs/deploy-teams.md',
      'docs/operations.md',
    ])
      expect(quickStart).toContain(s);
    for (const n of ['EMBEDDED_PG_PORT', 'DATADESK_HOME']) expect(envNames().has(n)).toBe(true);
    expect(quickStart).toContain('port 54329');
    expect(read('src/config/env.ts')).toMatch(/EMBEDDED_PG_PORT: integer\(54329,/);
    expect(quickStart).toContain('port 54339');
    expect(read('test/helpers/global-setup.ts')).toContain('DATADESK_TEST_PG_PORT ?? 54_339');
  });

  it.each(DOCS)('%s: every link into the repository leads to a file', (file) => {
    const dir = path.dirname(path.join(root, file));
    const links = [...read(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.filter((l) => !existsSync(path.resolve(dir, l)))).toEqual([]);
  });

  it('the CLI points to docs that exist (the fresh-clone test reads them in --help)', () => {
    const source = read('src/cli/commands/backtest.ts');
    expect(source).not.toContain('BACKTEST_PROTOCOL.md)');
    const named = [...source.matchAll(/\b(docs\/[a-z-]+\.md)\b/g)].map((m) => m[1]);
    expect(named).toContain('docs/backtest-engine.md');
    for (const doc of named) expect(existsSync(path.join(root, doc))).toBe(true);
  });
});

describe('the Socket Mode manifest', () => {
  type Manifest = {
    features: { slash_commands: { command: string; url?: string }[]; unfurl_domains?: string[] };
    oauth_config: { redirect_urls?: string[]; scopes: { bot: string[] } };
    settings: Record<string, unknown> & {
      event_subscriptions: { request_url?: string; bot_events: string[] };
      socket_mode_enabled: boolean;
    };
  };
  const http = parse(read('manifests/slack/manifest.yml')) as Manifest;
  const socket = parse(read('manifests/slack/manifest-socket-mode.yml')) as Manifest;

  it('is manifest.yml with Socket Mode on and no URLs', () => {
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(read('manifests/slack/manifest-socket-mode.yml')).not.toMatch(/url:|https?:\/\//);
    const withoutUrls = structuredClone(http);
    for (const c of withoutUrls.features.slash_commands) delete c.url;
    // the placeholder host of the run links' unfurls: a Socket Mode app adds its own in the app's settings
    delete withoutUrls.features.unfurl_domains;
    delete withoutUrls.oauth_config.redirect_urls;
    delete withoutUrls.settings.event_subscriptions.request_url;
    delete (withoutUrls.settings.interactivity as { request_url?: string }).request_url;
    withoutUrls.settings.socket_mode_enabled = true;
    expect(socket).toEqual(withoutUrls);
  });
});
