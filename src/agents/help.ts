// The bot's guide (fixtures/help/guide.md): what it can do, example questions.
// Shown for "help", by /datadesk help and on the Slack App Home. Digests are
// offered only where they can be subscribed to: Slack (/datadesk digest) and
// Teams (digest ...), not the playground or the terminal.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';

export const GUIDE = readFileSync(fixturePath('help', 'guide.md'), 'utf8').trim();

export function guideFor(platform: 'slack' | 'teams' | 'cli' | 'web'): string {
  const lines = GUIDE.split('\n');
  if (platform === 'slack') return GUIDE;
  if (platform === 'teams') return lines.map((l) => (l.startsWith('Digests:') ? l.replace(/\/datadesk digest/g, 'digest') : l)).join('\n');
  return lines.filter((l) => !l.startsWith('Digests:')).join('\n');
}
