// Telling "the database is not there" apart from "the query is wrong": the
// first is said to the user as a short, retryable sentence and never fed back
// to the model as if its SQL were at fault.

/** Node socket errors and PostgreSQL's connection-exception / shutdown classes. */
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|the database system is (starting up|shutting down|in recovery mode)/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: string; message?: string } | undefined;
  if (!e) return false;
  const code = e.code ?? '';
  // 08xxx connection exceptions, 57P01-57P04 shutdown, cannot connect now, database dropped; 53300 too many
  // connections; 3D000 the database does not exist (yet); 55000 "not currently accepting connections"
  // (ALTER DATABASE ... ALLOW_CONNECTIONS false): none of them says anything about the question
  if (/^08/.test(code) || /^57P0[1-4]$/.test(code) || code === '53300' || code === '3D000' || UNAVAILABLE_NODE_CODES.has(code)) return true;
  if (code === '55000' && /not currently accepting connections/i.test(e.message ?? '')) return true;
  return UNAVAILABLE_MESSAGES.test(e.message ?? '');
}

export class DatabaseUnavailableError extends Error {
  constructor(readonly cause: Error) {
    super(`The database is unavailable (${cause.message})`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** What a user is told when the database is down (retryable). */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable right now; please try again shortly.';
