// What a thread remembers between questions: the glossary choices made there,
// a question waiting for a clarification, and the recent questions with their
// SQL (for follow-ups such as "and in 2020?"). Stored in keyv with a TTL:
// the app's PostgreSQL by default (always there, survives restarts and CLI
// calls), Redis when THREAD_MEMORY_URL is redis://..., or process memory.
import Keyv from 'keyv';
import KeyvPostgres from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';

export interface PastQuestion {
  question: string;
  sql?: string;
  /** the verified query it was answered with offline, and the slots, for follow-ups */
  verifiedId?: string;
  slots?: Record<string, string | number>;
  /** the question whose wording chose the verified query (a follow-up keeps its first question's) */
  basis?: string;
}

export interface ThreadState {
  clarifications: Record<string, string>;
  /** a question waiting for a clarification, and who asked it */
  pending?: { question: string; term: string; userId?: string };
  history: PastQuestion[];
}

const empty = (): ThreadState => ({ clarifications: {}, history: [] });

export class ThreadMemory {
  constructor(
    private readonly store: Keyv<ThreadState>,
    private readonly ttlMs: number,
  ) {}

  async get(threadId: string): Promise<ThreadState> {
    return (await this.store.get(threadId)) ?? empty();
  }

  async update(threadId: string, change: (state: ThreadState) => void): Promise<ThreadState> {
    const state = await this.get(threadId);
    change(state);
    state.history = state.history.slice(-5);
    await this.store.set(threadId, state, this.ttlMs);
    return state;
  }

  async close(): Promise<void> {
    await this.store.disconnect().catch(() => undefined);
  }
}

/** A keyv store from a URL: memory, redis://..., or postgres://... (the app database by default). */
export function createKeyv<T>(url: string, namespace: string): Keyv<T> {
  if (url === 'memory') return new Keyv<T>({ namespace });
  if (/^rediss?:\/\//.test(url)) return new Keyv<T>({ store: new KeyvRedis(url), namespace });
  if (/^postgres(ql)?:\/\//.test(url)) return new Keyv<T>({ store: new KeyvPostgres({ uri: url, table: 'keyv_store' }), namespace });
  throw new Error(`THREAD_MEMORY_URL: expected memory, redis://... or postgres://..., not ${url.split(':')[0]}:`);
}
