// How often export links may be fetched: at most `perLink` downloads of one
// link and `perPerson` for one person (a client address) in any `windowMs`
// (an hour). A link in a Teams card is a bearer token anyone holding it may
// use, and each download runs the whole query again: without a count, one
// holder could pull the same million rows all day. Kept in this process's
// memory, like the other per-address limits (core/rate-limit.ts): it bounds
// the work each process takes on. A download that is not served (no such
// answer, the export gate busy, refused) is not counted.
interface DownloadLimitSettings {
  perLink: number;
  perPerson: number;
  windowMs: number;
}

const DOWNLOAD_LIMITS: DownloadLimitSettings = { perLink: 5, perPerson: 20, windowMs: 60 * 60_000 };

type DownloadTicket = { refund: () => void } | { refused: string; retryAfterS: number };

/** Past this many keys, windows that have emptied are dropped (a sweep per take, not a timer). */
const SWEEP_AT = 10_000;

const inWords = (s: number) => (s < 120 ? `${s} s` : `${Math.ceil(s / 60)} minutes`);

export class DownloadLimits {
  private readonly byLink = new Map<string, number[]>();
  private readonly byPerson = new Map<string, number[]>();

  constructor(
    private readonly limits: DownloadLimitSettings = DOWNLOAD_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(map: Map<string, number[]>, key: string, t: number): number[] {
    const hits = (map.get(key) ?? []).filter((h) => h > t - this.limits.windowMs);
    if (hits.length) map.set(key, hits);
    else map.delete(key);
    return hits;
  }

  private sweep(map: Map<string, number[]>, t: number): void {
    if (map.size < SWEEP_AT) return;
    for (const key of [...map.keys()]) this.recent(map, key, t);
  }

  /** Counts a download of `link` by `who`, or says why not and when to try again. */
  take(link: string, who: string): DownloadTicket {
    const t = this.now();
    this.sweep(this.byLink, t);
    this.sweep(this.byPerson, t);
    const hour = this.limits.windowMs === 60 * 60_000 ? 'an hour' : `in ${inWords(Math.round(this.limits.windowMs / 1000))}`;
    const wait = (hits: number[]) => Math.max(1, Math.ceil((hits[0] + this.limits.windowMs - t) / 1000));
    const ofLink = this.recent(this.byLink, link, t);
    if (ofLink.length >= this.limits.perLink) {
      const s = wait(ofLink);
      return {
        refused: `This link was downloaded ${ofLink.length} times already, its limit (${this.limits.perLink} ${hour}). Try again in ${inWords(s)}, or ask the question again for a new link.`,
        retryAfterS: s,
      };
    }
    const ofPerson = this.recent(this.byPerson, who, t);
    if (ofPerson.length >= this.limits.perPerson) {
      const s = wait(ofPerson);
      return {
        refused: `Too many downloads: at most ${this.limits.perPerson} ${hour} from one address. Try again in ${inWords(s)}.`,
        retryAfterS: s,
      };
    }
    this.byLink.set(link, [...ofLink, t]);
    this.byPerson.set(who, [...ofPerson, t]);
    let refunded = false;
    return {
      refund: () => {
        if (refunded) return;
        refunded = true;
        for (const [map, key] of [
          [this.byLink, link],
          [this.byPerson, who],
        ] as const) {
          const hits = map.get(key) ?? [];
          const at = hits.lastIndexOf(t);
          if (at >= 0) hits.splice(at, 1);
          if (!hits.length) map.delete(key);
        }
      },
    };
  }
}
