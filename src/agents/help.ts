// The bot's guide (fixtures/help/guide.md): what it can do, example questions.
// Shown for "help", by /datadesk help and on the Slack App Home. Digests are
// offered only where they can be subscribed to: Slack (/datadesk digest) and
// Teams (digest ...), not the playground or the terminal.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';
import { DIGEST_COMMAND, isChatPlatform, type Platform } from '../core/platform.js';

export const GUIDE = readFileSync(fixturePath('help', 'guide.md'), 'utf8').trim();

export function guideFor(platform: Platform): string {
  const lines = GUIDE.split('\n');
  if (!isChatPlatform(platform)) return lines.filter((l) => !l.startsWith('Digests:')).join('\n');
  // the guide is written with Slack's command; each platform's own words take its place
  return lines.map((l) => (l.startsWith('Digests:') ? l.replaceAll(DIGEST_COMMAND.slack, DIGEST_COMMAND[platform]) : l)).join('\n');
}
