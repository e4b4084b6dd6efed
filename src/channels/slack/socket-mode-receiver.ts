// The Socket Mode receiver the app uses: it acknowledges an envelope only once
// its listeners are done, that is once the question is in the durable queue.
import type { App, Logger as BoltLogger, Receiver } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import type { WebClientOptions } from '@slack/web-api';

/**
 * Socket Mode that acknowledges as our HTTP receiver does (processBeforeResponse): an envelope's ack,
 * with the listener's response (a command's ephemeral reply, say), goes back once the listeners are done,
 * that is once the question is in the durable queue. Bolt's own SocketModeReceiver acknowledges an event
 * before its listener runs, so a process killed in between lost the question: Slack does not redeliver
 * an acknowledged envelope. One that throws is not acknowledged, and Slack redelivers it (the queue's
 * unique key makes that one answer).
 */
export class QueueFirstSocketModeReceiver implements Receiver {
  readonly client: SocketModeClient;
  private app?: App;

  constructor(o: { appToken: string; logger: BoltLogger; clientOptions?: WebClientOptions }) {
    // a copy: the Socket Mode client sets its own retry policy on the options it is given
    this.client = new SocketModeClient({ appToken: o.appToken, logger: o.logger, clientOptions: { ...o.clientOptions } });
    this.client.on('slack_event', async ({ ack, body, retry_num: retryNum, retry_reason: retryReason }) => {
      let response: unknown;
      let acked = false;
      try {
        await this.app!.processEvent({
          body,
          retryNum,
          retryReason,
          ack: async (r?: unknown) => {
            if (acked) return;
            acked = true;
            response = r;
          },
        });
      } catch (error) {
        o.logger.error(`an envelope (${body?.type}) failed before it was queued, left for Slack to redeliver: ${(error as Error).message}`);
        return;
      }
      await ack(response).catch((error: Error) => o.logger.warn(`could not acknowledge an envelope: ${error.message}`));
    });
  }

  init(app: App): void {
    this.app = app;
  }

  start(): Promise<unknown> {
    return this.client.start();
  }

  stop(): Promise<unknown> {
    return this.client.disconnect();
  }
}
