// Slack's error code, read in one place.
import { describeError } from '../../core/errors.js';

/** Slack's error code (msg_too_long, invalid_blocks, …) when the Web API said one; undefined for any other failure. */
export function slackErrorCode(error: unknown): string | undefined {
  return (error as { data?: { error?: string } }).data?.error;
}
/** What a log line says of a failed call: Slack's code, else the error itself. */
export const failure = (error: unknown) => slackErrorCode(error) ?? describeError(error);
