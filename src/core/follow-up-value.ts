// What a suggested follow-up button carries: its label and the plan it asks
// (the edit of the plan of the answer it sits under), as one string for a
// Slack button value or a card's data. A click then answers that plan, not
// whatever was asked last in the thread. A value with no plan (too long for a
// button, or from an older message) is asked as text, as if typed.
export interface FollowUpValue {
  text: string;
  plan?: Record<string, unknown>;
}

export function encodeFollowUp(f: { label: string; plan: Record<string, unknown> }, limit = Infinity): string {
  const value = JSON.stringify({ t: f.label, p: f.plan });
  return value.length <= limit ? value : f.label.slice(0, limit);
}

export function decodeFollowUp(value: string): FollowUpValue {
  if (value.startsWith('{')) {
    try {
      const v = JSON.parse(value) as { t?: unknown; p?: unknown };
      if (typeof v.t === 'string' && v.p && typeof v.p === 'object' && !Array.isArray(v.p))
        return { text: v.t, plan: v.p as Record<string, unknown> };
    } catch {
      // not ours: read as text
    }
  }
  return { text: value };
}
