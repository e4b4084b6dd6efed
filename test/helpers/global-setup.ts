// One PostgreSQL server for the whole run: the one in DATABASE_URL when set
// (CI and developer machines: the machine's service), otherwise an embedded
// server started here, so `npm test` passes on a fresh machine too. Each test
// file then makes its own database on it (see database.ts).
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.js';
import { createLogger } from '../../src/core/logger.js';

let embedded: EmbeddedServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    // a child run (test/cli/test-command.test.ts) gets a server of its own
    const home = process.env.DATADESK_TEST_HOME ?? path.join(os.tmpdir(), 'datadesk-test');
    embedded = await startEmbeddedPostgres(home, Number(process.env.DATADESK_TEST_PG_PORT ?? 54_339), createLogger('warn'));
    url = embedded.adminUrl;
  }
  project.provide('adminDatabaseUrl', url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}
