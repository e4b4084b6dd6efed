// Slack's published limits for Block Kit, as one validator: what the Web API
// would refuse (invalid_blocks, msg_too_long) or quietly truncate. From Slack's
// reference (docs.slack.dev/reference/block-kit): a message holds at most 50
// blocks, a Home tab or modal 100; block_id at most 255 characters; a text
// object at least 1 and at most 3,000; section fields at most 10 of at most
// 2,000; header plain_text at most 150; context at most 10 elements; actions
// at most 25 elements; a button's text plain_text at most 75, action_id at
// most 255, value at most 2,000, url at most 3,000. A message's top-level
// `text` is truncated past 40,000 characters, and Slack's guidance is to keep
// it under 4,000 (longer ones may be split into several messages): we hold
// it to 4,000. Beyond the limits, one rule of ours: mrkdwn and `text` carry no
// bare "&" (an unescaped one, or an entity cut in half by a length cap).
//
// The data blocks: a data_table has a caption, a header row and 1 to 100 rows
// of equal length (at most 20 columns), raw_text / raw_number cells (a
// raw_number carries a finite value and a non-empty text; the header no
// rich_text), page_size 1..100 (data-table-block). A data_visualization has a
// title of at most 50 characters and a pie (1..6 segments) or a bar, area or
// line chart of 1..6 uniquely named series (names at most 20 characters), each
// with one point a category (1..20, labels at most 20 characters, values
// finite) and axis titles of at most 50; at most two a message
// (data-visualization-block). We send at most one data_table a message.
// A markdown block holds standard Markdown of 1 to 12,000 characters, and all
// the markdown blocks of a message 12,000 together (markdown-block).
// A context_actions block holds 1 to 5 feedback_buttons or icon_button
// elements; feedback_buttons have a positive and a negative button, each with
// plain_text of at most 75 characters, a value of at most 2,000 and an
// optional accessibility_label of at most 75 (context-actions-block).
// A button's accessibility_label is at most 75 characters too (button-element).
// Views (docs.slack.dev/reference/views/modal-views): a modal's title, submit
// and close are plain_text of at most 24 characters, submit is required when
// it holds an input block, private_metadata and callback_id at most 3,000 and
// 255. An input block has a plain_text label of at most 2,000, an optional
// hint of at most 2,000, and one element; a plain_text_input has an action_id
// of at most 255, a placeholder of at most 150, and min/max_length 0..3,000 /
// 1..3,000 (plain-text-input-element). A stream's task_update chunk
// (chat.appendStream, TaskUpdateChunk) has an id, a title, a status of
// pending, in_progress, complete or error, details and output of at most 256
// characters, and sources that are url elements with a url and a text.
export type Surface = 'message' | 'home' | 'modal' | 'unfurl';

export const LIMITS = {
  blocksPerMessage: 50,
  markdownText: 12_000,
  blocksPerView: 100,
  messageText: 4_000,
  messageTextHard: 40_000,
  blockId: 255,
  textObject: 3_000,
  sectionFields: 10,
  sectionField: 2_000,
  header: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2_000,
  buttonUrl: 3_000,
  dataTableRows: 100,
  dataTableColumns: 20,
  chartTitle: 50,
  chartSeries: 6,
  chartPoints: 20,
  chartLabel: 20,
  chartAxisLabel: 50,
  chartsPerMessage: 2,
  viewTitle: 24,
  privateMetadata: 3_000,
  callbackId: 255,
  inputLabel: 2_000,
  placeholder: 150,
  inputLength: 3_000,
  taskText: 256,
} as const;

type Json = Record<string, unknown>;

const BARE_AMP = /&(?!amp;|lt;|gt;)/;

function textObject(t: unknown, where: string, o: { max?: number; plainOnly?: boolean } = {}): string[] {
  if (!t || typeof t !== 'object') return [`${where}: not a text object`];
  const { type, text } = t as Json;
  const problems: string[] = [];
  if (type !== 'plain_text' && type !== 'mrkdwn') problems.push(`${where}: text object type ${String(type)}`);
  if (o.plainOnly && type !== 'plain_text') problems.push(`${where}: must be plain_text, is ${String(type)}`);
  if (typeof text !== 'string' || text.length === 0) return [...problems, `${where}: empty text`];
  const max = o.max ?? LIMITS.textObject;
  if (text.length > max) problems.push(`${where}: ${text.length} characters, over ${max}`);
  if (type === 'mrkdwn' && BARE_AMP.test(text))
    problems.push(
      `${where}: a bare & (unescaped, or an entity cut short): …${text.slice(Math.max(0, text.search(BARE_AMP) - 20), text.search(BARE_AMP) + 10)}…`,
    );
  return problems;
}

function element(e: unknown, where: string): string[] {
  const el = e as Json;
  switch (el?.type) {
    case 'button': {
      const problems = textObject(el.text, `${where}.text`, { max: LIMITS.buttonText, plainOnly: true });
      if (typeof el.action_id === 'string' && el.action_id.length > LIMITS.actionId)
        problems.push(`${where}.action_id: ${el.action_id.length} characters, over ${LIMITS.actionId}`);
      if (typeof el.value === 'string' && el.value.length > LIMITS.buttonValue)
        problems.push(`${where}.value: ${el.value.length} characters, over ${LIMITS.buttonValue}`);
      if (typeof el.url === 'string' && el.url.length > LIMITS.buttonUrl)
        problems.push(`${where}.url: ${el.url.length} characters, over ${LIMITS.buttonUrl}`);
      if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger') problems.push(`${where}.style: ${String(el.style)}`);
      if (
        el.accessibility_label !== undefined &&
        (typeof el.accessibility_label !== 'string' || el.accessibility_label.length > LIMITS.buttonText)
      )
        problems.push(`${where}.accessibility_label: over ${LIMITS.buttonText}`);
      return problems;
    }
    case 'plain_text_input': {
      const problems: string[] = [];
      if (typeof el.action_id === 'string' && el.action_id.length > LIMITS.actionId)
        problems.push(`${where}.action_id: over ${LIMITS.actionId}`);
      if (el.placeholder !== undefined)
        problems.push(...textObject(el.placeholder, `${where}.placeholder`, { max: LIMITS.placeholder, plainOnly: true }));
      if (
        el.max_length !== undefined &&
        !(Number.isInteger(el.max_length) && (el.max_length as number) >= 1 && (el.max_length as number) <= LIMITS.inputLength)
      )
        problems.push(`${where}.max_length: ${String(el.max_length)}, not 1..${LIMITS.inputLength}`);
      if (
        el.min_length !== undefined &&
        !(Number.isInteger(el.min_length) && (el.min_length as number) >= 0 && (el.min_length as number) <= LIMITS.inputLength)
      )
        problems.push(`${where}.min_length: ${String(el.min_length)}, not 0..${LIMITS.inputLength}`);
      return problems;
    }
    case 'image':
      return typeof el.alt_text === 'string' && el.alt_text ? [] : [`${where}: image without alt_text`];
    default:
      return [`${where}: element type ${String(el?.type)} is not one the validator knows`];
  }
}

function block(b: Json, where: string): string[] {
  const problems: string[] = [];
  if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > LIMITS.blockId))
    problems.push(`${where}.block_id: over ${LIMITS.blockId} characters`);
  switch (b.type) {
    case 'section': {
      if (!b.text && !b.fields) problems.push(`${where}: a section needs text or fields`);
      if (b.text) problems.push(...textObject(b.text, `${where}.text`));
      if (b.fields !== undefined) {
        const fields = b.fields as unknown[];
        if (fields.length > LIMITS.sectionFields) problems.push(`${where}.fields: ${fields.length}, over ${LIMITS.sectionFields}`);
        fields.forEach((f, i) => problems.push(...textObject(f, `${where}.fields[${i}]`, { max: LIMITS.sectionField })));
      }
      if (b.accessory) problems.push(...element(b.accessory, `${where}.accessory`));
      return problems;
    }
    case 'header':
      return [...problems, ...textObject(b.text, `${where}.text`, { max: LIMITS.header, plainOnly: true })];
    case 'context': {
      const elements = (b.elements as unknown[] | undefined) ?? [];
      if (elements.length === 0 || elements.length > LIMITS.contextElements)
        problems.push(`${where}.elements: ${elements.length}, not 1..${LIMITS.contextElements}`);
      elements.forEach((e, i) =>
        problems.push(
          ...((e as Json)?.type === 'image' ? element(e, `${where}.elements[${i}]`) : textObject(e, `${where}.elements[${i}]`)),
        ),
      );
      return problems;
    }
    case 'actions': {
      const elements = (b.elements as Json[] | undefined) ?? [];
      if (elements.length === 0 || elements.length > LIMITS.actionsElements)
        problems.push(`${where}.elements: ${elements.length}, not 1..${LIMITS.actionsElements}`);
      elements.forEach((e, i) => problems.push(...element(e, `${where}.elements[${i}]`)));
      const ids = elements.map((e) => e.action_id).filter((id) => id !== undefined);
      if (new Set(ids).size !== ids.length) problems.push(`${where}: action_ids repeat within the block`);
      return problems;
    }
    case 'divider':
      return problems;
    case 'input': {
      problems.push(...textObject(b.label, `${where}.label`, { max: LIMITS.inputLabel, plainOnly: true }));
      if (b.hint !== undefined) problems.push(...textObject(b.hint, `${where}.hint`, { max: LIMITS.inputLabel, plainOnly: true }));
      if (!b.element) problems.push(`${where}.element: required`);
      else problems.push(...element(b.element, `${where}.element`));
      return problems;
    }
    case 'data_table':
      return [...problems, ...dataTable(b, where)];
    case 'context_actions': {
      const elements = (b.elements as Json[] | undefined) ?? [];
      if (elements.length < 1 || elements.length > 5) problems.push(`${where}.elements: ${elements.length}, not 1..5`);
      elements.forEach((e, i) => problems.push(...contextAction(e, `${where}.elements[${i}]`)));
      return problems;
    }
    case 'data_visualization':
      return [...problems, ...dataVisualization(b, where)];
    case 'markdown':
      if (typeof b.text !== 'string' || !b.text) return [...problems, `${where}: empty text`];
      if (b.text.length > LIMITS.markdownText) problems.push(`${where}: ${b.text.length} characters, over ${LIMITS.markdownText}`);
      return problems;
    default:
      return [...problems, `${where}: block type ${String(b.type)} is not one the validator knows`];
  }
}

function contextAction(e: Json, where: string): string[] {
  if (e.type !== 'feedback_buttons') return [`${where}: element type ${String(e.type)} is not one the validator knows`];
  const problems: string[] = [];
  if (typeof e.action_id === 'string' && e.action_id.length > LIMITS.actionId) problems.push(`${where}.action_id: over ${LIMITS.actionId}`);
  for (const side of ['positive_button', 'negative_button']) {
    const button = e[side] as Json | undefined;
    if (!button) {
      problems.push(`${where}.${side}: required`);
      continue;
    }
    problems.push(...textObject(button.text, `${where}.${side}.text`, { max: LIMITS.buttonText, plainOnly: true }));
    if (typeof button.value !== 'string' || !button.value || button.value.length > LIMITS.buttonValue)
      problems.push(`${where}.${side}.value: empty or over ${LIMITS.buttonValue}`);
    if (
      button.accessibility_label !== undefined &&
      (typeof button.accessibility_label !== 'string' || button.accessibility_label.length > LIMITS.buttonText)
    )
      problems.push(`${where}.${side}.accessibility_label: over ${LIMITS.buttonText}`);
  }
  return problems;
}

function dataTable(b: Json, where: string): string[] {
  const problems: string[] = [];
  if (typeof b.caption !== 'string' || !b.caption) problems.push(`${where}.caption: required`);
  const rows = b.rows as Json[][] | undefined;
  if (!Array.isArray(rows) || rows.length < 2 || rows.length > LIMITS.dataTableRows + 1)
    return [...problems, `${where}.rows: ${Array.isArray(rows) ? rows.length : 'none'}, not a header and 1..${LIMITS.dataTableRows} rows`];
  const width = rows[0].length;
  if (width < 1 || width > LIMITS.dataTableColumns) problems.push(`${where}: ${width} columns, not 1..${LIMITS.dataTableColumns}`);
  rows.forEach((row, r) => {
    if (row.length !== width) problems.push(`${where}.rows[${r}]: ${row.length} cells, the header has ${width}`);
    row.forEach((c, i) => {
      const at = `${where}.rows[${r}][${i}]`;
      if (c.type === 'raw_text') {
        if (typeof c.text !== 'string' || !c.text) problems.push(`${at}: raw_text without text`);
      } else if (c.type === 'raw_number') {
        if (typeof c.value !== 'number' || !Number.isFinite(c.value)) problems.push(`${at}: raw_number without a finite value`);
        if (typeof c.text !== 'string' || !c.text) problems.push(`${at}: raw_number without text`);
      } else if (c.type === 'rich_text') {
        if (r === 0) problems.push(`${at}: rich_text in the header`);
      } else problems.push(`${at}: cell type ${String(c.type)}`);
    });
  });
  if (b.page_size !== undefined && !(Number.isInteger(b.page_size) && (b.page_size as number) >= 1 && (b.page_size as number) <= 100))
    problems.push(`${where}.page_size: ${String(b.page_size)}, not 1..100`);
  return problems;
}

function dataVisualization(b: Json, where: string): string[] {
  const problems: string[] = [];
  const longer = (v: unknown, max: number) => typeof v !== 'string' || !v || v.length > max;
  if (longer(b.title, LIMITS.chartTitle)) problems.push(`${where}.title: empty or over ${LIMITS.chartTitle} characters`);
  const chart = b.chart as Json | undefined;
  if (!chart) return [...problems, `${where}.chart: required`];
  if (chart.type === 'pie') {
    const segments = (chart.segments as Json[] | undefined) ?? [];
    if (segments.length < 1 || segments.length > LIMITS.chartSeries) problems.push(`${where}.chart.segments: ${segments.length}`);
    return problems;
  }
  if (!['bar', 'area', 'line'].includes(String(chart.type))) return [...problems, `${where}.chart.type: ${String(chart.type)}`];
  const axis = (chart.axis_config as Json | undefined) ?? {};
  const categories = (axis.categories as string[] | undefined) ?? [];
  if (categories.length < 1 || categories.length > LIMITS.chartPoints)
    problems.push(`${where}: ${categories.length} categories, not 1..${LIMITS.chartPoints}`);
  for (const c of categories)
    if (longer(c, LIMITS.chartLabel)) problems.push(`${where}: category "${c}" empty or over ${LIMITS.chartLabel}`);
  for (const k of ['x_label', 'y_label'])
    if (axis[k] !== undefined && longer(axis[k], LIMITS.chartAxisLabel))
      problems.push(`${where}.axis_config.${k}: over ${LIMITS.chartAxisLabel}`);
  const series = (chart.series as Json[] | undefined) ?? [];
  if (series.length < 1 || series.length > LIMITS.chartSeries)
    problems.push(`${where}: ${series.length} series, not 1..${LIMITS.chartSeries}`);
  const names = series.map((s) => s.name);
  if (new Set(names).size !== names.length) problems.push(`${where}: series names repeat`);
  series.forEach((s, i) => {
    if (longer(s.name, LIMITS.chartLabel)) problems.push(`${where}.series[${i}].name: empty or over ${LIMITS.chartLabel}`);
    const data = (s.data as Json[] | undefined) ?? [];
    const labels = data.map((d) => d.label);
    if (labels.join('\u0000') !== categories.join('\u0000')) problems.push(`${where}.series[${i}]: its labels are not the categories`);
    for (const d of data)
      if (typeof d.value !== 'number' || !Number.isFinite(d.value))
        problems.push(`${where}.series[${i}]: a value that is not a finite number`);
  });
  return problems;
}

/** A message (or a view's blocks) against Slack's limits: the problems, [] when it would be accepted as sent. */
export function blockKitProblems(message: { text?: unknown; blocks?: unknown }, surface: Surface = 'message'): string[] {
  const problems: string[] = [];
  const blocks = (message.blocks as Json[] | undefined) ?? [];
  if (message.blocks !== undefined && !Array.isArray(message.blocks)) return ['blocks: not an array'];
  // an unfurl's card is attached to a message and held to a message's block count (it has no text of its own)
  const maxBlocks = surface === 'message' || surface === 'unfurl' ? LIMITS.blocksPerMessage : LIMITS.blocksPerView;
  if (blocks.length > maxBlocks) problems.push(`blocks: ${blocks.length}, over ${maxBlocks} for a ${surface}`);
  if (surface === 'message') {
    if (typeof message.text !== 'string' || !message.text) {
      if (!blocks.length) problems.push('text: a message without blocks needs text');
      else problems.push('text: no fallback text (notifications and screen readers show it)');
    } else {
      if (message.text.length > LIMITS.messageText)
        problems.push(
          `text: ${message.text.length} characters, over ${LIMITS.messageText}${message.text.length > LIMITS.messageTextHard ? ' (and truncated by Slack)' : ''}`,
        );
      if (BARE_AMP.test(message.text)) problems.push('text: a bare & (unescaped, or an entity cut short)');
    }
  }
  blocks.forEach((b, i) => problems.push(...block(b, `blocks[${i}](${String(b?.type)})`)));
  const count = (type: string) => blocks.filter((b) => b?.type === type).length;
  if (count('data_visualization') > LIMITS.chartsPerMessage)
    problems.push(`data_visualization: ${count('data_visualization')}, over ${LIMITS.chartsPerMessage}`);
  if (count('data_table') > 1) problems.push(`data_table: ${count('data_table')} in one message`);
  const markdown = blocks.filter((b) => b?.type === 'markdown').reduce((n, b) => n + String(b.text ?? '').length, 0);
  if (markdown > LIMITS.markdownText) problems.push(`markdown: ${markdown} characters in all, over ${LIMITS.markdownText}`);
  const ids = blocks.map((b) => b.block_id).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) problems.push('block_id: repeated within the message');
  return problems;
}

/**
 * chat.unfurl's `unfurls` (docs.slack.dev/reference/methods/chat.unfurl, messaging/unfurling-links-in-messages): a map
 * from each URL unfurled (an http(s) URL as posted) to its card, here blocks: at least one, within a message's limits.
 */
export function unfurlProblems(unfurls: unknown): string[] {
  if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls)) return ['unfurls: not a map of URL to unfurl'];
  const entries = Object.entries(unfurls as Record<string, unknown>);
  if (!entries.length) return ['unfurls: empty'];
  const problems: string[] = [];
  for (const [url, unfurl] of entries) {
    if (!/^https?:\/\/[^\s/]+/.test(url)) problems.push(`unfurls[${url}]: not an http(s) URL`);
    const card = unfurl as { blocks?: unknown } | null;
    if (!card || typeof card !== 'object' || !Array.isArray(card.blocks) || !card.blocks.length) {
      problems.push(`unfurls[${url}]: no blocks`);
      continue;
    }
    problems.push(...blockKitProblems({ blocks: card.blocks }, 'unfurl').map((p) => `unfurls[${url}].${p}`));
  }
  return problems;
}

/** A view (views.publish / views.open) against the limits of its surface. */
export function viewProblems(view: Record<string, unknown>): string[] {
  const surface: Surface = view.type === 'home' ? 'home' : 'modal';
  const problems = blockKitProblems({ blocks: view.blocks }, surface);
  if (surface === 'home' && view.type !== 'home') problems.push(`type: ${String(view.type)}`);
  if (surface === 'modal') {
    if (view.type !== 'modal') problems.push(`type: ${String(view.type)}, not a modal or home`);
    problems.push(...textObject(view.title, 'title', { max: LIMITS.viewTitle, plainOnly: true }));
    for (const k of ['submit', 'close'])
      if (view[k] !== undefined) problems.push(...textObject(view[k], k, { max: LIMITS.viewTitle, plainOnly: true }));
    const inputs = ((view.blocks as Json[] | undefined) ?? []).some((b) => b?.type === 'input');
    if (inputs && !view.submit) problems.push('submit: required when the modal holds an input block');
  }
  if (
    view.private_metadata !== undefined &&
    (typeof view.private_metadata !== 'string' || view.private_metadata.length > LIMITS.privateMetadata)
  )
    problems.push(`private_metadata: over ${LIMITS.privateMetadata}`);
  if (view.callback_id !== undefined && (typeof view.callback_id !== 'string' || view.callback_id.length > LIMITS.callbackId))
    problems.push(`callback_id: over ${LIMITS.callbackId}`);
  return problems;
}

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

/** A stream's chunks (chat.startStream / appendStream / stopStream) against Slack's: task_update, markdown_text, plan_update. */
export function streamChunkProblems(chunks: unknown): string[] {
  if (chunks === undefined) return [];
  if (!Array.isArray(chunks)) return ['chunks: not an array'];
  const problems: string[] = [];
  chunks.forEach((c: Json, i) => {
    const where = `chunks[${i}](${String(c?.type)})`;
    switch (c?.type) {
      case 'markdown_text':
        if (typeof c.text !== 'string' || !c.text || c.text.length > LIMITS.markdownText)
          problems.push(`${where}.text: empty or over ${LIMITS.markdownText}`);
        return;
      case 'plan_update':
        if (typeof c.title !== 'string' || !c.title) problems.push(`${where}.title: required`);
        return;
      case 'task_update': {
        if (typeof c.id !== 'string' || !c.id) problems.push(`${where}.id: required`);
        if (typeof c.title !== 'string' || !c.title) problems.push(`${where}.title: required`);
        if (!TASK_STATUSES.has(String(c.status))) problems.push(`${where}.status: ${String(c.status)}`);
        for (const k of ['details', 'output'])
          if (c[k] !== undefined && (typeof c[k] !== 'string' || !c[k] || (c[k] as string).length > LIMITS.taskText))
            problems.push(`${where}.${k}: empty or over ${LIMITS.taskText} characters`);
        if (c.sources !== undefined) {
          const sources = c.sources as Json[];
          if (!Array.isArray(sources)) problems.push(`${where}.sources: not an array`);
          else
            sources.forEach((s, j) => {
              if (s?.type !== 'url' || typeof s.url !== 'string' || typeof s.text !== 'string' || !s.text)
                problems.push(`${where}.sources[${j}]: a url element needs a url and a text`);
            });
        }
        return;
      }
      case 'blocks':
        problems.push(...blockKitProblems({ blocks: c.blocks, text: 'x' }).map((p) => `${where}: ${p}`));
        return;
      default:
        problems.push(`${where}: chunk type unknown`);
    }
  });
  return problems;
}
