// An error meant for the person at the keyboard or in the thread: its message
// is shown as is, without a stack trace.
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
