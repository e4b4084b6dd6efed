// Chart images kept in PostgreSQL: another process (a new store on the same
// database, as after a restart or on another replica) serves what one put,
// until it expires. Charts put undrawn are drawn when first fetched, once per
// layout fetched and once per content, in whichever process serves them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartDrawError, ChartStore } from '../../src/charts/chart-store.js';
import type { ChartStyle } from '../../src/charts/chartjs-config.js';
import { destroyWorkerPool } from '../../src/backtest/threads/pool.js';
import type { ChartSpec } from '../../src/core/answer.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { pollUntil } from '../helpers/wait.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const SPEC: ChartSpec = {
  kind: 'bar',
  title: 'Thefts by year',
  labels: ['2019', '2020', '2021'],
  series: [{ name: 'incidents', values: [610, 487, 502], axis: 'left', fill: false }],
};

/** A drawer that says what it drew (a PNG's first bytes and the layout's name), and counts. */
function recordingDraw() {
  const drawn: ChartStyle[] = [];
  const draw = async (spec: ChartSpec, style: ChartStyle) => {
    drawn.push(style);
    return Buffer.concat([PNG_MAGIC, Buffer.from(`${style}:${spec.title}`)]);
  };
  return { drawn, draw };
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await destroyWorkerPool();
  await db?.drop();
});

const rowWritten = (id: string) =>
  pollUntil(
    async () => ((await db.pool.query('SELECT 1 FROM chart_images WHERE id = $1', [id])).rowCount ? true : undefined),
    5_000,
    'the chart written',
  );

describe('ChartStore in the database', () => {
  it('a chart put by one process is served by another (a restart), and not after it expired', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const id = ChartStore.inDatabase(db.pool, createMemoryLogger()).put(png);
    await rowWritten(id);
    const afterRestart = ChartStore.inDatabase(db.pool, createMemoryLogger());
    expect(await afterRestart.get(id)).toEqual(png);
    await db.pool.query(`UPDATE chart_images SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect(await afterRestart.get(id)).toBeUndefined();
    expect(await afterRestart.get('0'.repeat(32))).toBeUndefined();
  });

  it('an undrawn chart is drawn by the process that serves it, once: the drawing replaces it in the database', async () => {
    const worker = recordingDraw();
    const [wide, phone] = new ChartStore(60_000, 500, Date.now, { pool: db.pool, logger: createMemoryLogger() }, worker.draw).putLater(
      SPEC,
      ['full', 'phone'],
    );
    await rowWritten(wide);
    await rowWritten(phone);
    const receiver = recordingDraw();
    const serving = new ChartStore(60_000, 500, Date.now, { pool: db.pool, logger: createMemoryLogger() }, receiver.draw);
    expect((await serving.get(wide))?.toString()).toContain('full:Thefts by year');
    expect(worker.drawn).toEqual([]);
    expect(receiver.drawn).toEqual(['full']);
    // the drawing is kept in the row: a third process serves it without drawing
    await pollUntil(
      async () => {
        const { rows } = await db.pool.query<{ png: Buffer }>('SELECT png FROM chart_images WHERE id = $1', [wide]);
        return rows[0].png.subarray(0, 4).equals(PNG_MAGIC) ? true : undefined;
      },
      5_000,
      'the drawing saved',
    );
    const third = recordingDraw();
    const later = new ChartStore(60_000, 500, Date.now, { pool: db.pool, logger: createMemoryLogger() }, third.draw);
    expect((await later.get(wide))?.toString()).toContain('full:Thefts by year');
    expect(third.drawn).toEqual([]);
  });
});

describe('charts drawn when fetched', () => {
  it('draws only the layout fetched, and the same chart once however many answers show it', async () => {
    const { drawn, draw } = recordingDraw();
    const store = new ChartStore(60_000, 500, Date.now, undefined, draw);
    const [wide, phone] = store.putLater(SPEC, ['full', 'phone']);
    const [again] = store.putLater(SPEC, ['full']);
    expect(drawn).toEqual([]);
    const [a, b] = await Promise.all([store.get(wide), store.get(again)]);
    expect(a).toEqual(b);
    expect(drawn).toEqual(['full']);
    expect(phone).not.toBe(wide);
    expect((await store.get(phone))?.toString()).toContain('phone:');
    expect(drawn).toEqual(['full', 'phone']);
  });

  it('a drawing that fails says so, and the next fetch tries again', async () => {
    let fail = true;
    const store = new ChartStore(60_000, 500, Date.now, undefined, async () => {
      if (fail) throw new Error('QuickChart at http://127.0.0.1:1 could not draw the chart: connection refused');
      return PNG_MAGIC;
    });
    const [id] = store.putLater(SPEC, ['full']);
    await expect(store.get(id)).rejects.toThrow(ChartDrawError);
    await expect(store.get(id)).rejects.toThrow(/connection refused/);
    fail = false;
    expect(await store.get(id)).toEqual(PNG_MAGIC);
  });

  it('by default draws the PNG on this machine at the layout asked (a phone: 400 px laid out, drawn at twice that)', async () => {
    const store = new ChartStore();
    const [phone] = store.putLater(SPEC, ['phone']);
    const png = (await store.get(phone))!;
    expect(png.subarray(0, 4)).toEqual(PNG_MAGIC);
    // the IHDR chunk: width and height at bytes 16 and 20
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 640]);
  });
});
