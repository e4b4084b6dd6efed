// datadesk verified list|add|remove|export, and datadesk feedback: the
// verified question/SQL pairs (see src/verified/verified-store.ts) and the
// answers people marked wrong.
// What each does loads when it runs, not for every command.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.js';
import type { Database } from '../../db/database.js';
import type { VerifiedStore } from '../../verified/verified-store.js';

/** Runs `run` on a database opened for the command. */
async function withDb<T>(run: (db: Database) => Promise<T>): Promise<T> {
  const { commandContext, withDatabase } = await import('../context.js');
  return withDatabase(commandContext(), run);
}

/** Runs `run` with the verified pairs' store. */
async function withVerified<T>(run: (store: VerifiedStore) => Promise<T>): Promise<T> {
  const { VerifiedStore } = await import('../../verified/verified-store.js');
  return withDb((db) => run(new VerifiedStore(db.write)));
}

const oneLine = (s: string, max = 100) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function registerVerified(program: Command): void {
  const verified = program
    .command('verified')
    .description('the verified question/SQL pairs: asked in their words, a question gets their query');
  verified
    .command('list')
    .description('every pair: id, where it came from, the question and its SQL')
    .option('--json', 'as JSON')
    .action(async (opts: { json?: boolean }) => {
      const pairs = await withVerified((store) => store.list());
      if (opts.json) process.stdout.write(JSON.stringify(pairs, null, 2) + '\n');
      else
        for (const p of pairs)
          process.stdout.write(
            `#${p.id} [${p.source}${p.added_by ? ` by ${p.added_by}` : ''}${p.workspace ? `, workspace ${p.workspace} only` : ''}] ${p.question}\n    ${oneLine(p.sql)}\n`,
          );
    });
  verified
    .command('add')
    .description('vouch for a question and its SQL (the SQL must pass the guard)')
    .argument('<question>', 'the question, in the words people ask it')
    .argument('<sql>', 'one SELECT that answers it')
    .action(async (question: string, sql: string) => {
      const { checkSql } = await import('../../db/sql-guard.js');
      const verdict = await checkSql(sql);
      if (!verdict.ok) throw new UserError(`The SQL does not pass the guard: ${verdict.message}`);
      // an operator may replace a pair (a thumbs-up never does); who and when is kept on the row
      const { id, added } = await withVerified((store) =>
        store.add({ question, sql, source: 'cli', addedBy: `cli:${process.env.USER ?? 'unknown'}`, replace: true }),
      );
      process.stdout.write(`#${id}: "${question}" is verified${added ? '' : ' (the pair for these words was replaced)'}.\n`);
    });
  verified
    .command('remove')
    .description('forget a pair by its id (see verified list)')
    .argument('<id>', 'the pair id')
    .action(async (id: string) => {
      if (!/^\d+$/.test(id))
        throw new UserError(`"${id}" is not a pair id: use the number verified list shows, e.g. datadesk verified remove 12`);
      const removed = await withVerified((store) => store.remove(id));
      if (!removed) throw new UserError(`There is no verified pair #${id} (datadesk verified list shows them).`);
      process.stdout.write(`#${id} removed.\n`);
    });
  verified
    .command('export')
    .description('every pair as JSON lines (question, sql, source, added_by), for review or another deployment')
    .action(async () => {
      const pairs = await withVerified((store) => store.list());
      for (const p of pairs)
        process.stdout.write(JSON.stringify({ question: p.question, sql: p.sql, source: p.source, added_by: p.added_by }) + '\n');
    });

  program
    .command('feedback')
    .description('answers people marked 👎, newest first: the question, its SQL, who and when')
    .option('--json', 'as JSON')
    .option('--limit <n>', 'how many', (v) => Number(v), 50)
    .action(async (opts: { json?: boolean; limit: number }) => {
      const { downVotes } = await import('../../feedback/feedback.js');
      const rows = await withDb((db) => downVotes(db.write, opts.limit));
      if (opts.json) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return;
      }
      if (!rows.length) process.stdout.write('No answer has been marked 👎.\n');
      for (const r of rows) {
        // the resolved question (what was answered); the words typed after it when they differ ("only arrests")
        const typed = r.asked && r.question && r.asked !== r.question ? `  (typed: "${oneLine(r.asked, 60)}")` : '';
        process.stdout.write(
          `${r.created_at.toISOString().slice(0, 16).replace('T', ' ')} ${r.platform}:${r.user_id}  ${r.question ?? '(question not kept)'}${typed}\n    ${r.sql ? oneLine(r.sql) : '(no single query)'}\n${r.reason ? `    why: ${oneLine(r.reason)}\n` : ''}`,
        );
      }
    });
}
