// How many CSV exports run at once: at most `total` in all and `perUser` for
// one person (a browser address, a Teams link's holder, a Slack user), so
// three export requests can no longer hold every reader connection for two
// minutes while questions wait. A request over the limit is told to come back
// in a few seconds, never "the database is unavailable".
export interface ExportGateLimits {
  total: number;
  perUser: number;
}

export type GateTicket = { release: () => void } | { busy: string; retryAfterS: number };

export class ExportGate {
  private running = 0;
  private readonly byUser = new Map<string, number>();

  constructor(private readonly limits: ExportGateLimits = { total: 2, perUser: 1 }) {}

  enter(who: string): GateTicket {
    const mine = this.byUser.get(who) ?? 0;
    if (mine >= this.limits.perUser) return { busy: 'your last export is still being written; one at a time', retryAfterS: 10 };
    if (this.running >= this.limits.total) return { busy: `${this.running} exports are being written`, retryAfterS: 10 };
    this.running++;
    this.byUser.set(who, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const left = (this.byUser.get(who) ?? 1) - 1;
        if (left > 0) this.byUser.set(who, left);
        else this.byUser.delete(who);
      },
    };
  }
}
