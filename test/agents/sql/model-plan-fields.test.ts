// The plan's newer fields (versus, ofTotal, filters.exceptTypes, order) as a model fills them: the prompt
// tells the model about each, and a plan that uses them is checked like a person's words, compiled by us and
// answered with the database's own numbers (a scripted OpenAI-compatible server plays the model).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { scriptedClient, useFakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

let db: TestDatabase;
const model = useFakeLlm();
let llm: FakeLlm;
let desk: ReturnType<typeof testDesk>['desk'];

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 10_000);
  llm = model.llm;
  desk = testDesk(db, {
    llm: scriptedClient(llm, { model: 'fake-sql', maxRetries: 1 }),
  }).desk;
});
afterAll(async () => {
  await db?.drop();
});

const y2019 = { from: '2019-01-01', to: '2020-01-01' };
const ask = (text: string, thread: string) => desk.answer({ platform: 'cli', threadId: thread, text });
const count = async (where: string): Promise<number> =>
  Number((await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE ${where}`)).rows[0].n);

describe('a model-filled plan with the newer fields', () => {
  it('the prompt tells the model each newer field with an example', async () => {
    llm.script.push({ content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: y2019 } } }) });
    await ask('how many thefts were there in the year before covid?', 'prompt');
    const prompt = llm.requests.at(-1)!.messages[1].content;
    expect(prompt).toMatch(/- versus is the other side of a side by side.*versus \{"types": \["ASSAULT"\]\}/);
    expect(prompt).toMatch(/- ofTotal: true .*ofTotal true/);
    expect(prompt).toMatch(/- filters\.exceptTypes: true .*exceptTypes true/);
    expect(prompt).toMatch(/- order lists every group .*order "measure_asc"/);
  });

  it("versus: the two sides side by side, the other side's type resolved like a person's word", async () => {
    llm.script.push({
      content: JSON.stringify({
        plan: { measure: { kind: 'count' }, filters: { types: ['BATTERY'], time: y2019 }, versus: { types: ['assault'] } },
      }),
    });
    const a = await ask('battery against assault in the year before covid, side by side', 'versus');
    expect(a.trace.find((t) => t.node === 'generate')?.note).toBe('attempt 1: llm: query plan');
    if (a.kind !== 'result' || !a.table) throw new Error(JSON.stringify(a));
    const battery = await count(`primary_type = 'BATTERY' AND year = 2019`);
    const assault = await count(`primary_type = 'ASSAULT' AND year = 2019`);
    expect(a.sql.join('\n')).toContain("'ASSAULT'");
    expect(a.table.rows.flat().map(Number)).toEqual(expect.arrayContaining([battery, assault]));
    expect(a.narration).toContain(battery.toLocaleString('en-US'));
    expect(a.narration).toContain(assault.toLocaleString('en-US'));
  });

  it('versus with a type the data does not have is refused with real ones, never answered as zero', async () => {
    llm.script.push({
      content: JSON.stringify({
        plan: { measure: { kind: 'count' }, filters: { types: ['BATTERY'], time: y2019 }, versus: { types: ['JAYWALKING'] } },
      }),
    });
    const a = await ask('battery against jaywalking in the year before covid, side by side', 'versus-bad');
    expect(a).toMatchObject({
      kind: 'refusal',
      reason: expect.stringMatching(/"JAYWALKING" is not a crime type in the data \(the nearest: /),
    });
  });

  it("order measure_asc, exceptTypes and ofTotal compile and answer with the database's numbers", async () => {
    llm.script.push({
      content: JSON.stringify({
        plan: {
          measure: { kind: 'count' },
          filters: { types: ['THEFT'], exceptTypes: true, time: y2019 },
          groupBy: ['district'],
          order: 'measure_asc',
        },
      }),
    });
    const a = await ask('crimes other than theft per police district in the year before covid, quietest first', 'asc');
    if (a.kind !== 'result' || !a.table) throw new Error(JSON.stringify(a));
    const truth = (
      await db.pool.query(
        `SELECT district, count(*)::int AS n FROM crimes WHERE primary_type <> 'THEFT' AND year = 2019 AND district IS NOT NULL GROUP BY district ORDER BY n, district`,
      )
    ).rows.map((r) => [r.district, r.n]);
    expect(a.table.rows.map((r) => [Number(r[0]), Number(r[1])])).toEqual(truth);
    expect(a.headline).toMatch(/fewest first/);

    llm.script.push({
      content: JSON.stringify({ plan: { measure: { kind: 'count' }, filters: { time: y2019 }, groupBy: ['type'], ofTotal: true } }),
    });
    const b = await ask('what part of the year-before-covid crimes was each kind', 'of-total');
    if (b.kind !== 'result' || !b.table) throw new Error(JSON.stringify(b));
    const at = b.table.columns.indexOf('pct of total');
    const pct = b.table.rows.map((r) => Number(r[at]));
    expect(pct.reduce((x, y) => x + y, 0)).toBeCloseTo(100, 0);
    const all = await count('year = 2019');
    const thefts = await count(`primary_type = 'THEFT' AND year = 2019`);
    const theftRow = b.table.rows.find((r) => r[0] === 'THEFT')!;
    expect(Number(theftRow[at])).toBeCloseTo((thefts / all) * 100, 1);
  });
});
