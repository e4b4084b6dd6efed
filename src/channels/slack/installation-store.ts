// Slack installations in PostgreSQL (table slack_installations): what Bolt's
// InstallProvider stores after "Add to Slack" and reads back to answer an
// event. One row per workspace, or per enterprise for an org-wide install (as
// Bolt models enterprise grid: isEnterpriseInstall, keyed by the enterprise).
// The installation, tokens included, is sealed (token-seal.ts); the clear
// columns are only what finds a row and what an operator lists.
//
// The OAuth states of /slack/install are checked here too: signed, so handing
// one out writes nothing; each is good once, for ten minutes, so a replayed
// redirect is refused.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Installation, InstallationQuery, InstallationStore, InstallURLOptions, StateStore } from '@slack/oauth';
import type pg from 'pg';
import { seal, unseal, type SealingKey } from '../../core/sealing.js';

/** The row key of an installation: the enterprise of an org-wide install, else the team. */
function installKey(q: { isEnterpriseInstall?: boolean; enterpriseId?: string; teamId?: string }): string {
  const key = q.isEnterpriseInstall ? q.enterpriseId : q.teamId;
  if (!key) throw new Error('an installation query names neither its team nor (org-wide) its enterprise');
  return key;
}

export class NoInstallationError extends Error {}

export interface InstalledWorkspace {
  installKey: string;
  teamId: string | null;
  enterpriseId: string | null;
  teamName: string | null;
  installedAt: Date;
}

export class PgInstallationStore implements InstallationStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly keys: SealingKey[],
  ) {}

  async storeInstallation(installation: Installation): Promise<void> {
    const isEnterpriseInstall = Boolean(installation.isEnterpriseInstall);
    const key = installKey({ isEnterpriseInstall, enterpriseId: installation.enterprise?.id, teamId: installation.team?.id });
    const [newest] = this.keys;
    await this.pool.query(
      `INSERT INTO slack_installations (install_key, team_id, enterprise_id, is_enterprise_install, team_name, installer_user_id, scopes, key_id, sealed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (install_key) DO UPDATE SET team_id = excluded.team_id, enterprise_id = excluded.enterprise_id,
         is_enterprise_install = excluded.is_enterprise_install, team_name = excluded.team_name, installer_user_id = excluded.installer_user_id,
         scopes = excluded.scopes, key_id = excluded.key_id, sealed = excluded.sealed, updated_at = now()`,
      [
        key,
        installation.team?.id ?? null,
        installation.enterprise?.id ?? null,
        isEnterpriseInstall,
        installation.team?.name ?? installation.enterprise?.name ?? null,
        installation.user.id,
        installation.bot?.scopes.join(',') ?? null,
        newest.id,
        seal(newest, JSON.stringify(installation), key),
      ],
    );
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const key = installKey(query);
    const { rows } = await this.pool.query<{ key_id: string; sealed: Buffer }>(
      'SELECT key_id, sealed FROM slack_installations WHERE install_key = $1',
      [key],
    );
    if (!rows[0]) throw new NoInstallationError(`the app is not installed in Slack workspace ${key}`);
    return JSON.parse(unseal(this.keys, rows[0].key_id, rows[0].sealed, key)) as Installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.pool.query('DELETE FROM slack_installations WHERE install_key = $1', [installKey(query)]);
  }

  /** Whether an org-wide install of this enterprise exists (its workspaces' events are then answered with its token). */
  async hasOrgInstall(enterpriseId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM slack_installations WHERE install_key = $1 AND is_enterprise_install', [
      enterpriseId,
    ]);
    return rowCount === 1;
  }

  async list(): Promise<InstalledWorkspace[]> {
    const { rows } = await this.pool.query<InstalledWorkspace>(
      `SELECT install_key AS "installKey", team_id AS "teamId", enterprise_id AS "enterpriseId", team_name AS "teamName", installed_at AS "installedAt"
       FROM slack_installations ORDER BY installed_at`,
    );
    return rows;
  }

  /** Re-seals every installation with the newest key (after a rotation); returns how many rows. */
  async rekey(): Promise<number> {
    const [newest] = this.keys;
    const { rows } = await this.pool.query<{ install_key: string; key_id: string; sealed: Buffer }>(
      'SELECT install_key, key_id, sealed FROM slack_installations WHERE key_id <> $1',
      [newest.id],
    );
    for (const r of rows) {
      const plain = unseal(this.keys, r.key_id, r.sealed, r.install_key);
      await this.pool.query('UPDATE slack_installations SET key_id = $2, sealed = $3, updated_at = now() WHERE install_key = $1', [
        r.install_key,
        newest.id,
        seal(newest, plain, r.install_key),
      ]);
    }
    return rows.length;
  }
}

const STATE_TTL_MS = 10 * 60_000;

/** Why a state is refused; the admin reads it on the "not installed" page, with a link to start again. */
const NOT_OURS = 'this install link was not made by this server (or was altered); start again from /slack/install';
const USED = 'this install link was used already; start again from /slack/install';
const EXPIRED = 'this install link expired (10 minutes); start again from /slack/install';

/**
 * OAuth states that cost nothing to hand out. GET /slack/install may be fetched by anyone as often as they like,
 * so its state is kept nowhere: it is `payload.mac`, the payload a random nonce, an expiry and the install options,
 * the mac an HMAC-SHA256 under a key derived from the app's client secret (every process of the app derives the
 * same). InstallProvider sets it as an HttpOnly cookie and, at the callback, refuses a state that is not the
 * browser's own (CSRF); here the mac and the expiry are checked, and only then is the nonce written
 * (slack_oauth_states), once: a second use of the same state finds it and is refused. Nonce rows are deleted once
 * their state would have expired anyway.
 */
export class SignedStateStore implements StateStore {
  private readonly key: Buffer;

  constructor(
    private readonly pool: pg.Pool,
    secret: string,
    private readonly ttlMs = STATE_TTL_MS,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'datadesk', 'slack oauth state v1', 32));
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  async generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
    const payload = Buffer.from(
      JSON.stringify({ n: randomBytes(16).toString('base64url'), e: now.getTime() + this.ttlMs, o: installOptions }),
    ).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const [payload, mac, ...more] = state.split('.');
    const given = Buffer.from(mac ?? '', 'base64url');
    const expected = this.mac(payload ?? '');
    if (more.length || !payload || given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error(NOT_OURS);
    const { n, e, o } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { n: string; e: number; o: InstallURLOptions };
    if (!(e > now.getTime())) throw new Error(EXPIRED);
    await this.pool.query('DELETE FROM slack_oauth_states WHERE expires_at < now()');
    const { rowCount } = await this.pool.query(
      'INSERT INTO slack_oauth_states (state, expires_at) VALUES ($1, $2) ON CONFLICT (state) DO NOTHING',
      [n, new Date(e)],
    );
    if (rowCount !== 1) throw new Error(USED);
    return o;
  }
}
