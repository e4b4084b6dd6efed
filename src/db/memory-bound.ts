// Whether the PostgreSQL server has a memory bound the operating system
// enforces. The walls in front of model-written SQL (sql-guard.ts,
// sql-growth.ts, explain-budget.ts) bound what one query can build, but
// PostgreSQL's own settings bound neither one value nor an aggregate's state:
// a cgroup limit on the service (systemd MemoryMax=, docker --memory) is the
// wall behind them, so that a query that slips through fails alone instead of
// taking the machine. Only a server on this machine can be looked at: its
// backends are children of the postmaster, in its cgroup, so the pid of the
// connection's backend leads to /proc/<pid>/cgroup and from there to
// memory.max (cgroup v2) or memory.limit_in_bytes (v1), the smallest along
// the path counting. A remote server, or one in another pid namespace (a
// container reached on localhost), cannot be known and is not warned about.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from '../core/logger.js';

/** cgroup v1 writes "no limit" as a huge page-aligned number (9223372036854771712) */
const V1_UNLIMITED = 2 ** 62;

/** A cgroup's memory.max (v2) or memory.limit_in_bytes (v1): its bytes, or undefined for "max", no limit. */
export function parseMemoryMax(text: string): number | undefined {
  const value = text.trim();
  if (value === 'max' || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`not a memory limit: ${value}`);
  const bytes = Number(value);
  return bytes >= V1_UNLIMITED ? undefined : bytes;
}

/** The memory cgroup of a process, from /proc/<pid>/cgroup: the v2 path ("0::/…"), else the v1 memory controller's. */
export function parseCgroup(text: string): { version: 1 | 2; path: string } | undefined {
  const lines = text.split('\n').filter(Boolean);
  const v1 = lines.map((l) => l.split(':')).find(([, controllers]) => controllers.split(',').includes('memory'));
  if (v1) return { version: 1, path: v1.slice(2).join(':') };
  const v2 = lines.find((l) => l.startsWith('0::'));
  return v2 ? { version: 2, path: v2.slice(3) } : undefined;
}

export type MemoryBound =
  /** bytes: the smallest limit on the process's cgroup and its parents; undefined when none is set */
  { known: true; bytes: number | undefined; cgroup: string } | { known: false; why: string };

/** The memory limit of a process on this machine. `root`: where /proc and /sys are (tests give a directory of their own). */
export function processMemoryBound(pid: number, root = '/'): MemoryBound {
  const procFile = path.join(root, 'proc', String(pid), 'cgroup');
  if (!existsSync(procFile)) return { known: false, why: `no process ${pid} here` };
  const comm = path.join(root, 'proc', String(pid), 'comm');
  if (existsSync(comm) && !/postgres|postmaster/.test(readFileSync(comm, 'utf8'))) {
    return { known: false, why: `process ${pid} here is not PostgreSQL (another pid namespace)` };
  }
  const cgroup = parseCgroup(readFileSync(procFile, 'utf8'));
  if (!cgroup) return { known: false, why: `no memory cgroup in ${procFile}` };
  const base = cgroup.version === 2 ? path.join(root, 'sys/fs/cgroup') : path.join(root, 'sys/fs/cgroup/memory');
  const file = cgroup.version === 2 ? 'memory.max' : 'memory.limit_in_bytes';
  const own = path.join(base, cgroup.path);
  // a cgroup path this mount namespace does not show says nothing about the limit
  if (!existsSync(own)) return { known: false, why: `${own} is not visible here` };
  let smallest: number | undefined;
  for (let dir = own; dir.startsWith(base); dir = path.dirname(dir)) {
    const limitFile = path.join(dir, file);
    if (existsSync(limitFile)) {
      const bytes = parseMemoryMax(readFileSync(limitFile, 'utf8'));
      if (bytes !== undefined && (smallest === undefined || bytes < smallest)) smallest = bytes;
    }
    if (dir === base) break;
  }
  return { known: true, bytes: smallest, cgroup: cgroup.path };
}

/** Whether a connection string reaches a server on this machine (the embedded server has none: it is). */
export function isLocalDatabase(url: string | undefined): boolean {
  if (!url) return true;
  let host: string;
  try {
    const parsed = new URL(url);
    host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host') || '';
  } catch {
    return false;
  }
  return host === '' || host.startsWith('/') || host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host === '::1';
}

const UNBOUNDED_WARNING =
  'has no memory limit: a query that gets past the SQL walls can take all of this machine\'s memory. Bound the service, e.g. `systemctl edit postgresql@17-main` with "[Service] MemoryMax=4G", or `docker run --memory 4g` (README: "The walls around model-written SQL").';

/**
 * Says once, at start, when the database server is on this machine and has no memory limit (a warning), or what
 * its limit is or why it cannot be known (debug). Never throws: this is advice, not a condition to start.
 */
export async function warnUnboundedMemory(pool: pg.Pool, databaseUrl: string | undefined, logger: Logger, root = '/'): Promise<void> {
  try {
    if (!isLocalDatabase(databaseUrl)) {
      logger.debug('PostgreSQL memory limit: the server is not on this machine, so its limit cannot be read here');
      return;
    }
    const pid = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const bound = processMemoryBound(pid, root);
    if (!bound.known) logger.debug(`PostgreSQL memory limit: cannot be read (${bound.why})`);
    else if (bound.bytes === undefined) logger.warn(`PostgreSQL (cgroup ${bound.cgroup}) ${UNBOUNDED_WARNING}`);
    else logger.debug(`PostgreSQL memory limit: ${(bound.bytes / 1024 ** 3).toFixed(1)} GB (cgroup ${bound.cgroup})`);
  } catch (error) {
    logger.debug(`PostgreSQL memory limit: cannot be read (${(error as Error).message})`);
  }
}
