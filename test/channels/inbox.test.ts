import { describe, expect, it } from 'vitest';
import { admit, NOT_THIS_WORKSPACE, workspaceAllowed } from '../../src/channels/inbox.js';
import { RateLimiter } from '../../src/core/rate-limit.js';

describe('the inbox gate (every platform)', () => {
  const gate = (o: { channels?: string[]; workspaces?: string[]; perUser?: number; now?: () => number } = {}) => ({
    userLimit: new RateLimiter(o.perUser ?? 2, o.now ?? (() => 1_000_000)),
    channelLimit: new RateLimiter(100, o.now ?? (() => 1_000_000)),
    allowedChannels: o.channels ?? [],
    allowedWorkspaces: o.workspaces ?? [],
  });

  it('limits questions per user with a friendly wait time', () => {
    let t = 1_000_000;
    const g = gate({ now: () => t });
    const ask = (userId: string, workspace?: string) => admit(g, { workspace, channel: 'C1', userId });
    expect(ask('U1')).toEqual({ go: true });
    expect(ask('U1')).toEqual({ go: true });
    // a bucket of 2 refilled at 2 a minute: one more question in 30 s
    expect(ask('U1')).toEqual({ go: false, tellUser: 'You are asking faster than I can answer well: please try again in 30 s.' });
    expect(ask('U2')).toEqual({ go: true });
    t += 30_000;
    expect(ask('U1')).toEqual({ go: true });
  });

  it('keeps the limits per workspace: the same user id in another workspace is another asker', () => {
    const g = gate({ perUser: 1 });
    expect(admit(g, { workspace: 'T1', channel: 'C1', userId: 'U1' })).toEqual({ go: true });
    expect(admit(g, { workspace: 'T1', channel: 'C1', userId: 'U1' }).go).toBe(false);
    expect(admit(g, { workspace: 'T2', channel: 'C1', userId: 'U1' })).toEqual({ go: true });
  });

  it('answers only in allowed channels when an allow-list is set', () => {
    const g = gate({ channels: ['C9'] });
    expect(admit(g, { channel: 'C9', userId: 'U1' })).toEqual({ go: true });
    expect(admit(g, { channel: 'C1', userId: 'U1' })).toMatchObject({
      go: false,
      tellUser: expect.stringMatching(/^I only answer in the channels my admins allowed/),
    });
  });

  it('answers only the allowed workspaces (Teams tenants) when that list is set, and a message without one is not let through', () => {
    const g = gate({ workspaces: ['tenant-a'] });
    expect(admit(g, { workspace: 'tenant-a', channel: 'C1', userId: 'U1' })).toEqual({ go: true });
    expect(admit(g, { workspace: 'tenant-b', channel: 'C1', userId: 'U1' })).toEqual({ go: false, tellUser: NOT_THIS_WORKSPACE });
    expect(workspaceAllowed(g, undefined)).toEqual({ go: false, tellUser: NOT_THIS_WORKSPACE });
    expect(workspaceAllowed(gate(), undefined)).toEqual({ go: true });
  });
});
