/** The simulator in a child process, so it shares no event loop with what is measured. */
import { spawn } from 'node:child_process';

export async function startSimulatorProcess(options: { rateLimit?: boolean } = {}): Promise<{ url: string; stop: () => void }> {
  // Limits lifted unless asked for: the bench measures the gateway, not the upstream's throttle
  // (bench/rate-limits.ts asks for them, at the documented defaults).
  const env = { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_RATE_LIMIT: options.rateLimit ? 'on' : 'off' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}
