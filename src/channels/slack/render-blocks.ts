// The Answer in Block Kit. Slack's limits are met by splitting, never by
// failing: at most 3,000 characters a section, 50 blocks a message (more become
// further messages in the thread), 2,000 characters a button value.
import type { Answer, AnswerTable } from '../../core/answer.js';
import { alignedTable } from '../text-table.js';

export type Block = { type: string } & Record<string, unknown>;
export interface SlackMessage {
  /** the notification / fallback text */
  text: string;
  blocks: Block[];
}

export const SECTION_LIMIT = 3_000;
export const BLOCKS_PER_MESSAGE = 50;
const SQL_LINES_SHOWN = 8;
const TABLE_ROWS_SHOWN = 10;

/** Splits text into pieces of at most `limit` characters, at line ends where possible. */
export function chunkText(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf('\n', limit);
    if (cut <= 0) cut = limit;
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
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text: text.slice(0, SECTION_LIMIT), verbatim: true }] });
/** Slack mrkdwn treats &, < and > specially: escape text that comes from data. */
export const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Data with ``` would close the code block early: a zero-width space keeps the backticks apart. */
const fenceSafe = (s: string) => s.replace(/```/g, '`\u200B`\u200B`');

function sections(text: string): Block[] {
  return chunkText(escapeMrkdwn(text), SECTION_LIMIT).map(mrkdwn);
}

/** A code block split so that each piece, fences included, fits a section. */
function codeSections(code: string): Block[] {
  return chunkText(fenceSafe(code), SECTION_LIMIT - 8).map((piece) => mrkdwn('```' + escapeMrkdwn(piece) + '```'));
}

function tableBlocks(t: AnswerTable, title?: string): Block[] {
  const shown = Math.min(TABLE_ROWS_SHOWN, t.rows.length);
  return [
    ...(title ? [context(`*${escapeMrkdwn(title)}*`)] : []),
    ...codeSections(alignedTable(t, { maxRows: TABLE_ROWS_SHOWN, maxCellWidth: 40 })),
    context(`showing ${shown} of ${t.rowCount.toLocaleString('en-US')} rows`),
  ];
}

function sqlBlocks(sql: string): Block[] {
  const lines = sql.split('\n');
  if (lines.length <= SQL_LINES_SHOWN) return codeSections(sql);
  return [
    ...codeSections([...lines.slice(0, SQL_LINES_SHOWN), '…'].join('\n')),
    {
      type: 'actions',
      elements: [{ type: 'button', action_id: 'show_sql', text: { type: 'plain_text', text: `Full SQL (${lines.length} lines)` }, value: sql.slice(0, 2_000) }],
    },
  ];
}

/** The blocks of an answer, possibly more than one message's worth; `text` (the notification) is escaped too. */
export function answerBlocks(answer: Answer): { text: string; blocks: Block[] } {
  const { text, blocks } = answerParts(answer);
  return { text: escapeMrkdwn(text).slice(0, 3_000), blocks };
}

function answerParts(answer: Answer): { text: string; blocks: Block[] } {
  switch (answer.kind) {
    case 'result': {
      const rest = answer.narration.startsWith(answer.headline) ? answer.narration.slice(answer.headline.length).trim() : answer.narration;
      const blocks: Block[] = [mrkdwn(`*${escapeMrkdwn(answer.headline).slice(0, SECTION_LIMIT - 2)}*`), ...(rest ? sections(rest) : [])];
      if (answer.understood?.length) blocks.push(context(`Understood as: ${escapeMrkdwn(answer.understood.join(' · '))}`));
      if (answer.table) blocks.push(...tableBlocks(answer.table));
      for (const extra of answer.extraTables) blocks.push(...tableBlocks(extra.table, extra.title));
      for (const sql of answer.sql) blocks.push(...sqlBlocks(sql));
      if (answer.assumptions.length) blocks.push(context(`Assumptions: ${escapeMrkdwn(answer.assumptions.join('; '))}`));
      for (const note of answer.notes) blocks.push(context(escapeMrkdwn(note)));
      if (answer.freshness) blocks.push(context(`Data: ${escapeMrkdwn(answer.freshness)}`));
      return { text: answer.headline, blocks };
    }
    case 'clarify':
      return {
        text: answer.question,
        blocks: [
          mrkdwn(escapeMrkdwn(answer.question)),
          {
            type: 'actions',
            block_id: `clarify:${answer.term}`,
            elements: answer.options.map((o) => ({
              type: 'button',
              action_id: `clarify:${o.id}`,
              text: { type: 'plain_text', text: o.label.slice(0, 75) },
              value: JSON.stringify({ term: answer.term, option: o.id }),
            })),
          },
          ...answer.options.filter((o) => o.description).map((o) => context(`*${escapeMrkdwn(o.label)}*: ${escapeMrkdwn(o.description!)}`)),
        ],
      };
    case 'refusal':
      return { text: answer.reason, blocks: [...sections(answer.reason), ...answer.alternatives.map((a) => context(`• ${escapeMrkdwn(a)}`))] };
    case 'error':
      return { text: answer.message, blocks: sections(`:warning: ${answer.message}${answer.retryable ? ' (Trying again later may work.)' : ''}`) };
  }
}

/** Splits an answer's blocks into messages of at most 50 blocks. */
export function renderAnswerMessages(answer: Answer): SlackMessage[] {
  const { text, blocks } = answerBlocks(answer);
  const messages: SlackMessage[] = [];
  for (let i = 0; i < blocks.length; i += BLOCKS_PER_MESSAGE) {
    messages.push({ text: i === 0 ? text : `${text} (continued)`, blocks: blocks.slice(i, i + BLOCKS_PER_MESSAGE) });
  }
  return messages.length ? messages : [{ text, blocks: [] }];
}
