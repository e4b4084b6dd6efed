// A progress bar on a terminal, nothing when output is piped or in CI.
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

export function progressBar(label: string, unit: 'bytes' | 'rows' | 'tickers'): Progress {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const format =
    unit === 'bytes'
      ? `${label} [{bar}] {percentage}% | {doneMb}/{totalMb} MB | ETA {eta}s`
      : `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | ETA {eta}s`;
  const bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update(done, total) {
      const payload = { doneMb: (done / 1e6).toFixed(0), totalMb: (total / 1e6).toFixed(0) };
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      } else bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
