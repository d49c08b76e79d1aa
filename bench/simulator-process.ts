/** The simulator in a child process, so it shares no event loop with what is measured. */
import { spawn } from 'node:child_process';

export async function startSimulatorProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], { env: { ...process.env, SIMULATOR_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
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
