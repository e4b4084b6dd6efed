// The Slack installations' tokens are sealed at rest (core/sealing.ts) under
// the keys SLACK_TOKEN_KEYS lists, newest first. A key is rotated by putting
// the new one first, running `datadesk slack rekey` (which re-seals every row
// with it) and then dropping the old one.
import { parseSealingKeys, type SealingKey } from '../../core/sealing.js';

/** The keys SLACK_TOKEN_KEYS lists ("id:base64,id:base64"); throws a sentence that says what is wrong. */
export const slackTokenKeys = (text: string): SealingKey[] => parseSealingKeys(text, 'SLACK_TOKEN_KEYS');
