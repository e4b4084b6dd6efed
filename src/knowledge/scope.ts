// Whose verified pairs and backtest runs a question sees: its workspace (a
// Slack team, a Teams tenant), or, where there is none, a scope of its
// platform. The playground's pairs (a loopback 👍) and runs are the
// playground's own ("web:playground"): they never answer a Slack workspace or
// a Teams tenant on the same database. Only the terminal (an operator: the
// `datadesk` command) has no scope; its `datadesk verified add` and the
// shipped fixtures are the pairs every workspace shares.
import type { Platform } from '../core/platform.js';

/** The scope of a question from this platform and workspace; undefined only for the terminal. */
export function scopeOf(platform: Platform | string, workspace?: string | null): string | undefined {
  if (workspace) return workspace;
  if (platform === 'cli') return undefined;
  return platform === 'web' ? 'web:playground' : `${platform}:no-workspace`;
}
