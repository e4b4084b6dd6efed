// Hours of the day: "after 10pm" (22..24), "before 6am", "between 9am and
// 5pm", "from 10pm to 2am" (wraps), "at 3pm" (15..16). Times with minutes
// other than :00 cannot be held by the plan and are refused.
import type { RuleInput, RuleMatch, Rule } from './rule.js';

interface Clock {
  h: number;
  len: number;
  midnight?: boolean;
  invalid?: boolean;
}

function clockAt(t: readonly string[], j: number): Clock | undefined {
  const w = t[j];
  if (w === undefined) return undefined;
  if (w === 'noon' || w === 'midday') return { h: 12, len: 1 };
  if (w === 'midnight') return { h: 0, len: 1, midnight: true };
  let m = /^(\d{1,2})(?::(\d{2}))?(am|pm)$/.exec(w);
  let len = 1;
  if (!m && /^\d{1,2}(?::\d{2})?$/.test(w) && (t[j + 1] === 'am' || t[j + 1] === 'pm')) {
    m = /^(\d{1,2})(?::(\d{2}))?(am|pm)$/.exec(w + t[j + 1]);
    len = 2;
  }
  if (m) {
    let h = Number(m[1]);
    if (h < 1 || h > 12) return { h: 0, len, invalid: true };
    if (m[3] === 'am' && h === 12) h = 0;
    if (m[3] === 'pm' && h < 12) h += 12;
    return { h, len, invalid: m[2] !== undefined && m[2] !== '00', midnight: h === 0 || undefined };
  }
  const h24 = /^(\d{1,2}):(\d{2})$/.exec(w);
  if (h24 && Number(h24[1]) < 24)
    return { h: Number(h24[1]), len: 1, invalid: h24[2] !== '00', midnight: Number(h24[1]) === 0 || undefined };
  return undefined;
}

function hours(x: RuleInput, i: number, len: number, from: number, to: number, bad = false): RuleMatch {
  if (bad || from === to || from < 0 || from > 23 || to < 1 || to > 24) return { len, meanings: [{ kind: 'invalid' }] };
  return { len, meanings: [{ kind: 'hours', from, to, label: x.said(i, len) }] };
}

const hourRule: Rule = (x, i) => {
  const { t } = x;
  const w = t[i];
  if (w === 'after' || w === 'before' || w === 'at' || w === 'around') {
    const c = clockAt(t, i + 1);
    if (!c) return undefined;
    const len = 1 + c.len;
    if (w === 'after') return hours(x, i, len, c.h, 24, c.invalid || c.midnight);
    if (w === 'before') return hours(x, i, len, 0, c.h, c.invalid || c.midnight);
    return hours(x, i, len, c.h, c.h + 1, c.invalid);
  }
  const lead = w === 'between' || w === 'from' ? 1 : 0;
  const a = clockAt(t, i + lead);
  if (!a) return undefined;
  const k = i + lead + a.len;
  const joint = t[k];
  if (!(lead === 1 && w === 'between' ? joint === 'and' : joint === 'to' || joint === 'until' || joint === 'till')) return undefined;
  const b = clockAt(t, k + 1);
  if (!b) return undefined;
  const len = k + 1 + b.len - i;
  return hours(x, i, len, a.h, b.h === 0 ? 24 : b.h, a.invalid || b.invalid);
};

export const hourRules: Rule[] = [hourRule];
