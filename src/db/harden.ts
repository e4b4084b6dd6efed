// `datadesk db harden --admin-url URL`: the steps only a superuser can take on
// a deployment whose app login is not one, run once by whoever holds that
// login: temp_file_limit on the reader role (a sort cannot fill the disk), and
// EXECUTE revoked from PUBLIC on the built-ins that run SQL text, read files,
// change settings, write large objects or take advisory locks (a non-owner
// cannot revoke them, so until then the SQL guard is the only wall). The app's
// own login keeps EXECUTE. Safe to run again; it says what it did and what
// was there already.
import pg from 'pg';
import { UserError } from '../core/errors.js';
import { loginRights, missingWalls, readerRoleName, revokeDangerousFunctions, type ReaderLimits } from './reader-role.js';
import { bestEffort } from '../core/best-effort.js';

export interface HardenReport {
  database: string;
  role: string;
  owner: string;
  done: string[];
  already: string[];
}

/** `appUrl`: the app's DATABASE_URL (its database, and the login that keeps EXECUTE); `adminUrl`: a superuser on that server. */
export async function hardenDatabase(adminUrl: string, appUrl: string, limits: Pick<ReaderLimits, 'tempFileLimit'>): Promise<HardenReport> {
  const database = decodeURIComponent(new URL(appUrl).pathname.slice(1));
  const owner = decodeURIComponent(new URL(appUrl).username);
  const target = new URL(adminUrl);
  target.pathname = `/${encodeURIComponent(database)}`;
  const client = new pg.Client({ connectionString: target.toString() });
  try {
    await client.connect();
  } catch (error) {
    throw new UserError(`Could not connect with --admin-url to the database ${database}: ${(error as Error).message}`);
  }
  try {
    const rights = await loginRights(client);
    if (!rights.superuser)
      throw new UserError(`--admin-url logs in as ${rights.user}, which is not a superuser: only a superuser can take these steps.`);
    const role = readerRoleName(database);
    if ((await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount !== 1) {
      throw new UserError(`There is no reader login ${role} in ${database} yet: start the bot once (it creates it), then run this again.`);
    }
    const before = await missingWalls(client, role, limits);
    await client.query('BEGIN');
    await client.query(`ALTER ROLE "${role.replace(/"/g, '""')}" SET temp_file_limit = '${limits.tempFileLimit.replace(/'/g, "''")}'`);
    const revoked = await revokeDangerousFunctions(client, owner || rights.user);
    await client.query('COMMIT');
    const after = await missingWalls(client, role, limits);
    const done = before.filter((m) => !after.includes(m));
    return {
      database,
      role,
      owner: owner || rights.user,
      done: done.length ? done : [],
      already: before.length ? [] : [`temp_file_limit on ${role}`, `EXECUTE on ${revoked} built-ins kept from PUBLIC`],
    };
  } catch (error) {
    await bestEffort(client.query('ROLLBACK'), 'ROLLBACK of db harden');
    throw error;
  } finally {
    await bestEffort(client.end(), 'closing the admin connection of db harden');
  }
}
