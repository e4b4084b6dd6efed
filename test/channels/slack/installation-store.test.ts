// Slack installations at rest: sealed with the newest key, opened with any
// listed one, re-sealed by rekey, bound to their row; org-wide installs kept
// under the enterprise; config errors that say what is wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Installation } from '@slack/oauth';
import { PgInstallationStore, NoInstallationError } from '../../../src/channels/slack/installation-store.js';
import { installedClients, WorkspaceNotInstalledError } from '../../../src/channels/slack/slack-clients.js';
import { seal, unseal } from '../../../src/core/sealing.js';
import { slackTokenKeys } from '../../../src/channels/slack/token-seal.js';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
let db: TestDatabase;

const installation = (team: string, token: string, enterprise?: string): Installation =>
  ({
    team: enterprise ? undefined : { id: team, name: `Team ${team}` },
    enterprise: enterprise ? { id: enterprise, name: 'Big Org' } : undefined,
    isEnterpriseInstall: Boolean(enterprise),
    user: { id: 'UADMIN', token: undefined, scopes: undefined },
    bot: { token, scopes: ['chat:write'], id: 'B1', userId: 'UBOT' },
    appId: 'A1',
    tokenType: 'bot',
  }) as Installation;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

describe('sealed Slack installations', () => {
  it('seals with the first key, opens with any listed key, and rekey moves every row to the first key', async () => {
    const old = new PgInstallationStore(db.pool, slackTokenKeys(`k1:${key(1)}`));
    await old.storeInstallation(installation('T1', 'xoxb-one'));
    // rotation: the new key first, the old one still listed
    const rotating = new PgInstallationStore(db.pool, slackTokenKeys(`k2:${key(2)},k1:${key(1)}`));
    expect((await rotating.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).bot?.token).toBe(
      'xoxb-one',
    );
    expect(await rotating.rekey()).toBe(1);
    expect((await db.pool.query('SELECT key_id FROM slack_installations')).rows).toEqual([{ key_id: 'k2' }]);
    const rotated = new PgInstallationStore(db.pool, slackTokenKeys(`k2:${key(2)}`));
    expect((await rotated.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).bot?.token).toBe(
      'xoxb-one',
    );
    // dropping the key before rekey: a sentence, not a crash or garbage
    await expect(old.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).rejects.toThrow(
      'sealed with key "k2", which SLACK_TOKEN_KEYS no longer lists',
    );
  });

  it('a sealed value is bound to its row: copied onto another workspace it does not open', async () => {
    const keys = slackTokenKeys(`k1:${key(3)}`);
    const sealed = seal(keys[0], 'secret', 'T1');
    expect(unseal(keys, 'k1', sealed, 'T1')).toBe('secret');
    expect(() => unseal(keys, 'k1', sealed, 'T2')).toThrow(/could not be opened/);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => unseal(keys, 'k1', tampered, 'T1')).toThrow(/could not be opened/);
  });

  it('an org-wide install answers every workspace of its enterprise; an uninstalled workspace has no client', async () => {
    const store = new PgInstallationStore(db.pool, slackTokenKeys(`k2:${key(2)}`));
    await store.storeInstallation(installation('', 'xoxb-org', 'E1'));
    expect(await store.hasOrgInstall('E1')).toBe(true);
    const clients = installedClients(store, undefined);
    expect((await clients.forWorkspace('T-in-org', 'E1')).token).toBe('xoxb-org');
    expect((await clients.forWorkspace('T1')).token).toBe('xoxb-one');
    await expect(clients.forWorkspace('T-unknown')).rejects.toBeInstanceOf(WorkspaceNotInstalledError);
    await store.deleteInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false });
    await expect(store.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).rejects.toBeInstanceOf(
      NoInstallationError,
    );
  });

  it('configuration: OAuth installs need their secret, signing secret and token keys, and exclude the single token', () => {
    const base = { SLACK_CLIENT_ID: '1.2', SLACK_CLIENT_SECRET: 's', SLACK_SIGNING_SECRET: 'x', SLACK_TOKEN_KEYS: `k1:${key(1)}` };
    expect(loadConfig(base).slack?.oauth?.scopes).toContain('chat:write');
    expect(loadConfig(base).slack?.botToken).toBeUndefined();
    const problems = (env: Record<string, string | undefined>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ ...base, SLACK_TOKEN_KEYS: undefined })[0]).toMatch(/^SLACK_TOKEN_KEYS: required with SLACK_CLIENT_ID/);
    expect(problems({ ...base, SLACK_TOKEN_KEYS: 'k1:short' })).toEqual([
      'SLACK_TOKEN_KEYS: key "k1" is 3 bytes; it must be 32 (openssl rand -base64 32)',
    ]);
    expect(problems({ ...base, SLACK_BOT_TOKEN: 'xoxb-1' })[0]).toMatch(/^SLACK_BOT_TOKEN: unset it with SLACK_CLIENT_ID/);
    expect(problems({ ...base, SLACK_CLIENT_SECRET: undefined })[0]).toMatch(/^SLACK_CLIENT_SECRET: required/);
    expect(problems({ ...base, SLACK_APP_TOKEN: 'xapp-1' })[0]).toMatch(/^SLACK_APP_TOKEN: Socket Mode apps cannot be distributed/);
  });
});
