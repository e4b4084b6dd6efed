// A small leveled logger, injected everywhere (never a global), writing to
// stderr so that command output on stdout stays machine-readable.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const at = (l: LogLevel) => (message: string) => {
    if (ORDER[l] >= ORDER[level]) write(l === 'info' ? message : `${l}: ${message}`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** For tests and library use: records lines instead of printing them. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { ...createLogger('debug', (line) => lines.push(line)), lines };
}
