// What a thread remembers between questions: the glossary choices made there,
// a question waiting for a clarification, and the recent answers as resolved
// (the plan, the SQL, the question in full words), for fragments such as
// "and in 2020?" to edit. Stored in keyv with a TTL:
// the app's PostgreSQL by default (always there, survives restarts and CLI
// calls), Redis when THREAD_MEMORY_URL is redis://..., or process memory.
import Keyv from 'keyv';
import { createRequire } from 'node:module';
import type KeyvRedisStore from '@keyv/redis';
import type pg from 'pg';
import { PgKeyvStore } from './pg-keyv-store.js';
import { bestEffort } from '../core/best-effort.js';

/** One answer of the thread, as resolved: what a fragment after it edits. */
export interface PastQuestion {
  /** the question answered, in full words (a fragment's resolved question, not its words) */
  question: string;
  /** the words typed, when they differ */
  asked?: string;
  sql?: string;
  /** the resolved query plan: a fragment edits it */
  plan?: unknown;
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
    await bestEffort(this.store.disconnect(), 'disconnecting the thread memory store');
  }
}

/**
 * A keyv store: 'memory', redis://..., or the app's own PostgreSQL pool
 * (the default). Store errors are thrown, never read as "nothing stored".
 */
export function createKeyv<T>(where: 'memory' | string | pg.Pool, namespace: string): Keyv<T> {
  const options = { namespace, throwOnErrors: true };
  if (where === 'memory') return new Keyv<T>(options);
  if (typeof where !== 'string') return new Keyv<T>({ ...options, store: new PgKeyvStore(where) });
  if (/^rediss?:\/\//.test(where)) {
    // loaded only for a Redis URL: the others skip its ~60 ms
    const KeyvRedis = (createRequire(import.meta.url)('@keyv/redis') as { default: typeof KeyvRedisStore }).default;
    const keyv = new Keyv<T>({ ...options, store: new KeyvRedis(where) });
    keyv.on('error', () => undefined); // thrown to the caller as well; the listener only keeps the emitter quiet
    return keyv;
  }
  throw new Error(`THREAD_MEMORY_URL: expected memory or redis://..., not ${where.split(':')[0]}: (the default is the app's PostgreSQL)`);
}
