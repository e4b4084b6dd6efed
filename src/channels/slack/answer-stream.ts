// A Slack answer as one streamed message (chat.startStream, appendStream,
// stopStream): it opens with the question's place in line, shows each step as
// a task of a timeline while the job runs, then the headline as markdown, and
// ends with the table, chart, SQL and follow-ups as its final blocks, with the
// placeholder's metadata so that it can be found again like any answer.
//
// Exactly once: the stream's ts is recorded as the delivery's placeholder
// (with stream: '1') the moment Slack returns it, and the start itself is
// recorded before it is asked for ('stream:starting:<ms>'), so a retry either
// continues the recorded stream or finds the one a dead process started (a
// bot message of that moment, with no metadata, that no delivery has claimed).
// A stream Slack has closed (it expires when appends stop for a while) is
// finished with chat.update, which replaces what was streamed.
//
// Where streaming is not there (an older Slack, a token or workspace without
// it), the first refusal turns it off for that workspace in this process and
// the placeholder-and-update path answers instead.
import type { WebClient } from '@slack/web-api';
import type { AnswerSources } from '../../core/answer.js';

/** Refusals that mean "this Slack has no streaming here", not "try again". */
const STREAMING_ABSENT = new Set([
  'unknown_method',
  'not_allowed_token_type',
  'missing_scope',
  'feature_not_enabled',
  'method_deprecated',
  'not_allowed',
]);
/** chat.appendStream / stopStream on a message Slack no longer streams (it expired, or was stopped). */
export const STREAM_CLOSED = 'message_not_in_streaming_state';

/** Whether to stream answers, per workspace: on unless configured off, until Slack says it has no streaming there. */
export class StreamSupport {
  private readonly absent = new Set<string>();
  constructor(readonly enabled = true) {}

  on(workspace: string | undefined): boolean {
    return this.enabled && !this.absent.has(workspace ?? '');
  }

  /** Learns from a refused chat.startStream: a code that means "no streaming here" turns it off for the workspace. */
  refused(workspace: string | undefined, code: string): void {
    if (STREAMING_ABSENT.has(code)) this.absent.add(workspace ?? '');
  }
}

/** Where a stream goes: a thread, and (outside a DM, where Slack requires them) the person and team it is for. */
export interface StreamPlace {
  channel: string;
  threadTs: string;
  userId?: string;
  workspace?: string;
}

/** One line of the timeline a stream shows while the answer is worked out. */
export interface StreamTask {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'complete' | 'error';
}

export const taskChunk = (t: StreamTask) => ({ type: 'task_update' as const, id: t.id, title: t.title, status: t.status });

/** A task's details and output hold at most 256 characters each (chat.appendStream task_update chunks). */
const TASK_TEXT_LIMIT = 256;
const taskText = (s: string) => (s.length <= TASK_TEXT_LIMIT ? s : `${s.slice(0, TASK_TEXT_LIMIT - 1)}…`);

/**
 * An answer's sources as the stream's last tasks, so the timeline says what was checked: the question as
 * resolved and the plan read from it, then the SQL that ran, on which table, and what came back. The whole SQL
 * is in the message's blocks (a task's details hold 256 characters).
 */
export function sourceTasks(s: AnswerSources) {
  const rows = `${s.rowsReturned.toLocaleString('en-US')} row${s.rowsReturned === 1 ? '' : 's'} returned`;
  return [
    {
      type: 'task_update' as const,
      id: 'sources:question',
      title: 'Question understood',
      status: 'complete' as const,
      details: taskText(
        [s.question, s.understood?.length ? `understood as: ${s.understood.join(' · ')}` : undefined].filter(Boolean).join(' — ') ||
          'as asked',
      ),
    },
    {
      type: 'task_update' as const,
      id: 'sources:sql',
      title: taskText(`Ran the SQL on ${s.tables.join(', ') || 'no table'}`),
      status: 'complete' as const,
      details: taskText(s.sql.replace(/\s+/g, ' ').trim()),
      output: taskText(`${rows} on ${s.ranOn}${s.freshness ? ` · data: ${s.freshness}` : ''}`),
    },
  ];
}

/** A DM (D…) or the agent view: Slack needs no recipient there; anywhere else it needs the user and team. */
export function canStream(place: StreamPlace): boolean {
  return place.channel.startsWith('D') || Boolean(place.userId && place.workspace);
}

/** The first task of a stream: the question's place in line, then "Question received" once a worker has it. */
export const WAIT_TASK = 'wait';

/** The step that records a stream being asked for, with the moment (ms) it was. */
export const STREAM_STARTING = 'stream:starting:';

/** Opens the stream with its first task; returns its ts. */
export async function openStream(client: WebClient, place: StreamPlace, first: StreamTask): Promise<string> {
  const res = await client.chat.startStream({
    channel: place.channel,
    thread_ts: place.threadTs,
    ...(place.channel.startsWith('D') ? {} : { recipient_user_id: place.userId, recipient_team_id: place.workspace }),
    task_display_mode: 'timeline',
    chunks: [taskChunk(first)],
  });
  if (!res.ts) throw new Error('Slack answered chat.startStream without a ts');
  return res.ts;
}

/**
 * Markdown that shows data as written: the characters Markdown reads as
 * emphasis, code, links, HTML, entities (&#64;here would be "@here"), tables
 * or headings are escaped with a backslash (CommonMark), so a block named
 * "[click](https://evil)" stays text; and a word joiner after
 * "://" and "www" keeps a URL in the data (or in a hostile model's words) from
 * becoming a link, and one after "@" keeps @here, @channel and @everyone from
 * notifying anyone, as `verbatim` does for the mrkdwn blocks.
 */
export const escapeMarkdown = (s: string) =>
  s
    .replace(/[\\`*_~[\]<>&|]/g, '\\$&')
    .replace(/^(\s*)#/gm, '$1\\#')
    .replace(/:\/\//g, ':\u2060//')
    .replace(/@(?=(here|channel|everyone)\b)/gi, '@\u2060')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\u2060.`);
