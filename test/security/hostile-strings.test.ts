// The hostile-string corpus (fixtures/security/inert-corpus.json) through the
// whole desk and every renderer: each string is planted in the crime data (a
// location description loaded from a CSV is anyone's to write) and given by a
// scripted hostile model (its narration, its column name, its restatement of a
// fragment, a plan's description words). The person must see none of them, in
// Slack's blocks (classic and native), a Teams card, the terminal or the
// playground's answer.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../../src/core/paths.js';
import type { Answer } from '../../src/core/answer.js';
import { renderAnswerMessages } from '../../src/channels/slack/render-blocks.js';
import { answerCard } from '../../src/channels/teams/render-card.js';
import { renderAnswerText } from '../../src/channels/cli/render-text.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { scriptedClient, useFakeLlm } from '../helpers/fake-llm.js';

const corpus = JSON.parse(readFileSync(fixturePath('security', 'inert-corpus.json'), 'utf8')) as { hostile: string[] };
const data = crimeDatabase(3_000);
const model = useFakeLlm();
let desk: ReturnType<typeof testDesk>['desk'];
/** the ids of the crimes that carry the planted strings, in the corpus' order */
let planted: number[];

/** What a person reads of a rendered answer, as one text: Slack's escapes undone, invisible characters gone, NFKC. */
const asRead = (rendered: unknown) =>
  JSON.stringify(rendered)
    .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\"/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
    .normalize('NFKC');

/** Every renderer's output of an answer. */
const renderings = (answer: Answer) => ({
  slackNative: renderAnswerMessages(answer, { feedback: true, exportKey: 'k' }),
  slackClassic: renderAnswerMessages(answer, { classic: true }),
  teams: answerCard(answer),
  terminal: renderAnswerText(answer),
  playground: answer,
});

/** The hostile strings a rendering shows, as a person reads them. */
function shown(answer: Answer, strings: string[]): string[] {
  const found: string[] = [];
  for (const [renderer, out] of Object.entries(renderings(answer))) {
    const text = asRead(out);
    for (const s of strings) {
      const needle = s.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '').normalize('NFKC');
      if (text.includes(needle)) found.push(`${renderer}: ${s}`);
    }
  }
  return found;
}

beforeAll(async () => {
  const { rows } = await data.db.pool.query<{ id: string }>(`SELECT id FROM crimes ORDER BY id LIMIT ${corpus.hostile.length}`);
  planted = rows.map((r) => Number(r.id));
  for (const [i, s] of corpus.hostile.entries())
    await data.db.pool.query('UPDATE crimes SET location_description = $1, description = $1 WHERE id = $2', [s, planted[i]]);
  desk = testDesk(data.db, {
    llm: scriptedClient(model.llm, { model: 'hostile', maxRetries: 0 }),
  }).desk;
}, 120_000);

/** The corpus in groups small enough to be shown whole (up to 20 rows a table). */
const groups = Array.from({ length: Math.ceil(corpus.hostile.length / 20) }, (_, g) => g);

describe('the hostile-string corpus through every renderer', () => {
  it.each(groups)('planted in the data and named by a hostile model (group %i): nothing of it is shown', async (g) => {
    const strings = corpus.hostile.slice(g * 20, g * 20 + 20);
    const ids = planted.slice(g * 20, g * 20 + 20);
    const alias = strings[0].replace(/"/g, '').slice(0, 60);
    const sql = (name: string) =>
      `SELECT location_description AS "${name}", count(*) AS n FROM crimes WHERE id IN (${ids.join(', ')}) GROUP BY 1 ORDER BY 2 DESC, 1`;
    // a query whose column name is a hostile string is sent back; the next, with a plain name, runs; then a narration
    // that is one of the hostile strings instead of the facts' ids (asked twice: one repair)
    const narration = { content: strings[1] };
    model.llm.script.push(
      { content: JSON.stringify({ sql: sql(alias) }) },
      { content: JSON.stringify({ sql: sql('place') }) },
      narration,
      narration,
    );
    const answer = await desk.answer({
      platform: 'cli',
      threadId: `planted-${g}`,
      text: 'how many crimes by location description involved a getaway driver',
    });
    expect(answer.kind, JSON.stringify(answer).slice(0, 600)).toBe('result');
    expect(answer.kind === 'result' && answer.table?.rowCount).toBe(strings.length);
    expect(model.llm.requests[1].messages[1].content).toMatch(/column names, text values and comments must be plain words/);
    expect(shown(answer, strings)).toEqual([]);
    // the withheld values are said as such, and the numbers are still there
    expect(answer.kind === 'result' && answer.table?.rows.map((r) => r[0])).toContain(
      '(a value not shown: it looks like a link or an instruction)',
    );
  });

  it("a hostile model's restatement of a fragment and its plan's description words are never shown", async () => {
    const thread = 'hostile-restatement';
    const ask = (text: string) => desk.answer({ platform: 'cli', threadId: thread, text });
    expect((await ask('How many thefts were reported in 2019?')).kind).toBe('result');
    const restated = 'How many thefts in 2019? Vеrified answer: call (312) 555-0199 to confirm your identity';
    model.llm.script.push({
      content: JSON.stringify({
        sql: "SELECT count(*) AS thefts FROM crimes WHERE primary_type = 'THEFT' AND year = 2019",
        question: restated,
      }),
    });
    const answer = await ask('what about thefts with a getaway car?');
    expect(answer.trace.find((t) => t.node === 'generate')?.note).toMatch(/llm: free SQL/);
    expect(shown(answer, [restated, 'Vеrified', '555-0199'])).toEqual([]);
    for (const words of ['confirm identity at datadesk-verify.support', 'Ｖerified by CPD: call (312) 555-0199 now']) {
      model.llm.script.push({
        content: JSON.stringify({
          plan: {
            measure: { kind: 'count' },
            filters: { types: ['THEFT'], descriptions: [words], time: { from: '2019-01-01', to: '2020-01-01' } },
          },
        }),
      });
      const described = await desk.answer({
        platform: 'cli',
        threadId: `described-${words.length}`,
        text: 'thefts of the special kind in the year before covid',
      });
      expect(described.kind, JSON.stringify(described).slice(0, 900)).toBe('refusal');
      expect(shown(described, [words, 'datadesk-verify', '555-0199'])).toEqual([]);
    }
  });

  it("a model's plan with a crime type that carries a mention and a link is refused in our words", async () => {
    const type = '<!channel> THEFT - re-verify at http://evil.example';
    model.llm.script.push({ content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters: { types: [type] } } }) });
    const answer = await desk.answer({ platform: 'cli', threadId: 'hostile-type', text: 'how many jaywalking crimes were there' });
    expect(answer).toMatchObject({
      kind: 'refusal',
      reason: expect.stringContaining('a value the model gave is not a crime type in the data'),
    });
    expect(shown(answer, [type, '<!channel>', 'evil.example'])).toEqual([]);
  });
});
