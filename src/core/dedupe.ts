// Exactly one answer per delivered event: chat platforms retry an event they
// think was not received. The first delivery claims the id; a retry while it is
// being processed, or after it was answered, is dropped; a delivery whose
// processing failed releases the claim so that the platform's retry is served.
import type Keyv from 'keyv';

type Mark = 'processing' | 'done';

export class EventDeduper {
  constructor(
    private readonly store: Keyv<Mark>,
    private readonly processingTtlMs = 10 * 60_000,
    private readonly doneTtlMs = 24 * 3_600_000,
  ) {}

  /** True if this delivery should be processed (nobody else has or is). */
  async claim(eventId: string): Promise<boolean> {
    if (await this.store.get(eventId)) return false;
    await this.store.set(eventId, 'processing', this.processingTtlMs);
    return true;
  }

  async done(eventId: string): Promise<void> {
    await this.store.set(eventId, 'done', this.doneTtlMs);
  }

  async release(eventId: string): Promise<void> {
    await this.store.delete(eventId);
  }
}
