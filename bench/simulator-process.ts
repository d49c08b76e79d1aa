/** The simulator in a child process, so it shares no event loop with what is measured. */
import { spawn } from 'node:child_process';

/**
 * `memory`: the simulator behind bench/memory-upstream.ts, every distinct answer rendered once and
 * then written from memory (an upstream much cheaper than a contender; no rate limits).
 */
export async function startSimulatorProcess(options: { rateLimit?: boolean; memory?: boolean } = {}): Promise<{ url: string; pid: number; stop: () => void }> {
  // Limits lifted unless asked for: the bench measures the gateway, not the upstream's throttle
  // (bench/rate-limits.ts asks for them, at the documented defaults).
  const env = { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_RATE_LIMIT: options.rateLimit ? 'on' : 'off' };
  const script = options.memory ? 'bench/memory-upstream.ts' : 'src/simulator/main.ts';
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}
