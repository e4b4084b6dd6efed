// The per-person token bucket (issue 36, part 4): bursts allowed, a fragment or
// a button costs half a question, a refused turn takes nothing.
import { describe, expect, it } from 'vitest';
import { RateLimiter, turnCost } from '../../src/core/rate-limit.js';
import { admit, type Gate } from '../../src/channels/inbox.js';
import { loadConfig } from '../../src/config/env.js';

describe('RateLimiter, a token bucket', () => {
  it('takes a burst at once, then refills at the per-minute rate, and says how long to wait', () => {
    let t = 0;
    const bucket = new RateLimiter(6, () => t, 3); // 3 at once, one more every 10 s
    expect([bucket.take('a'), bucket.take('a'), bucket.take('a')]).toEqual([0, 0, 0]);
    expect(bucket.take('a')).toBe(10);
    t += 4_000;
    expect(bucket.take('a')).toBe(6); // a refused turn takes nothing: the wait only shrinks
    t += 6_000;
    expect(bucket.take('a')).toBe(0);
    expect(bucket.take('b')).toBe(0); // another person's bucket is full
    t += 60_000;
    expect([bucket.take('a'), bucket.take('a'), bucket.take('a'), bucket.take('a')]).toEqual([0, 0, 0, 10]); // never more than the burst
  });

  it('charges half a token for a fragment', () => {
    let t = 0;
    const bucket = new RateLimiter(10, () => t, 2);
    expect([0.5, 0.5, 0.5, 0.5].map((c) => bucket.take('a', c))).toEqual([0, 0, 0, 0]);
    expect(bucket.take('a', 0.5)).toBe(3);
    t += 3_000;
    expect(bucket.take('a', 0.5)).toBe(0);
  });

  it('defaults the burst to the per-minute figure (RATE_LIMIT_USER_BURST unset)', () => {
    expect(loadConfig({}).rateLimits).toMatchObject({ userPerMinute: 10, userBurst: 10 });
    expect(loadConfig({ RATE_LIMIT_USER_PER_MINUTE: '20' }).rateLimits.userBurst).toBe(20);
    expect(loadConfig({ RATE_LIMIT_USER_BURST: '30' }).rateLimits).toMatchObject({ userPerMinute: 10, userBurst: 30 });
    expect(() => loadConfig({ RATE_LIMIT_USER_BURST: '0' })).toThrow(/RATE_LIMIT_USER_BURST/);
  });
});

describe('turnCost: what a turn asks of the bot', () => {
  it('a new question costs 1; a fragment of a few words or a button 0.5', () => {
    expect(turnCost({ text: 'How many thefts were reported in 2019?' })).toBe(1);
    expect(turnCost({ text: 'by month' })).toBe(0.5);
    expect(turnCost({ text: 'what about 2020?' })).toBe(0.5);
    expect(turnCost({ text: 'only arrests, by district' })).toBe(0.5);
    expect(turnCost({ text: 'and burglaries by ward since 2015' })).toBe(1);
    expect(turnCost({ click: true })).toBe(0.5);
    expect(turnCost({})).toBe(1);
  });
});

describe('the default limits, as a person meets them', () => {
  const config = loadConfig({});
  const gateAt = (now: () => number): Gate => ({
    userLimit: new RateLimiter(config.rateLimits.userPerMinute, now, config.rateLimits.userBurst),
    channelLimit: new RateLimiter(config.rateLimits.channelPerMinute, now),
    allowedChannels: [],
    allowedWorkspaces: [],
  });

  it("passes an analyst's brisk minute: 1 question, 8 fragments and 3 clicks", () => {
    let t = 0;
    const gate = gateAt(() => t);
    const who = { channel: 'C1', userId: 'U1' };
    const turns = [
      { text: 'How many thefts were reported in 2019?' },
      { text: 'by month' },
      { click: true },
      { text: 'only arrests' },
      { text: 'what about 2020?' },
      { click: true },
      { text: 'in Austin' },
      { text: 'by district instead' },
      { text: 'as a chart' },
      { click: true },
      { text: 'and burglaries?' },
      { text: 'same for 2021' },
    ];
    const verdicts = turns.map((turn) => {
      t += 4_000; // a turn every 4 s: 12 turns in 48 s
      return admit(gate, { ...who, ...turn });
    });
    expect(verdicts.filter((v) => !v.go)).toEqual([]);
  });

  it('limits a flood of 30 new questions in a minute', () => {
    let t = 0;
    const gate = gateAt(() => t);
    const verdicts = Array.from({ length: 30 }, (_, i) => {
      t += 2_000;
      return admit(gate, { channel: 'C1', userId: 'U1', text: `How many crimes were reported in ${2001 + i}?` });
    });
    const refused = verdicts.filter((v) => !v.go);
    // 10 at once, then one every 6 s: 19 of 30 in the minute, the rest told to wait
    expect(verdicts.length - refused.length).toBeLessThanOrEqual(20);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(refused[0]).toMatchObject({
      tellUser: expect.stringMatching(/^You are asking faster than I can answer well: please try again in \d+ s\.$/),
    });
  });
});
