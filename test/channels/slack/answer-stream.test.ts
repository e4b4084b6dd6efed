// The pieces of a streamed Slack answer that need no Slack: what streams where,
// what turns streaming off, and data kept as text in streamed markdown.
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { canStream, escapeMarkdown, StreamSupport } from '../../../src/channels/slack/answer-stream.js';
import { placeholderFor } from '../../../src/channels/slack/placeholder.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import type { Deliveries } from '../../../src/jobs/deliveries.js';
import { startFakeSlack } from '../../helpers/fake-slack.js';

describe('streamed answers', () => {
  it('a refusal that means "no streaming here" turns it off for that workspace only; a passing error does not', () => {
    const streams = new StreamSupport();
    expect(streams.on('T1')).toBe(true);
    streams.refused('T1', 'internal_error');
    expect(streams.on('T1')).toBe(true);
    streams.refused('T1', 'unknown_method');
    expect(streams.on('T1')).toBe(false);
    expect(streams.on('T2')).toBe(true);
    expect(new StreamSupport(false).on('T2')).toBe(false);
  });

  it('streams in a DM without a recipient; in a channel only when the asker and their team are known', () => {
    expect(canStream({ channel: 'D1', threadTs: '1.1' })).toBe(true);
    expect(canStream({ channel: 'C1', threadTs: '1.1', userId: 'U1', workspace: 'T1' })).toBe(true);
    expect(canStream({ channel: 'C1', threadTs: '1.1', userId: 'U1' })).toBe(false);
  });

  it('data in streamed markdown stays text: no link, emphasis, code or HTML from a block name or a model', () => {
    const hostile = '[click](https://evil.example) *bold* _it_ `code` <b>x</b> ~s~ www.evil.example \\';
    const escaped = escapeMarkdown(hostile);
    expect(escaped).toBe(
      '\\[click\\](https:\u2060//evil.example) \\*bold\\* \\_it\\_ \\`code\\` \\<b\\>x\\</b\\> \\~s\\~ www\u2060.evil.example \\\\',
    );
    // nothing else changes: without the escapes and joiners it is the data
    expect(escaped.replace(/\u2060/g, '').replace(/\\(.)/g, '$1')).toBe(hostile);
    expect(escapeMarkdown('Theft: 1,234 in 2019 (up 5.2%) #1')).toBe('Theft: 1,234 in 2019 (up 5.2%) #1');
    // entities (Markdown decodes them: &#64;here is "@here"), tables and headings from data stay text too
    expect(escapeMarkdown('&#64;here &lt;!here&gt; a|b\n# head')).toBe('\\&#64;here \\&lt;!here\\&gt; a\\|b\n\\# head');
  });

  it('a stream that cannot be recorded (the database went down) is stopped and deleted, not left saying "In line"', async () => {
    const slack = await startFakeSlack();
    slack.streaming = true;
    try {
      const client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      const deliveries = {
        recordStep: async () => undefined,
        claimPlaceholder: async () => {
          throw down;
        },
      } as unknown as Deliveries;
      const place = { channel: 'C1', threadTs: '1800000001.000100', userId: 'U1', workspace: 'T1' };
      await expect(
        placeholderFor({ client, deliveries, logger: createMemoryLogger() }, 'slack:event:EvDown', 'C1', place.threadTs, 'x', undefined, {
          support: new StreamSupport(),
          place,
          title: 'Working on it',
        }),
      ).rejects.toThrow(/ECONNREFUSED/);
      expect(slack.of('chat.startStream')).toHaveLength(1);
      expect(slack.of('chat.stopStream')).toHaveLength(1);
      expect(slack.messages).toEqual([]);
    } finally {
      await slack.close();
    }
  });
});
