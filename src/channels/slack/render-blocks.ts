// The Answer in Block Kit. Slack's limits are met by splitting, never by
// failing: at most 3,000 characters a section, 50 blocks a message (more become
// further messages in the thread), 2,000 characters a button value.
//
// The result table is a native data_table and a small chart a native
// data_visualization (native-blocks.ts) where they fit; `classic` draws them as
// a code block and leaves the chart to the PNG upload, for a workspace whose
// Slack refuses the new blocks (invalid_blocks).
import { encodeFollowUp } from '../../core/follow-up-value.js';
import type { Answer, AnswerSources, AnswerTable } from '../../core/answer.js';
import { narrationAfterHeadline, rowsShown, sourceLines } from '../../core/answer.js';
import { encodeRerun } from '../../core/rerun.js';
import { alignedTable } from '../text-table.js';
import { chartBlock, dataTableBlock } from './native-blocks.js';
import { escapeMarkdown } from './answer-stream.js';
import type { Block, SlackMessage } from './block-types.js';

export const SECTION_LIMIT = 3_000;
export const BLOCKS_PER_MESSAGE = 50;
const SQL_LINES_SHOWN = 8;
const TABLE_ROWS_SHOWN = 10;

/** Slack's guidance for a message's top-level `text`: under 4,000 characters (40,000 are truncated). */
export const TEXT_LIMIT = 4_000;
/** A button's value holds at most 2,000 characters. */
const BUTTON_VALUE_LIMIT = 2_000;
/** An actions block holds at most 25 elements. */
const ACTIONS_PER_BLOCK = 25;

/**
 * Where to cut `s` at or before `limit` so that no piece ends inside an entity
 * (&amp; &lt; &gt;, which Slack would show as "&am") or between the two halves
 * of a character outside the BMP.
 */
function safeCut(s: string, limit: number): number {
  let cut = limit;
  const amp = s.lastIndexOf('&', cut - 1);
  if (amp >= 0 && amp >= cut - 4) {
    const semi = s.indexOf(';', amp);
    if (semi >= cut && semi - amp <= 4) cut = amp;
  }
  const before = s.charCodeAt(cut - 1);
  if (before >= 0xd800 && before <= 0xdbff) cut--;
  return cut;
}

/** The first `limit` characters of (escaped) text, cut where nothing breaks, with `more` at the end when cut. */
export function cutText(s: string, limit: number, more = '…'): string {
  if (s.length <= limit) return s;
  return s.slice(0, safeCut(s, limit - more.length)) + more;
}

/** Splits text into pieces of at most `limit` characters, at line ends where possible, never inside an entity. */
export function chunkText(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf('\n', limit);
    if (cut <= 0) cut = safeCut(rest, limit);
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest) out.push(rest);
  return out;
}

// Every text here is data, the user's words or the model's, so it must stay
// inert: &, < and > are escaped (Slack's only link and mention syntax is
// <url|label>, <!channel>, <@U123>), and `verbatim` stops Slack from turning
// bare URLs, #channel names and @channel/@here into links and mentions itself.
// (Slack mrkdwn has no [label](url) links: such text shows as written.)
const mrkdwn = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } });
const context = (text: string): Block => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: cutText(text, SECTION_LIMIT), verbatim: true }],
});
/** Slack mrkdwn treats &, < and > specially: escape text that comes from data. */
export const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Data with ``` would close the code block early: a zero-width space keeps the backticks apart. */
const fenceSafe = (s: string) => s.replace(/```/g, '`\u200B`\u200B`');

function sections(text: string): Block[] {
  return chunkText(escapeMrkdwn(text), SECTION_LIMIT).map(mrkdwn);
}

/** A code block split so that each piece, escaped and fences included, fits a section (escaping first: "<" is 4 characters once sent). */
export function codeSections(code: string): Block[] {
  return chunkText(escapeMrkdwn(fenceSafe(code)), SECTION_LIMIT - 6).map((piece) => mrkdwn('```' + piece + '```'));
}

/** A message's markdown blocks hold 12,000 characters in all: the narration takes one, well under it. */
const MARKDOWN_LIMIT = 6_000;

/** The narration after the headline: a markdown block (Slack renders it as written), or mrkdwn sections where classic. */
function narrationBlocks(text: string, extras: RenderOptions): Block[] {
  const markdown = escapeMarkdown(text);
  if (extras.classic || markdown.length > MARKDOWN_LIMIT) return sections(text);
  return [{ type: 'markdown', text: markdown }];
}

/** How an answer is drawn: with Slack's native data blocks, or classic (code-block tables, the chart as a PNG). */
export interface RenderOptions {
  exportKey?: string;
  classic?: boolean;
  /** 👍/👎 as feedback_buttons under the answer (a delivered reply; reactions count as well) */
  feedback?: boolean;
}

/** The action id of the feedback_buttons under an answer. */
export const FEEDBACK_ACTION = 'answer_feedback';

const feedbackBlock = (): Block => ({
  type: 'context_actions',
  elements: [
    {
      type: 'feedback_buttons',
      action_id: FEEDBACK_ACTION,
      positive_button: { text: { type: 'plain_text', text: 'Good answer' }, value: 'up', accessibility_label: 'Mark this answer as good' },
      negative_button: {
        text: { type: 'plain_text', text: 'Wrong answer' },
        value: 'down',
        accessibility_label: 'Mark this answer as wrong or unhelpful',
      },
    },
  ],
});

/** Whether the answer's chart goes in its blocks (a data_visualization) rather than as an uploaded PNG. */
export function chartInBlocks(answer: Answer, options: RenderOptions = {}): boolean {
  return !options.classic && answer.kind === 'result' && answer.chart !== undefined && chartBlock(answer.chart) !== undefined;
}

/**
 * The main table as a data_table (numbers that sort as numbers, paged by Slack), with what it leaves out. A query's
 * result also says how many rows it has; a backtest's KPI table is no query result, and its rows are the KPIs.
 */
function nativeTableBlocks(t: AnswerTable, caption: string, queryResult: boolean): Block[] | undefined {
  const table = dataTableBlock(t, caption);
  if (!table) return undefined;
  const shown = (table.rows as unknown[]).length - 1;
  if (shown < t.rowCount) return [table, context(`showing ${shown.toLocaleString('en-US')} of ${t.rowCount.toLocaleString('en-US')} rows`)];
  return queryResult ? [table, context(`${t.rowCount.toLocaleString('en-US')} row${t.rowCount === 1 ? '' : 's'}`)] : [table];
}

function tableBlocks(t: AnswerTable, title?: string): Block[] {
  const shown = rowsShown(t, TABLE_ROWS_SHOWN);
  return [
    ...(title ? [context(`*${escapeMrkdwn(title)}*`)] : []),
    ...codeSections(alignedTable(t, { maxRows: shown, maxCellWidth: 40 })),
    context(`showing ${shown} of ${t.rowCount.toLocaleString('en-US')} rows`),
  ];
}

function sqlBlocks(sql: string): Block[] {
  const lines = sql.split('\n');
  // SQL a button cannot carry whole is shown whole: a "Full SQL" that showed the first 2,000 characters would not be
  if (lines.length <= SQL_LINES_SHOWN || sql.length > BUTTON_VALUE_LIMIT) return codeSections(sql);
  return [
    ...codeSections([...lines.slice(0, SQL_LINES_SHOWN), '…'].join('\n')),
    {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'show_sql', text: { type: 'plain_text', text: `Full SQL (${lines.length} lines)` }, value: sql },
      ],
    },
  ];
}

/** The blocks of an answer, possibly more than one message's worth; `text` (the notification) is escaped too. */
function answerBlocks(answer: Answer, extras: RenderOptions = {}): { text: string; blocks: Block[] } {
  const { text, blocks } = answerParts(answer, extras);
  return { text: cutText(escapeMrkdwn(text), 3_000), blocks };
}

/** The block_id of a result's headline: a streamed answer sends the headline as streamed text instead (answer-stream.ts). */
export const HEADLINE_BLOCK = 'headline';

/** "Download CSV": uploads all rows of the answer's query into the thread; the value names the delivery the answer is kept on. */
export const EXPORT_ACTION = 'export_csv';
/** A suggested follow-up button ("by month"): action ids follow_up:0, follow_up:1, ... */
const FOLLOW_UP_ACTION = 'follow_up:';
/** "Re-run": the answer's plan asked again on today's data, with what changed since (core/rerun.ts). */
export const RERUN_ACTION = 'rerun';
/** The block_id of an answer's sources line: a streamed answer shows them as task details instead (slack-outbox.ts). */
export const SOURCES_BLOCK = 'sources';

/** An answer's sources as one context line: the question, how it was read, the table it ran on, the rows, the data's day. */
function sourcesBlock(s: AnswerSources): Block {
  const line = sourceLines(s)
    .map((l) => `*${l.label}:* ${escapeMrkdwn(l.text)}`)
    .join(' · ');
  return { ...context(`:mag: Sources · ${line}`), block_id: SOURCES_BLOCK };
}

function answerParts(answer: Answer, extras: RenderOptions): { text: string; blocks: Block[] } {
  switch (answer.kind) {
    case 'result': {
      const rest = narrationAfterHeadline(answer);
      const headline = { ...mrkdwn(`*${cutText(escapeMrkdwn(answer.headline), SECTION_LIMIT - 2)}*`), block_id: HEADLINE_BLOCK };
      const blocks: Block[] = [headline, ...(rest ? narrationBlocks(rest, extras) : [])];
      if (answer.verified) blocks.unshift(context(`:white_check_mark: ${escapeMrkdwn(answer.verified)}`));
      if (answer.understood?.length) blocks.push(context(`Understood as: ${escapeMrkdwn(answer.understood.join(' · '))}`));
      if (answer.table)
        blocks.push(
          ...((!extras.classic && nativeTableBlocks(answer.table, answer.headline, answer.route === 'sql')) || tableBlocks(answer.table)),
        );
      if (answer.table && extras.exportKey && extras.exportKey.length <= BUTTON_VALUE_LIMIT) {
        blocks.push({
          type: 'actions',
          elements: [
            { type: 'button', action_id: EXPORT_ACTION, text: { type: 'plain_text', text: 'Download CSV' }, value: extras.exportKey },
          ],
        });
      }
      for (const extra of answer.extraTables) blocks.push(...tableBlocks(extra.table, extra.title));
      if (answer.chart && chartInBlocks(answer, extras)) blocks.push(chartBlock(answer.chart)!);
      for (const sql of answer.sql) blocks.push(...sqlBlocks(sql));
      if (answer.assumptions.length) blocks.push(context(`Assumptions: ${escapeMrkdwn(answer.assumptions.join('; '))}`));
      for (const note of answer.notes) blocks.push(context(escapeMrkdwn(note)));
      if (answer.freshness) blocks.push(context(`Data: ${escapeMrkdwn(answer.freshness)}`));
      if (answer.sources) blocks.push(sourcesBlock(answer.sources));
      if (extras.feedback && !extras.classic) blocks.push(feedbackBlock());
      const rerun = encodeRerun(answer, BUTTON_VALUE_LIMIT);
      if (rerun) {
        blocks.push({
          type: 'actions',
          block_id: 'rerun',
          elements: [
            {
              type: 'button',
              action_id: RERUN_ACTION,
              text: { type: 'plain_text', text: 'Re-run on today’s data' },
              value: rerun,
              accessibility_label: 'Answer this question again on today’s data and say what changed',
            },
          ],
        });
      }
      if (answer.followUps?.length) {
        // one click asks it in the thread: the button carries the edited plan of this answer
        blocks.push({
          type: 'actions',
          block_id: 'follow_ups',
          elements: answer.followUps.slice(0, 5).map((f, i) => ({
            type: 'button',
            action_id: `${FOLLOW_UP_ACTION}${i}`,
            text: { type: 'plain_text', text: cutText(f.label, 75) },
            value: encodeFollowUp(f, BUTTON_VALUE_LIMIT),
          })),
        });
      }
      return { text: answer.headline, blocks };
    }
    case 'clarify': {
      const buttons = answer.options.map((o, i) => ({
        type: 'button',
        // ids come from the glossary; one too long for Slack's 255 falls back to its position (the value says which)
        action_id: `clarify:${o.id}`.length <= 255 ? `clarify:${o.id}` : `clarify:#${i}`,
        text: { type: 'plain_text', text: (o.label || o.id).slice(0, 75) },
        value: JSON.stringify({ term: answer.term, option: o.id }),
      }));
      // at most 25 buttons an actions block: more options take more blocks
      const actions: Block[] = [];
      for (let i = 0; i < buttons.length; i += ACTIONS_PER_BLOCK) {
        const n = i / ACTIONS_PER_BLOCK;
        actions.push({
          type: 'actions',
          block_id: `clarify:${answer.term}`.slice(0, 250) + (n ? `:${n + 1}` : ''),
          elements: buttons.slice(i, i + ACTIONS_PER_BLOCK),
        });
      }
      return {
        text: answer.question,
        blocks: [
          ...sections(answer.question),
          ...actions,
          ...answer.options.filter((o) => o.description).map((o) => context(`*${escapeMrkdwn(o.label)}*: ${escapeMrkdwn(o.description!)}`)),
        ],
      };
    }
    case 'refusal':
      return {
        text: answer.reason,
        blocks: [...sections(answer.reason), ...answer.alternatives.map((a) => context(`• ${escapeMrkdwn(a)}`))],
      };
    case 'error':
      return {
        text: answer.message,
        blocks: sections(`:warning: ${answer.message}${answer.retryable ? ' (Trying again later may work.)' : ''}`),
      };
  }
}

/** Splits an answer's blocks into messages of at most 50 blocks. */
export function renderAnswerMessages(answer: Answer, extras: RenderOptions = {}): SlackMessage[] {
  const { text, blocks: all } = answerBlocks(answer, extras);
  // the feedback buttons go on the first message: it is the one the answer is known by (its placeholder's ts)
  const feedback = all.find((b) => b.type === 'context_actions');
  const blocks = all.filter((b) => b !== feedback);
  const messages: SlackMessage[] = [];
  const firstSize = feedback ? BLOCKS_PER_MESSAGE - 1 : BLOCKS_PER_MESSAGE;
  for (let i = 0; i < blocks.length;) {
    const size = i === 0 ? firstSize : BLOCKS_PER_MESSAGE;
    messages.push({ text: i === 0 ? text : `${text} (continued)`, blocks: blocks.slice(i, i + size) });
    i += size;
  }
  if (feedback && messages.length) messages[0].blocks.push(feedback);
  return messages.length ? messages : [{ text, blocks: [] }];
}
