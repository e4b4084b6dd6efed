// "Download CSV" clicked where the answer is not: each refusal says why in a
// sentence of its own (another workspace, another channel, no longer kept),
// and none shows anything of the answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebClient } from '@slack/web-api';
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { exportCsv } from '../../../src/channels/slack/listeners/export-csv.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import type { Deliveries, DeliveryRow } from '../../../src/jobs/deliveries.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/fake-slack.js';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => slack?.close());

const SECRET_HEADLINE = 'Thefts on 051XX S SECRET AVE in 2019: 17';
const row = {
  key: 'slack:T2:Ev1',
  platform: 'slack',
  workspace: 'T2',
  channel: 'C1',
  answer: {
    kind: 'result',
    route: 'sql',
    headline: SECRET_HEADLINE,
    narration: SECRET_HEADLINE,
    sql: ['SELECT 17 AS thefts FROM crimes'],
    table: { columns: ['thefts'], rows: [[17]], rowCount: 1, truncated: false },
  },
} as unknown as DeliveryRow;

async function click(o: { team: string; channel: string; value: string; user: string }): Promise<string> {
  const deliveries = {
    get: async (key: string) => (key === row.key ? row : undefined),
    claimExport: async () => true,
  } as unknown as Deliveries;
  const listener = exportCsv({
    deliveries,
    exports: { pool: undefined as never, rowLimit: 10, statementTimeoutMs: 1_000 },
    logger: createMemoryLogger(),
  });
  const client = new WebClient('xoxb-test', {
    slackApiUrl: slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/`,
    retryConfig: { retries: 0 },
  });
  const body = {
    type: 'block_actions',
    user: { id: o.user },
    team: { id: o.team },
    channel: { id: o.channel },
    message: { ts: '1800000001.000100', thread_ts: '1800000000.000100' },
    actions: [],
  } as unknown as BlockAction;
  let acked = false;
  await listener({
    ack: async () => void (acked = true),
    body,
    action: { type: 'button', action_id: 'export_csv', block_id: 'b', value: o.value } as ButtonAction,
    client,
    context: { teamId: o.team },
  } as unknown as SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs);
  expect(acked).toBe(true);
  const told = await slack.waitFor((c) => c.method === 'chat.postEphemeral' && c.args.user === o.user, 5_000);
  return String(told.args.text);
}

describe('Download CSV refused, and told why', () => {
  it("another workspace's answer: it says the answer belongs to another workspace, not that answers are kept 3 days", async () => {
    const text = await click({ team: 'T1', channel: 'C1', value: row.key, user: 'U1' });
    expect(text).toBe('This answer belongs to another workspace, so it cannot be exported here. Ask the question here to get its CSV.');
    expect(text).not.toContain('SECRET');
    expect(slack.calls.some((c) => c.method.startsWith('files.'))).toBe(false);
  });

  it('another channel of the same workspace, and an answer no longer kept, each in its own words', async () => {
    expect(await click({ team: 'T2', channel: 'C9', value: row.key, user: 'U2' })).toBe(
      'This answer was given in another channel; use Download CSV under it there, or ask the question here.',
    );
    expect(await click({ team: 'T2', channel: 'C1', value: 'slack:T2:gone', user: 'U3' })).toBe(
      'This answer can no longer be exported (answers are kept for 3 days). Ask the question again.',
    );
  });
});
