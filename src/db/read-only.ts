// Where agent SQL runs: a READ ONLY transaction with a statement timeout, on
// the pool it is given (the reader login's for model-written SQL). Two limits
// are enforced by us as well as by the server, because a query can outlast or
// outgrow what the server's settings catch:
// - a watchdog closes the connection when the query runs past the timeout
//   plus a grace period (the reader role's client_connection_check_interval
//   then stops the backend within a second);
// - the bytes the server sends are counted on the socket, and past the cap the
//   connection is closed before the client buffers more.
import type pg from 'pg';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './errors.js';
import { bestEffort } from '../core/best-effort.js';

export interface ReadOnlyOptions {
  statementTimeoutMs: number;
  /** the most bytes the server may send for this work; undefined: no cap (our own bulk reads) */
  maxResultBytes?: number;
  /**
   * close the connection when the work runs past the timeout plus a grace
   * period: for one model-written statement (a bulk read of many statements
   * relies on the per-statement timeout alone)
   */
  watchdog?: boolean;
  /** aborted: the work is stopped and its connection closed (a download whose client went away) */
  signal?: AbortSignal;
}

/** The work was stopped because its caller went away (the signal was aborted). */
export class WorkAbandonedError extends Error {
  constructor() {
    super('stopped: the client went away');
    this.name = 'WorkAbandonedError';
  }
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

export class QueryTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The query took longer than ${seconds(timeoutMs)} s and was stopped`);
    this.name = 'QueryTimeoutError';
  }
}

/** The result, or the work to produce it, went past a resource limit (bytes, temp files, memory). */
export class QueryTooBigError extends Error {
  constructor(readonly what: string) {
    super(`The query's result is too big (${what}) and was stopped`);
    this.name = 'QueryTooBigError';
  }
}

/** The connection's socket: node-postgres keeps it on client.connection.stream. */
function socketOf(client: pg.PoolClient): NodeJS.EventEmitter & { destroy(error?: Error): void } {
  return (client as unknown as { connection: { stream: NodeJS.EventEmitter & { destroy(error?: Error): void } } }).connection.stream;
}

const GRACE_MS = 2_000;

/**
 * `work` runs inside the transaction; with a watchdog it may call `rearm` before each further statement of
 * model-written SQL (an EXPLAIN, then the query), so that each has the whole timeout plus grace, as it would
 * in a transaction of its own.
 */
export async function withReadOnly<T>(
  pool: pg.Pool,
  options: ReadOnlyOptions,
  work: (client: pg.PoolClient, rearm: () => void) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new DatabaseUnavailableError(error as Error);
    throw error;
  }
  const socket = socketOf(client);
  let stopped: Error | undefined;
  const stop = (why: Error) => {
    stopped ??= why;
    socket.destroy();
  };
  const arm = () => setTimeout(() => stop(new QueryTimeoutError(options.statementTimeoutMs)), options.statementTimeoutMs + GRACE_MS);
  let watchdog = options.watchdog ? arm() : undefined;
  const rearm = () => {
    if (watchdog === undefined || stopped) return;
    clearTimeout(watchdog);
    watchdog = arm();
  };
  // the backend sees its client go within a second (client_connection_check_interval) and stops
  const abandon = () => stop(new WorkAbandonedError());
  if (options.signal?.aborted) abandon();
  options.signal?.addEventListener('abort', abandon, { once: true });
  // a connection closed under a running query also emits 'error' on the client: handled here, not by the process
  const onError = () => undefined;
  client.on('error', onError);
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (options.maxResultBytes !== undefined && received > options.maxResultBytes) {
      stop(new QueryTooBigError(`more than ${Math.round(options.maxResultBytes / 1_048_576)} MB`));
    }
  };
  // only where a cap applies: a listener of our own must not meddle with COPY's flow control
  if (options.maxResultBytes !== undefined) socket.on('data', count);
  let broken = false;
  try {
    // one round trip. JIT off: compiling a query's expressions costs 50-100 ms at 8.5M rows, more than it saves on
    // the short answers asked here ("which blocks had the most thefts" from the whole table: 630 -> 559 ms)
    await client.query(
      `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.statementTimeoutMs))}; SET LOCAL jit = off`,
    );
    const result = await work(client, rearm);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    broken = Boolean(stopped) || isDatabaseUnavailable(error);
    if (!broken) await bestEffort(client.query('ROLLBACK'), 'ROLLBACK of a read-only query');
    throw classify(error, options, stopped);
  } finally {
    clearTimeout(watchdog);
    options.signal?.removeEventListener('abort', abandon);
    socket.off('data', count);
    client.off('error', onError);
    client.release(broken ? true : undefined);
  }
}

function classify(error: unknown, options: ReadOnlyOptions, stopped: Error | undefined): unknown {
  if (stopped) return stopped;
  const code = (error as { code?: string }).code;
  if (code === '57014') return new QueryTimeoutError(options.statementTimeoutMs);
  // 53100 disk full, 53200 out of memory, 53400 temp_file_limit, 54000 program limit (e.g. a value over 1 GB)
  if (code === '53100' || code === '53200' || code === '53400' || code === '54000') return new QueryTooBigError((error as Error).message);
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError(error as Error);
  return error;
}
