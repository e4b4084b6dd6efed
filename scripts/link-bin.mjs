// Run by `prepare` (after `npm install` compiled dist/): makes `npx datadesk`
// in a clone run dist/cli/main.js at once.
//
// Why not package.json's "bin": npm links the bins of dependencies into
// node_modules/.bin, never the project's own; and when the project's own
// package.json has a bin of that name, `npx`/`npm exec` install the project
// into npm's npx cache first (a link, whose `prepare` compiles everything
// again: about 2 minutes on 2 cores, printing nothing), and an interrupted
// first run left a cache entry without the bin that broke every later call.
// With no "bin" and this link, npx finds node_modules/.bin/datadesk and runs it.
import { chmodSync, existsSync, lstatSync, mkdirSync, symlinkSync, unlinkSync } from 'node:fs';

const target = '../../dist/cli/main.js';
const link = 'node_modules/.bin/datadesk';
if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
chmodSync('dist/cli/main.js', 0o755);
mkdirSync('node_modules/.bin', { recursive: true });
try {
  lstatSync(link);
  unlinkSync(link);
} catch {
  // no link yet
}
symlinkSync(target, link);
