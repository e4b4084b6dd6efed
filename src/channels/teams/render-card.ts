// The Answer as an Adaptive Card (v1.5, which has Table). The chart is Teams'
// own Chart.* where one says the same, with an Image as its fallback; the
// Image is a link to the bot's own unguessable, expiring URL, drawn when first
// fetched, or (no native chart and no public address) drawn now: inline as a
// data URI when small enough for Teams' message size limit, else linked.
// All text is data, the user's words or the model's: it goes in as TextRuns of
// RichTextBlocks, which Teams shows as they are. A TextBlock would read it as
// markdown, so "[click](http://evil)" in a crime description or a narration
// would become a link, and backslash escapes render differently per client.
import type { Answer, AnswerTable, Cell } from '../../core/answer.js';
import { answerText, narrationAfterHeadline, rowsShown } from '../../core/answer.js';
import { cellText } from '../text-table.js';
import { teamsChartElement } from './card-chart.js';
import { CITATION_MARK, citationBytes, citedSource } from './citation.js';
import { renderChart } from '../../charts/render.js';
import type { ChartSpec } from '../../core/answer.js';
import { encodeRerun } from '../../core/rerun.js';

/** The verb of a choice button's Action.Execute (handlers/clarify-click.ts takes it). */
export const CLARIFY_VERB = 'clarify';
/** The verb of "Re-run" under a plan answer (handlers/rerun-click.ts takes it). */
export const RERUN_VERB = 'rerun';
/** A Re-run's value (the plan and the numbers then, core/rerun.ts) at most as long as Slack's button takes: the same value on both. */
const RERUN_VALUE_LIMIT = 2_000;

export type Card = Record<string, unknown>;

const SQL_LINES_SHOWN = 6;
/** Teams shows at most 6 actions on a card (its host config's maxActions): more fail validation. */
const MAX_ACTIONS = 6;
const TABLE_ROWS_SHOWN = 10;
/** Teams rejects messages over ~28 KB: keep an inline image well under it. */
export const INLINE_IMAGE_LIMIT = 18_000;

/** Plain text: `style` sets the run (weight, size, isSubtle, color, fontType), `block` the block (spacing). */
const text = (t: string, style: Record<string, unknown> = {}, block: Record<string, unknown> = {}): Card => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text: t, ...style }],
  ...block,
});

function table(t: AnswerTable): Card[] {
  const rows = t.rows.slice(0, rowsShown(t, TABLE_ROWS_SHOWN));
  const cell = (v: Cell | undefined, header = false): Card => ({
    type: 'TableCell',
    items: [text(cellText(v ?? null), header ? { weight: 'Bolder' } : {})],
  });
  return [
    {
      type: 'Table',
      firstRowAsHeader: true,
      columns: t.columns.map(() => ({ width: 1 })),
      rows: [
        { type: 'TableRow', cells: t.columns.map((c) => cell(c, true)) },
        ...rows.map((r) => ({ type: 'TableRow', cells: r.map((c) => cell(c)) })),
      ],
    },
    text(`${rows.length} of ${t.rowCount.toLocaleString('en-US')} rows`, { size: 'Small', isSubtle: true }, { spacing: 'None' }),
  ];
}

export interface ChartImage {
  /** a data: URI or an https URL */
  url: string;
  alt: string;
}

/** Teams refuses a message over about 28 KB: a card, with its inline chart, stays under this (the rest is the activity's envelope and text). */
export const CARD_BYTES_LIMIT = 24_000;

/** The chart inline when its data URI is at most `room` characters, else a link from `linkFor`. */
function chartImage(png: Buffer, alt: string, linkFor: (png: Buffer) => string, room = INLINE_IMAGE_LIMIT): ChartImage {
  const inline = `data:image/png;base64,${png.toString('base64')}`;
  return { url: inline.length <= Math.min(room, INLINE_IMAGE_LIMIT) ? inline : linkFor(png), alt };
}

/** A chart drawn for cards (small, few colors): inline when it fits in `room`, else a link from `linkFor` (the ChartStore). */
export async function cardChart(
  spec: ChartSpec,
  linkFor: (png: Buffer) => string,
  quickchartUrl?: string,
  room = INLINE_IMAGE_LIMIT,
): Promise<ChartImage> {
  return chartImage(await renderChart(spec, quickchartUrl, 'card'), spec.title, linkFor, room);
}

/** Where a card's chart image can point (the ChartStore behind GET /charts). */
export interface CardChartLinks {
  /** a URL under which this drawn PNG is served */
  link: (png: Buffer) => string;
  /** a URL under which this chart is served drawn for a card, drawn only when (and if) first fetched */
  later?: (spec: ChartSpec) => string;
  /** the bot has a public address (PUBLIC_BASE_URL): a `later` link reaches every client, so nothing is drawn inline */
  publicBase?: boolean;
}

/**
 * The chart image of an answer's card, if it has one. Where Teams draws its own Chart.* the image is only the
 * fallback of a client without charts: a link drawn if such a client fetches it, so nothing is drawn now. Without
 * a native chart it is a link too when the bot has a public address; otherwise it is drawn now, inline when the
 * whole card then stays within CARD_BYTES_LIMIT.
 */
export async function chartForCard(
  answer: Answer,
  links: CardChartLinks,
  quickchartUrl?: string,
  extras: CardExtras = {},
): Promise<ChartImage | undefined> {
  if (answer.kind !== 'result' || !answer.chart) return undefined;
  const spec = answer.chart;
  if (links.later && (links.publicBase || teamsChartElement(spec))) return { url: links.later(spec), alt: spec.title };
  // the Image element itself, around its url, is well under 200 bytes
  const room = cardBudget(answer, extras) - Buffer.byteLength(JSON.stringify(answerCard(answer, undefined, extras))) - 200;
  return cardChart(spec, links.link, quickchartUrl, room);
}

/** What a card can add for one delivered answer: 👍/👎 buttons naming the delivery. */
export interface CardExtras {
  feedbackKey?: string;
  /** choice buttons as Action.Execute (Teams' Universal Actions) rather than Action.Submit (the Emulator) */
  universalActions?: boolean;
  /** where all rows of the answer's table download as CSV (an unguessable link on the bot's server) */
  exportUrl?: string;
  /** the message carries the answer's citation (citation.ts): the headline refers to it with [1] */
  citation?: boolean;
}

/** Whether the card refers to a citation: asked for, and the answer has a source to cite. */
const cites = (answer: Answer, extras: CardExtras) => Boolean(extras.citation && citedSource(answer));

/** The bytes a card may take: CARD_BYTES_LIMIT less what its citation adds to the same message. */
const cardBudget = (answer: Answer, extras: CardExtras) => CARD_BYTES_LIMIT - (cites(answer, extras) ? citationBytes(answer) : 0);

/**
 * An answer as a card. A card over CARD_BYTES_LIMIT would be refused by Teams and the answer lost: the extra
 * tables are left out from the last (the least asked for: the market, the trades) until it fits, and the card
 * says which.
 */
export function answerCard(answer: Answer, chart?: ChartImage, extras: CardExtras = {}): Card {
  const extraCount = answer.kind === 'result' ? answer.extraTables.length : 0;
  let card = buildCard(answer, chart, extras, extraCount);
  const budget = cardBudget(answer, extras);
  for (let keep = extraCount - 1; keep >= 0 && Buffer.byteLength(JSON.stringify(card)) > budget; keep--)
    card = buildCard(answer, chart, extras, keep);
  return card;
}

function buildCard(answer: Answer, chart: ChartImage | undefined, extras: CardExtras, extraTables: number): Card {
  const body: Card[] = [];
  const actions: Card[] = [];
  switch (answer.kind) {
    case 'result': {
      const rest = narrationAfterHeadline(answer);
      if (answer.verified) body.push(text(`✓ ${answer.verified}`, { size: 'Small', color: 'Good' }));
      const headline = text(answer.headline, { weight: 'Bolder', size: 'Medium' });
      // the in-text mark of the message's citation: its pop-up has the question, the table and the data's freshness
      if (cites(answer, extras))
        (headline.inlines as Card[]).push({ type: 'TextRun', text: ` ${CITATION_MARK}`, size: 'Small', isSubtle: true });
      body.push(headline);
      if (rest) body.push(text(rest));
      if (answer.understood?.length) body.push(text(`Understood as: ${answer.understood.join(' · ')}`, { size: 'Small', isSubtle: true }));
      if (answer.table) body.push(...table(answer.table));
      for (const extra of answer.extraTables.slice(0, extraTables))
        body.push(text(extra.title, { weight: 'Bolder' }, { spacing: 'Medium' }), ...table(extra.table));
      const left = answer.extraTables.slice(extraTables).map((t) => t.title);
      if (left.length) body.push(text(`Left out to fit in a Teams message: ${left.join('; ')}.`, { size: 'Small', isSubtle: true }));
      // Teams' own chart where it has one that says the same, the PNG as its fallback (and alone otherwise)
      const image = chart && { type: 'Image', url: chart.url, altText: chart.alt, size: 'Stretch' };
      const native = answer.chart && teamsChartElement(answer.chart, image);
      if (native) body.push(native);
      else if (image) body.push(image);
      for (const sql of answer.sql) {
        const lines = sql.split('\n');
        body.push(
          text(lines.length > SQL_LINES_SHOWN ? `${lines.slice(0, SQL_LINES_SHOWN).join('\n')}\n…` : sql, {
            fontType: 'Monospace',
            size: 'Small',
          }),
        );
        if (lines.length > SQL_LINES_SHOWN) {
          actions.push({
            type: 'Action.ShowCard',
            title: `Full SQL (${lines.length} lines)`,
            card: { type: 'AdaptiveCard', body: [text(sql, { fontType: 'Monospace', size: 'Small' })] },
          });
        }
      }
      if (answer.assumptions.length) body.push(text(`Assumptions: ${answer.assumptions.join('; ')}`, { size: 'Small', isSubtle: true }));
      for (const note of answer.notes) body.push(text(note, { size: 'Small', isSubtle: true }));
      if (answer.freshness) body.push(text(`Data: ${answer.freshness}`, { size: 'Small', isSubtle: true }));
      if (answer.table && extras.exportUrl) actions.push({ type: 'Action.OpenUrl', title: 'Download CSV', url: extras.exportUrl });
      // "Re-run": the plan asked again on today's data, answered in this conversation with what changed since (core/rerun.ts)
      const rerun = encodeRerun(answer, RERUN_VALUE_LIMIT);
      if (rerun) {
        const submit = {
          type: 'Action.Submit',
          title: 'Re-run',
          tooltip: 'Ask this again on today’s data',
          data: { datadesk: 'rerun', rerun },
        };
        actions.push(extras.universalActions ? { ...submit, type: 'Action.Execute', verb: RERUN_VERB, fallback: submit } : submit);
      }
      // suggested follow-ups: one click asks the plan it carries (the edit of this answer's plan) in this conversation;
      // as many as fit in the actions Teams shows, beside the card's own and the 👍/👎 below
      const room = MAX_ACTIONS - actions.length - (extras.feedbackKey ? 2 : 0);
      for (const f of (answer.followUps ?? []).slice(0, Math.max(0, room)))
        actions.push({ type: 'Action.Submit', title: f.label, data: { datadesk: 'followup', text: f.label, plan: f.plan } });
      if (extras.feedbackKey) {
        // feedback: kept with the question; a curator's 👍 makes it a verified question
        actions.push(
          {
            type: 'Action.Submit',
            title: '👍',
            tooltip: 'A good answer',
            data: { datadesk: 'feedback', key: extras.feedbackKey, verdict: 'up' },
          },
          {
            type: 'Action.Submit',
            title: '👎',
            tooltip: 'A wrong or unhelpful answer',
            data: { datadesk: 'feedback', key: extras.feedbackKey, verdict: 'down' },
          },
        );
      }
      break;
    }
    case 'clarify':
      body.push(text(answer.question, { weight: 'Bolder' }));
      for (const o of answer.options) if (o.description) body.push(text(`${o.label}: ${o.description}`, { size: 'Small', isSubtle: true }));
      for (const o of answer.options) {
        const submit = { type: 'Action.Submit', title: o.label, data: { datadesk: 'clarify', term: answer.term, option: o.id } };
        // Teams: Action.Execute, so the bot's reply to the click is the clicker's alone (a client without it submits)
        actions.push(extras.universalActions ? { ...submit, type: 'Action.Execute', verb: CLARIFY_VERB, fallback: submit } : submit);
      }
      break;
    case 'refusal':
      body.push(text(answer.reason));
      for (const a of answer.alternatives) body.push(text(`• ${a}`, { size: 'Small', isSubtle: true }));
      break;
    case 'error':
      body.push(text(`⚠️ ${answer.message}${answer.retryable ? ' (Trying again later may work.)' : ''}`, { color: 'Attention' }));
      break;
  }
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.5',
    body,
    ...(actions.length ? { actions } : {}),
  };
}

/**
 * Makes text inert where Teams reads the message text as markdown (the activity
 * text, shown above the card and in notifications): a zero-width space breaks
 * links "](" and link definitions "]:", tags and autolinks "<a", and bare URLs
 * "http://", without changing what the reader sees.
 */
export function inertMarkdown(s: string): string {
  return s
    .replace(/\](?=[(:])/g, ']\u200B')
    .replace(/<(?=[A-Za-z/!?])/g, '<\u200B')
    .replace(/:\/\//g, ':\u200B//');
}

/**
 * The notification text of an answer (inert: see inertMarkdown). `cited`: the message carries the answer's citation,
 * which Teams links from "[1]" in this text; a "[2]" of the answer's own words is broken as a link is, so that only
 * the bot's own mark refers to a claim.
 */
export function answerSummary(answer: Answer, cited = false): string {
  const summary = inertMarkdown(answerText(answer, 'headline'));
  if (!cited || !citedSource(answer)) return summary;
  return `${summary.replace(/\[(\d+)\]/g, '[\u200B$1]')} ${CITATION_MARK}`;
}
