// Reading the PostgreSQL server's memory limit (src/db/memory-bound.ts): memory.max and memory.limit_in_bytes, the
// process's cgroup, the smallest limit along the path, and the one warning `serve` gives when there is none.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/core/logger.js';
import { isLocalDatabase, parseCgroup, parseMemoryMax, processMemoryBound, warnUnboundedMemory } from '../../src/db/memory-bound.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A made-up / with one process and the files it names. */
function machine(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'memory-bound-'));
  roots.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const SERVICE = 'system.slice/postgresql@17-main.service';
const v2 = (limits: Record<string, string>) =>
  machine({
    'proc/4242/cgroup': `0::/${SERVICE}\n`,
    'proc/4242/comm': 'postgres\n',
    ...Object.fromEntries(Object.entries(limits).map(([dir, max]) => [`sys/fs/cgroup/${dir}/memory.max`, max])),
  });

describe('memory.max', () => {
  it('"max" is no limit; a number is bytes; v1\'s huge "no limit" is none too', () => {
    expect(parseMemoryMax('max\n')).toBeUndefined();
    expect(parseMemoryMax('4294967296\n')).toBe(4 * 1024 ** 3);
    expect(parseMemoryMax('9223372036854771712')).toBeUndefined();
    expect(() => parseMemoryMax('4G')).toThrow(/not a memory limit/);
  });

  it("finds the process's memory cgroup, v2 or v1", () => {
    expect(parseCgroup(`0::/${SERVICE}\n`)).toEqual({ version: 2, path: `/${SERVICE}` });
    expect(parseCgroup('12:pids:/x\n4:memory:/docker/abc\n0::/\n')).toEqual({ version: 1, path: '/docker/abc' });
    expect(parseCgroup('')).toBeUndefined();
  });

  it('the smallest limit on the cgroup and its parents counts', () => {
    expect(processMemoryBound(4242, v2({ [SERVICE]: '4294967296\n', 'system.slice': 'max\n' }))).toEqual({
      known: true,
      bytes: 4 * 1024 ** 3,
      cgroup: `/${SERVICE}`,
    });
    expect(processMemoryBound(4242, v2({ [SERVICE]: 'max\n', 'system.slice': '2147483648\n' }))).toMatchObject({ bytes: 2 * 1024 ** 3 });
    expect(processMemoryBound(4242, v2({ [SERVICE]: 'max\n', 'system.slice': 'max\n' }))).toMatchObject({ known: true, bytes: undefined });
  });

  it('cannot know: no such process, not PostgreSQL (another pid namespace), a cgroup this machine does not show', () => {
    expect(processMemoryBound(99, v2({ [SERVICE]: 'max\n' }))).toMatchObject({ known: false });
    const other = machine({ 'proc/4242/cgroup': `0::/${SERVICE}\n`, 'proc/4242/comm': 'kworker/0:1\n' });
    expect(processMemoryBound(4242, other)).toMatchObject({ known: false, why: expect.stringMatching(/not PostgreSQL/) });
    const hidden = machine({ 'proc/4242/cgroup': '4:memory:/process_api/abc\n', 'proc/4242/comm': 'postgres\n' });
    expect(processMemoryBound(4242, hidden)).toMatchObject({ known: false, why: expect.stringMatching(/not visible here/) });
  });

  it('a server on this machine: embedded, localhost, a socket; not a remote one', () => {
    expect(isLocalDatabase(undefined)).toBe(true);
    expect(isLocalDatabase('postgres://u:p@localhost:5432/db')).toBe(true);
    expect(isLocalDatabase('postgres://u@127.0.0.1/db')).toBe(true);
    expect(isLocalDatabase('postgres://u@[::1]:5432/db')).toBe(true);
    expect(isLocalDatabase('postgres:///db?host=/var/run/postgresql')).toBe(true);
    expect(isLocalDatabase('postgres://u@db.internal:5432/db')).toBe(false);
  });
});

describe('the start-up warning', () => {
  const pool = { query: async () => ({ rows: [{ pid: 4242 }] }) } as unknown as pg.Pool;

  it('one warning line when the local server has no limit', async () => {
    const logger = createMemoryLogger();
    await warnUnboundedMemory(pool, 'postgres://u@localhost/db', logger, v2({ [SERVICE]: 'max\n' }));
    const warnings = logger.lines.filter((l) => l.startsWith('warn: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/PostgreSQL \(cgroup \/system\.slice\/postgresql@17-main\.service\) has no memory limit: .*MemoryMax=4G/);
  });

  it('nothing above debug when it has one, when it is remote, or when it cannot be read', async () => {
    for (const [url, root] of [
      ['postgres://u@localhost/db', v2({ [SERVICE]: '4294967296\n' })],
      ['postgres://u@db.internal/db', v2({ [SERVICE]: 'max\n' })],
      [undefined, machine({})],
    ] as const) {
      const logger = createMemoryLogger();
      await warnUnboundedMemory(pool, url, logger, root);
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]).toMatch(/^debug: PostgreSQL memory limit: /);
    }
  });
});
