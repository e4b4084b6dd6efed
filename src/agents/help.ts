// The bot's guide (fixtures/help/guide.md): what it can do, example questions.
// Shown for "help", by /datadesk help and on the Slack App Home.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';

export const GUIDE = readFileSync(fixturePath('help', 'guide.md'), 'utf8').trim();
