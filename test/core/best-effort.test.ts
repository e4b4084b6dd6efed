// Best-effort work (a ROLLBACK after an error, closing a pool on the way out):
// its failure is not thrown, and it leaves a line in the debug log.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { bestEffort } from '../../src/core/best-effort.js';
import { createLogger, createMemoryLogger } from '../../src/core/logger.js';

describe('bestEffort', () => {
  it('returns what the work returned, and logs nothing', async () => {
    const logger = createMemoryLogger();
    expect(await bestEffort(Promise.resolve(42), 'the answer', logger)).toBe(42);
    expect(logger.lines).toEqual([]);
  });

  it('a failure resolves to undefined and is logged at debug level with what failed and why', async () => {
    const logger = createMemoryLogger();
    expect(await bestEffort(Promise.reject(new Error('Connection terminated')), 'closing the export pool', logger)).toBeUndefined();
    expect(logger.lines).toEqual(['debug: closing the export pool failed (best effort, carrying on): Connection terminated']);
  });

  it('at the default level (info) the line is not printed', async () => {
    const printed: string[] = [];
    await bestEffort(
      Promise.reject(new Error('gone')),
      'ROLLBACK',
      createLogger('info', (l) => printed.push(l)),
    );
    expect(printed).toEqual([]);
  });

  it('with no logger at hand, NODE_DEBUG=datadesk shows the failure, and nothing shows without it', () => {
    // NODE_DEBUG is read when node starts, so the module runs in a child process (as JavaScript: it imports only node:util)
    const source = readFileSync(path.resolve(import.meta.dirname, '../../src/core/best-effort.ts'), 'utf8');
    const module = path.join(mkdtempSync(path.join(tmpdir(), 'best-effort-')), 'best-effort.mjs');
    writeFileSync(
      module,
      ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText,
    );
    const script = `import { bestEffort } from ${JSON.stringify(module)}; await bestEffort(Promise.reject(new Error('socket hang up')), 'ROLLBACK of a failed migration');`;
    const run = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const shown = run({ NODE_DEBUG: 'datadesk' });
    expect(shown.status).toBe(0);
    expect(shown.stderr).toMatch(/DATADESK \d+: ROLLBACK of a failed migration failed \(best effort, carrying on\): socket hang up/);
    const quiet = run({ NODE_DEBUG: '' });
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
  });
});
