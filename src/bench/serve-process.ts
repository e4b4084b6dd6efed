// A `serve` process for the benches that load it over HTTP: started from the
// same build as the bench, resolved with its URL once it says it is running.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Serve {
  url: string;
  child: ChildProcess;
}

/** `serve` from the same build as this bench (dist/ or wherever it was compiled). */
const SERVE_MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export function startServe(env: Record<string, string>, cpuProfileDir?: string): Promise<Serve> {
  const args = [...(cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : []), SERVE_MAIN, 'serve'];
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  return new Promise((resolve, reject) => {
    const check = setInterval(() => {
      const m = /running \(health: (http:\/\/[\d.:]+)\/healthz/.exec(log);
      if (m) {
        clearInterval(check);
        resolve({ url: m[1], child });
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(check);
      reject(new Error(`serve exited with ${code}:\n${log}`));
    });
  });
}
