// compose.yaml against the code and docs/operations.md: PostgreSQL 15+ with a
// volume and a health check; serve and worker built from the Dockerfile, started
// once the database is healthy, on the login deploy/postgres-init.sh creates;
// their commands are commands the CLI has; every variable they name is one
// src/config/env.ts accepts. And the Dockerfile's promises (npm install, not
// npm ci; 300 s before the health check counts).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliCommands, envNames, parseCommandLine, read, root, unknownOptions } from './deploy-facts.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
}
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { postgres, serve, worker } = compose.services;

describe('compose.yaml', () => {
  it('has PostgreSQL (15 or later), serve and worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'serve', 'worker']);
    expect(Number(/^postgres:(\d+)/.exec(postgres.image ?? '')?.[1])).toBeGreaterThanOrEqual(15);
    const data = postgres.volumes!.find((v) => v.endsWith(':/var/lib/postgresql/data'))!;
    expect(Object.keys(compose.volumes)).toContain(data.split(':')[0]);
    expect(postgres.healthcheck!.test!.join(' ')).toMatch(/pg_isready -h 127\.0\.0\.1/);
    expect(postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('creates the login and database the docs give, and serve and worker log in with it', () => {
    const init = postgres.volumes!.find((v) => v.includes('/docker-entrypoint-initdb.d/'))!;
    const script = init.split(':')[0];
    expect(existsSync(path.join(root, script))).toBe(true);
    const sql = read(script);
    expect(sql).toContain('CREATE ROLE datadesk LOGIN CREATEROLE PASSWORD');
    expect(sql).toContain('CREATE DATABASE datadesk OWNER datadesk;');
    expect(read('docs/operations.md')).toContain(
      "CREATE ROLE datadesk LOGIN CREATEROLE PASSWORD 'change-me';\nCREATE DATABASE datadesk OWNER datadesk;",
    );
    for (const s of [serve, worker]) {
      const url = new URL(s.environment!.DATABASE_URL.replace(/\$\{[^}]+\}/, 'secret'));
      expect([url.username, url.hostname, url.pathname]).toEqual(['datadesk', 'postgres', '/datadesk']);
      expect(s.environment!.DATABASE_URL).toContain('${DATADESK_DB_PASSWORD:?');
    }
  });

  it('builds serve and worker from the Dockerfile, after the database is healthy, with the settings from .env', () => {
    for (const s of [serve, worker]) {
      expect(s.build).toBe('.');
      expect(s.image).toBe(serve.image);
      expect(s.env_file).toBe('.env');
      expect(s.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    }
    // the port the Dockerfile's server listens on, on loopback only
    expect(read('Dockerfile')).toMatch(/PORT=3000/);
    expect(serve.ports).toEqual(['127.0.0.1:3000:3000']);
    // the worker serves no /healthz: the image's health check is off for it
    expect(worker.healthcheck).toEqual({ disable: true });
    expect(worker.volumes).toEqual(['./import:/import']);
  });

  it('runs commands the CLI has, with options it takes', async () => {
    const commands = await cliCommands();
    expect(commands).toContain('serve');
    for (const s of [serve, worker]) {
      expect(s.command!.slice(0, 2)).toEqual(['node', 'dist/cli/main.js']);
      const { command, options } = parseCommandLine(s.command!.slice(2).join(' '), commands);
      expect(commands).toContain(command);
      expect(await unknownOptions(command, options)).toEqual([]);
    }
    expect(worker.command).toEqual(['node', 'dist/cli/main.js', 'worker']);
  }, 120_000);

  it('names only variables src/config/env.ts accepts (the superuser password only to blank it out)', () => {
    const accepted = envNames();
    for (const s of [serve, worker]) {
      const named = Object.keys(s.environment ?? {});
      expect(named.filter((n) => !accepted.has(n))).toEqual(['POSTGRES_PASSWORD']);
      expect(s.environment!.POSTGRES_PASSWORD).toBe('');
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  it('installs with npm install (npm ci refuses this lock file) and copies what prepare runs', () => {
    expect(dockerfile).not.toMatch(/^RUN .*npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm install --no-audit --no-fund/m);
    expect(dockerfile).toMatch(/^COPY scripts \.\/scripts$/m);
    expect(read('package.json')).toMatch(/"prepare": "npm run build && node scripts\/link-bin\.mjs"/);
  });

  it('gives a first start 300 s before the health check counts', () => {
    expect(/--start-period=(\d+)s/.exec(dockerfile)?.[1]).toBe('300');
  });

  it('uses a Node the package accepts', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.19');
    expect(read('README.md')).toContain('Node.js 20.19+');
    for (const from of dockerfile.matchAll(/^FROM node:(\d+)/gm)) expect(Number(from[1])).toBe(20);
  });
});
