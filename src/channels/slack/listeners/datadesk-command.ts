// /datadesk help | digest ...: the guide, and the digests' entry point.
import { readFileSync } from 'node:fs';
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { fixturePath } from '../../../core/paths.js';

const GUIDE = readFileSync(fixturePath('help', 'guide.md'), 'utf8').trim();

export function datadeskCommand() {
  return async ({ ack, command }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    const [sub] = command.text.trim().split(/\s+/);
    if (sub?.toLowerCase() === 'digest') {
      await ack({ response_type: 'ephemeral', text: 'Scheduled digests are not available on this bot yet. Ask me anything in the meantime: mention @Data Desk with a question.' });
      return;
    }
    await ack({ response_type: 'ephemeral', text: GUIDE });
  };
}
