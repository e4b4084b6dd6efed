// The one typed configuration object, read from the environment (and an
// optional .env file) and validated once at start. Every variable is documented
// in .env.example; an invalid value fails with the variable's name and what is
// expected, never with a stack trace.
import { z } from 'zod';
import { Cron } from 'croner';
import { parseGlossaryDefaults } from '../knowledge/glossary.js';
import { parseSealingKeys } from '../core/sealing.js';

/** A comma-separated setting as a list, blanks dropped. */
const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);

/** The bot scopes an OAuth install asks for: manifests/slack/manifest.yml's (a test compares the two). */
export const SLACK_BOT_SCOPES = [
  'app_mentions:read',
  'channels:history',
  'groups:history',
  'chat:write',
  'commands',
  'files:write',
  'im:history',
  'mpim:history',
  'reactions:read',
  // the agent view: suggested prompts, the status line and the thread title
  'assistant:write',
  // a backtest run's link: link_shared, and its card through chat.unfurl
  'links:read',
  'links:write',
];

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const postgresUrl = optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
  message: 'expected a PostgreSQL URL such as postgres://user@host:5432/dbname',
});

const httpUrl = optionalString.refine((v) => v === undefined || /^https?:\/\/\S+$/.test(v), {
  message: 'expected an http:// or https:// URL',
});

const httpsUrl = optionalString.refine((v) => v === undefined || /^https:\/\/\S+$/.test(v), {
  message: 'expected an https:// URL (Teams requires https links in the app manifest)',
});

const integer = (fallback: number, min: number, max: number) =>
  optionalString
    .transform((v) => (v === undefined ? fallback : Number(v)))
    .refine((n) => Number.isInteger(n) && n >= min && n <= max, {
      message: `expected a whole number from ${min} to ${max}`,
    });

/** A cron expression (5 or 6 fields) or the word "off". */
const schedule = optionalString.refine(
  (v) => {
    if (v === undefined || v === 'off') return true;
    try {
      new Cron(v, { paused: true });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'expected a cron expression such as "0 4 * * 1" (Mondays 04:00) or "off"' },
);

const timezone = optionalString.refine(
  (v) => {
    if (v === undefined) return true;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: v });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'expected an IANA time zone such as America/Chicago' },
);

const schema = z.object({
  DATABASE_URL: postgresUrl,
  READ_DATABASE_URL: postgresUrl,
  DATADESK_HOME: optionalString.transform((v) => v ?? '.datadesk'),
  EMBEDDED_PG_PORT: integer(54329, 1024, 65535),
  HOST: optionalString.transform((v) => v ?? '127.0.0.1'),
  PORT: integer(3000, 0, 65535),
  LOG_LEVEL: optionalString
    .transform((v) => v ?? 'info')
    .pipe(z.enum(['debug', 'info', 'warn', 'error'], { message: 'expected debug, info, warn or error' })),
  DEMO_DATA: optionalString
    .transform((v) => v ?? 'auto')
    .pipe(z.enum(['auto', 'off'], { message: 'expected auto (load on an empty database) or off' })),
  DEMO_CRIME_ROWS: integer(300_000, 1, 20_000_000),
  DEMO_TICKERS: integer(200, 1, 6_000),
  SOCRATA_URL: httpUrl.transform((v) => v ?? 'https://data.cityofchicago.org/resource/ijzp-q8t2.json'),
  SOCRATA_APP_TOKEN: optionalString,
  SOCRATA_PAGE_SIZE: integer(50_000, 1, 50_000),
  SOCRATA_SCHEDULE: schedule,
  SCHEDULE_TIMEZONE: timezone.transform((v) => v ?? 'America/Chicago'),
  STATEMENT_TIMEOUT_MS: integer(15_000, 100, 600_000),
  ANSWER_DEADLINE_MS: integer(30_000, 1_000, 600_000),
  DATADESK_ALLOW_SUPERUSER: optionalString
    .transform((v) => v ?? 'false')
    .pipe(z.enum(['true', 'false'], { message: 'expected true or false' })),
  READER_POOL_SIZE: integer(3, 1, 100),
  READER_WORK_MEM: optionalString
    .transform((v) => v ?? '32MB')
    .refine((v) => /^\d+(kB|MB|GB)$/.test(v), { message: 'expected a PostgreSQL memory size such as 32MB' }),
  READER_TEMP_FILE_LIMIT: optionalString
    .transform((v) => v ?? '512MB')
    .refine((v) => /^\d+(kB|MB|GB)$/.test(v), { message: 'expected a PostgreSQL memory size such as 512MB' }),
  SQL_MAX_RESULT_BYTES: integer(32 * 1024 * 1024, 65_536, 2 ** 31 - 1),
  // the rows an answer carries: Slack's data_table shows up to 100 (its published limit), the other channels fewer
  SQL_DISPLAY_ROWS: integer(100, 1, 1_000),
  THREAD_MEMORY_URL: optionalString.refine((v) => v === undefined || v === 'memory' || /^rediss?:\/\//.test(v), {
    message: 'expected memory or redis://host:6379 (unset: the app database)',
  }),
  THREAD_MEMORY_TTL_HOURS: integer(168, 1, 24 * 365),
  GLOSSARY_DEFAULTS: optionalString,
  QUICKCHART_URL: httpUrl,
  SLACK_BOT_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xoxb-'), {
    message: 'expected a bot token starting with xoxb-',
  }),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message: 'expected an app-level token starting with xapp- (Socket Mode)',
  }),
  SLACK_API_URL: httpUrl,
  SLACK_ALLOWED_CHANNELS: optionalString,
  // answers stream into one message (chat.startStream) where Slack can; false: placeholder edited into the answer
  SLACK_STREAMING: optionalString.transform((v) => v ?? 'true').pipe(z.enum(['true', 'false'], { message: 'expected true or false' })),
  // installs from many workspaces ("Add to Slack", src/channels/slack/slack-install.ts) instead of one SLACK_BOT_TOKEN
  SLACK_CLIENT_ID: optionalString,
  SLACK_CLIENT_SECRET: optionalString,
  SLACK_TOKEN_KEYS: optionalString,
  SLACK_SCOPES: optionalString,
  // where /slack/install sends the admin (Slack's authorize page; another only for a test's fake)
  SLACK_AUTHORIZE_URL: httpUrl,
  MICROSOFT_APP_ID: optionalString,
  MICROSOFT_APP_PASSWORD: optionalString,
  MICROSOFT_APP_TENANT_ID: optionalString,
  MICROSOFT_APP_TYPE: optionalString
    .transform((v) => v ?? 'MultiTenant')
    .pipe(z.enum(['MultiTenant', 'SingleTenant', 'UserAssignedMSI'], { message: 'expected MultiTenant, SingleTenant or UserAssignedMSI' })),
  // Teams without a bot registration, for the Bot Framework Emulator (loopback HOST only; see src/channels/teams/teams-mode.ts)
  TEAMS_LOCAL: optionalString.transform((v) => v ?? 'false').pipe(z.enum(['true', 'false'], { message: 'expected true or false' })),
  TEAMS_ALLOWED_TENANTS: optionalString,
  TEAMS_PRIVACY_URL: httpsUrl,
  TEAMS_TERMS_URL: httpsUrl,
  PUBLIC_BASE_URL: httpUrl,
  DIGEST_TICK_SECONDS: integer(30, 1, 3_600),
  DIGEST_GRACE_MINUTES: integer(360, 0, 7 * 24 * 60),
  RATE_LIMIT_USER_PER_MINUTE: integer(10, 1, 10_000),
  RATE_LIMIT_USER_BURST: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .refine((n) => n === undefined || (Number.isInteger(n) && n >= 1 && n <= 10_000), {
      message: 'expected a whole number from 1 to 10000',
    }),
  RATE_LIMIT_CHANNEL_PER_MINUTE: integer(30, 1, 10_000),
  WORKER_CONCURRENCY: integer(4, 1, 64),
  ANSWERING_PER_USER: integer(1, 1, 100),
  ANSWERING_PER_CHANNEL: integer(3, 1, 1_000),
  JOB_RETRIES: integer(3, 0, 20),
  EXPORT_ROW_LIMIT: integer(1_000_000, 1, 50_000_000),
  EXPORT_TIMEOUT_MS: integer(120_000, 1_000, 3_600_000),
  PLAYGROUND_TOKEN: optionalString.refine((v) => v === undefined || /^[A-Za-z0-9._~-]{16,}$/.test(v), {
    message: 'expected at least 16 letters, digits, "-", "_", "." or "~" (e.g. the output of: openssl rand -hex 16)',
  }),
  PLAYGROUND_ALLOWED_HOSTS: optionalString,
  CURATORS: optionalString,
  LLM_BASE_URL: httpUrl,
  LLM_API_KEY: optionalString,
  LLM_MODEL: optionalString,
});

export type RawEnv = Record<string, string | undefined>;

export interface Config {
  databaseUrl?: string;
  readDatabaseUrl?: string;
  home: string;
  embeddedPgPort: number;
  host: string;
  port: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  demoData: 'auto' | 'off';
  demoCrimeRows: number;
  demoTickers: number;
  socrata: {
    url: string;
    appToken?: string;
    pageSize: number;
    /** Cron expression, or undefined when the scheduled sync is off. */
    schedule?: string;
  };
  scheduleTimezone: string;
  /** the longest an agent's query may run */
  statementTimeoutMs: number;
  /** the most time a question's model calls may take together; past it the answer comes without the model */
  answerDeadlineMs: number;
  /** rows of a result kept for display (the full count is still reported) */
  sqlDisplayRows: number;
  /** run even when DATABASE_URL logs in as a superuser (CI, throwaway databases) */
  allowSuperuser: boolean;
  /** the reader login that runs model-written SQL: its pool size and role-level limits, and the most result bytes fetched */
  reader: { poolSize: number; workMem: string; tempFileLimit: string; maxResultBytes: number };
  /** keyv store of thread memory; undefined: the app database */
  threadMemoryUrl?: string;
  threadMemoryTtlHours: number;
  /** workspace defaults for ambiguous glossary terms, e.g. {night: "22-06"} */
  glossaryDefaults: Record<string, string>;
  quickchartUrl?: string;
  /** Slack, when SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID (OAuth installs, many workspaces) is set */
  slack?: {
    /** the single-workspace token; undefined with OAuth installs (each workspace's token is in its installation) */
    botToken?: string;
    /** OAuth installs: the app's credentials, the keys that seal tokens at rest, the bot scopes asked for */
    oauth?: { clientId: string; clientSecret: string; tokenKeys: string; scopes: string[]; authorizeUrl?: string };
    signingSecret?: string;
    appToken?: string;
    apiUrl?: string;
    /** channel ids the bot answers in; empty: everywhere it is invited */
    allowedChannels: string[];
    /** answers stream (chat.startStream) where Slack can; false: the placeholder is edited into the answer */
    streaming: boolean;
  };
  /**
   * Microsoft Teams, when MICROSOFT_APP_ID is set, or TEAMS_LOCAL=true (then `local`, appId '': no Bot
   * Framework authentication, for the Emulator; serve starts it only on a loopback HOST). appPassword is ''
   * when not given: serve and worker refuse that (teamsCredentialProblem), `teams package` needs only the id.
   */
  teams?: {
    appId: string;
    appPassword: string;
    tenantId: string;
    appType: 'MultiTenant' | 'SingleTenant' | 'UserAssignedMSI';
    local: boolean;
    /** tenant ids the bot answers; empty: any tenant that installs it */
    allowedTenants: string[];
  };
  /** the Teams app manifest's privacy and terms links (https); unset: the bot's own pages (see manifests/teams) */
  teamsManifest: { privacyUrl?: string; termsUrl?: string };
  /** how often the digest scheduler looks for due digests, and how late a missed one may still post */
  digestTickSeconds: number;
  digestGraceMinutes: number;
  /** how the outside world reaches this bot (links to chart images in Teams cards) */
  publicBaseUrl?: string;
  /** a person's bucket refills userPerMinute tokens a minute and holds up to userBurst (a question costs 1, a fragment or a click 0.5) */
  rateLimits: { userPerMinute: number; userBurst: number; channelPerMinute: number };
  /** answering as jobs: handlers per platform queue in a worker process, questions answered at once per asker and per channel, retries of a failed attempt */
  jobs: { concurrency: number; perUser: number; perChannel: number; retries: number };
  /** "Download CSV": at most this many rows, within this statement timeout */
  export: { rowLimit: number; timeoutMs: number };
  /** the browser playground: its token (required to serve it on a non-loopback HOST) and extra Host names it answers to */
  playground: { token?: string; allowedHosts: string[] };
  /**
   * Slack or Teams user ids whose thumbs-up makes an answer a verified question (anyone in the playground):
   * "U123" in any workspace, "T456:U123" only in workspace (team or tenant) T456 (see feedback/curators.ts)
   */
  curators: string[];
  llm?: { baseUrl?: string; apiKey?: string; model: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The weekly default of the portal sync; off on the embedded demo database, whose data is synthetic. */
const DEFAULT_SOCRATA_SCHEDULE = '0 4 * * 1';

export function loadConfig(env: RawEnv): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  if ((e.LLM_BASE_URL || e.LLM_API_KEY) && !e.LLM_MODEL) {
    problems.push('LLM_MODEL: required when LLM_BASE_URL or LLM_API_KEY is set (e.g. gpt-4o-mini)');
  }
  if (e.READ_DATABASE_URL && !e.DATABASE_URL) {
    problems.push('READ_DATABASE_URL: needs DATABASE_URL too (writes always go to DATABASE_URL)');
  }
  let glossaryDefaults: Record<string, string> = {};
  try {
    glossaryDefaults = parseGlossaryDefaults(e.GLOSSARY_DEFAULTS);
  } catch (error) {
    problems.push(`GLOSSARY_DEFAULTS: ${(error as Error).message}`);
  }
  if (e.SLACK_BOT_TOKEN && !e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET) {
    problems.push('SLACK_SIGNING_SECRET: required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
  }
  if (e.SLACK_CLIENT_ID) {
    if (e.SLACK_BOT_TOKEN)
      problems.push('SLACK_BOT_TOKEN: unset it with SLACK_CLIENT_ID (OAuth installs keep one token per workspace); use one or the other');
    if (!e.SLACK_CLIENT_SECRET) problems.push('SLACK_CLIENT_SECRET: required with SLACK_CLIENT_ID (Basic Information -> App Credentials)');
    if (!e.SLACK_SIGNING_SECRET) problems.push('SLACK_SIGNING_SECRET: required with SLACK_CLIENT_ID (installs receive events over HTTP)');
    if (e.SLACK_APP_TOKEN)
      problems.push('SLACK_APP_TOKEN: Socket Mode apps cannot be distributed to other workspaces; unset it with SLACK_CLIENT_ID');
    if (!e.SLACK_TOKEN_KEYS)
      problems.push(
        "SLACK_TOKEN_KEYS: required with SLACK_CLIENT_ID, to seal the workspaces' tokens at rest (e.g. k1:$(openssl rand -base64 32))",
      );
    else {
      try {
        parseSealingKeys(e.SLACK_TOKEN_KEYS, 'SLACK_TOKEN_KEYS');
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  // (a missing MICROSOFT_APP_PASSWORD is refused by serve and worker, not here: `teams package` needs only the id)
  if (e.MICROSOFT_APP_ID && e.TEAMS_LOCAL === 'true') {
    problems.push('TEAMS_LOCAL: true runs Teams without authentication and without an app id; unset it or MICROSOFT_APP_ID');
  }
  if (e.MICROSOFT_APP_ID && e.MICROSOFT_APP_TYPE === 'SingleTenant' && !e.MICROSOFT_APP_TENANT_ID) {
    problems.push('MICROSOFT_APP_TENANT_ID: required for a SingleTenant bot');
  }
  const allowedHosts = (e.PLAYGROUND_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const badHost = allowedHosts.find((h) => !/^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(h));
  if (badHost)
    problems.push(
      `PLAYGROUND_ALLOWED_HOSTS: "${badHost}" is not a host name; expected names or addresses without scheme or port, e.g. datadesk.example.com,10.0.0.5`,
    );
  if ((e.SLACK_SIGNING_SECRET || e.SLACK_APP_TOKEN) && !e.SLACK_BOT_TOKEN && !e.SLACK_CLIENT_ID) {
    problems.push(
      'SLACK_BOT_TOKEN: required when other SLACK_* settings are given (xoxb-...), or SLACK_CLIENT_ID for installs from many workspaces',
    );
  }
  if (problems.length) throw new ConfigError(problems);

  const socrataSchedule =
    e.SOCRATA_SCHEDULE === 'off' ? undefined : (e.SOCRATA_SCHEDULE ?? (e.DATABASE_URL ? DEFAULT_SOCRATA_SCHEDULE : undefined));

  return {
    databaseUrl: e.DATABASE_URL,
    readDatabaseUrl: e.READ_DATABASE_URL,
    home: e.DATADESK_HOME,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    demoData: e.DEMO_DATA,
    demoCrimeRows: e.DEMO_CRIME_ROWS,
    demoTickers: e.DEMO_TICKERS,
    socrata: {
      url: e.SOCRATA_URL,
      appToken: e.SOCRATA_APP_TOKEN,
      pageSize: e.SOCRATA_PAGE_SIZE,
      schedule: socrataSchedule,
    },
    scheduleTimezone: e.SCHEDULE_TIMEZONE,
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    answerDeadlineMs: e.ANSWER_DEADLINE_MS,
    sqlDisplayRows: e.SQL_DISPLAY_ROWS,
    allowSuperuser: e.DATADESK_ALLOW_SUPERUSER === 'true',
    reader: {
      poolSize: e.READER_POOL_SIZE,
      workMem: e.READER_WORK_MEM,
      tempFileLimit: e.READER_TEMP_FILE_LIMIT,
      maxResultBytes: e.SQL_MAX_RESULT_BYTES,
    },
    threadMemoryUrl: e.THREAD_MEMORY_URL,
    threadMemoryTtlHours: e.THREAD_MEMORY_TTL_HOURS,
    glossaryDefaults,
    quickchartUrl: e.QUICKCHART_URL,
    slack:
      e.SLACK_BOT_TOKEN || e.SLACK_CLIENT_ID
        ? {
            botToken: e.SLACK_BOT_TOKEN,
            signingSecret: e.SLACK_SIGNING_SECRET,
            appToken: e.SLACK_APP_TOKEN,
            apiUrl: e.SLACK_API_URL,
            allowedChannels: list(e.SLACK_ALLOWED_CHANNELS),
            streaming: e.SLACK_STREAMING === 'true',
            oauth: e.SLACK_CLIENT_ID
              ? {
                  clientId: e.SLACK_CLIENT_ID,
                  clientSecret: e.SLACK_CLIENT_SECRET!,
                  tokenKeys: e.SLACK_TOKEN_KEYS!,
                  authorizeUrl: e.SLACK_AUTHORIZE_URL,
                  scopes: e.SLACK_SCOPES ? list(e.SLACK_SCOPES) : SLACK_BOT_SCOPES,
                }
              : undefined,
          }
        : undefined,
    teams: e.MICROSOFT_APP_ID
      ? {
          appId: e.MICROSOFT_APP_ID,
          appPassword: e.MICROSOFT_APP_PASSWORD ?? '',
          tenantId: e.MICROSOFT_APP_TENANT_ID ?? '',
          appType: e.MICROSOFT_APP_TYPE,
          local: false,
          allowedTenants: list(e.TEAMS_ALLOWED_TENANTS),
        }
      : e.TEAMS_LOCAL === 'true'
        ? { appId: '', appPassword: '', tenantId: '', appType: 'MultiTenant', local: true, allowedTenants: list(e.TEAMS_ALLOWED_TENANTS) }
        : undefined,
    teamsManifest: { privacyUrl: e.TEAMS_PRIVACY_URL, termsUrl: e.TEAMS_TERMS_URL },
    digestTickSeconds: e.DIGEST_TICK_SECONDS,
    digestGraceMinutes: e.DIGEST_GRACE_MINUTES,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    rateLimits: {
      userPerMinute: e.RATE_LIMIT_USER_PER_MINUTE,
      userBurst: e.RATE_LIMIT_USER_BURST ?? e.RATE_LIMIT_USER_PER_MINUTE,
      channelPerMinute: e.RATE_LIMIT_CHANNEL_PER_MINUTE,
    },
    jobs: { concurrency: e.WORKER_CONCURRENCY, perUser: e.ANSWERING_PER_USER, perChannel: e.ANSWERING_PER_CHANNEL, retries: e.JOB_RETRIES },
    export: { rowLimit: e.EXPORT_ROW_LIMIT, timeoutMs: e.EXPORT_TIMEOUT_MS },
    playground: { token: e.PLAYGROUND_TOKEN, allowedHosts },
    curators: list(e.CURATORS),
    llm: e.LLM_MODEL ? { baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.LLM_MODEL } : undefined,
  };
}

/** One line about the LLM for the start-up banner; never prints the key. */
export function describeLlm(config: Config): string {
  if (!config.llm) {
    return 'LLM: none configured. Answers come from the query plan (read without a model), verified queries, the rule syntax and the deterministic narrator; set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for free-form questions.';
  }
  const where = config.llm.baseUrl ?? 'https://api.openai.com/v1';
  return `LLM: ${config.llm.model} at ${where}${config.llm.apiKey ? ' (key set)' : ' (no key)'}`;
}
