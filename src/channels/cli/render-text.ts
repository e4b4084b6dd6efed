// An Answer as plain text for the terminal: the same content the chat
// renderers show, in the same order.
import type { Answer, AnswerTable } from '../../core/answer.js';
import { narrationAfterHeadline, rowsShown } from '../../core/answer.js';
import { alignedTable } from '../text-table.js';

/** Rows a terminal shows of a longer table (an axis of up to 24 rows is shown whole; --json has every row kept). */
const TERMINAL_ROWS = 20;

function renderTable(t: AnswerTable): string {
  const shown = rowsShown(t, TERMINAL_ROWS);
  const cut = shown < t.rowCount;
  return [alignedTable(t, { maxRows: shown }), ...(cut ? [`(showing ${shown} of ${t.rowCount.toLocaleString('en-US')} rows)`] : [])].join(
    '\n',
  );
}

export function renderAnswerText(answer: Answer, chartPath?: string): string {
  switch (answer.kind) {
    case 'result': {
      // the headline is often the narration's first sentence: do not say it twice
      const rest = narrationAfterHeadline(answer);
      const parts = rest ? [answer.headline, '', rest] : [answer.headline];
      if (answer.understood?.length) parts.push(`Understood as: ${answer.understood.join(' · ')}`);
      if (answer.table) parts.push('', renderTable(answer.table));
      for (const extra of answer.extraTables) parts.push('', `${extra.title}:`, renderTable(extra.table));
      if (chartPath) parts.push('', `Chart: ${chartPath}`);
      if (answer.sql.length) parts.push('', 'SQL:', ...answer.sql.map((s) => s.replace(/^/gm, '  ')));
      if (answer.assumptions.length) parts.push('', 'Assumptions:', ...answer.assumptions.map((a) => `  - ${a}`));
      for (const note of answer.notes) parts.push(`Note: ${note}`);
      if (answer.freshness) parts.push(`Data: ${answer.freshness}`);
      return parts.join('\n');
    }
    case 'clarify':
      return [answer.question, ...answer.options.map((o, i) => `  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ''}`)].join(
        '\n',
      );
    case 'refusal':
      return [answer.reason, ...answer.alternatives.map((a) => `  - ${a}`)].join('\n');
    case 'error':
      return `${answer.message}${answer.retryable ? '\n(Trying again later may work.)' : ''}`;
  }
}
