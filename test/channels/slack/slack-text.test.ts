// Text in Slack's real encoding, as Slack delivers what people type.
import { describe, expect, it } from 'vitest';
import { fromSlackText } from '../../../src/channels/slack/slack-text.js';
import { stripMention } from '../../../src/channels/slack/thread-reply.js';

describe('fromSlackText', () => {
  it.each([
    ['600519 2023 buy: RSI(14) &lt; 30 sell: RSI(14) &gt; 70', '600519 2023 buy: RSI(14) < 30 sell: RSI(14) > 70'],
    ['thefts &amp; burglaries in 2019', 'thefts & burglaries in 2019'],
    ['literally &amp;lt; stays', 'literally &lt; stays'],
    ['ask <@U02ABC|maria> about <#C024BE7LR|crime-desk>', 'ask @maria about #crime-desk'],
    ['<!here> how many thefts in <https://example.com/austin|Austin>?', '@here how many thefts in Austin?'],
    ['see <https://data.cityofchicago.org/resource/ijzp-q8t2.json>', 'see https://data.cityofchicago.org/resource/ijzp-q8t2.json'],
    ['on <!date^1562284800^{date}|July 5th, 2019>', 'on July 5th, 2019'],
    ['write to <mailto:desk@example.com|desk@example.com>', 'write to desk@example.com'],
  ])('%s', (slack, typed) => {
    expect(fromSlackText(slack)).toBe(typed);
  });

  it("drops the bot's own mention at the start of a mention, and reads the rest", () => {
    expect(stripMention('<@UBOT> how many crimes after 10pm &amp; before 2am?')).toBe('how many crimes after 10pm & before 2am?');
    expect(stripMention('<@UBOT|datadesk>   <@UBOT> help')).toBe('help');
  });
});
