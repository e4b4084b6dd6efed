import { describe, expect, it } from 'vitest';
import { admit } from '../../../src/channels/slack/listeners/gatekeeper.js';
import { RateLimiter } from '../../../src/core/rate-limit.js';

describe('Slack gatekeeper', () => {
  const gate = (allowed: string[] = [], perUser = 2, now = () => 1_000_000) => ({
    userLimit: new RateLimiter(perUser, now), channelLimit: new RateLimiter(100, now), allowedChannels: allowed,
  });

  it('limits questions per user with a friendly wait time', () => {
    let t = 1_000_000;
    const g = gate([], 2, () => t);
    expect(admit(g, 'C1', 'U1')).toEqual({ go: true });
    expect(admit(g, 'C1', 'U1')).toEqual({ go: true });
    expect(admit(g, 'C1', 'U1')).toEqual({ go: false, tellUser: 'You are asking faster than I can answer well: please try again in 60 s.' });
    expect(admit(g, 'C1', 'U2')).toEqual({ go: true });
    t += 61_000;
    expect(admit(g, 'C1', 'U1')).toEqual({ go: true });
  });

  it('answers only in allowed channels when an allow-list is set', () => {
    const g = gate(['C9']);
    expect(admit(g, 'C9', 'U1')).toEqual({ go: true });
    expect(admit(g, 'C1', 'U1')).toMatchObject({ go: false, tellUser: expect.stringMatching(/^I only answer in the channels my admins allowed/) });
  });
});
