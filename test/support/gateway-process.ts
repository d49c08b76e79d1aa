/**
 * The gateway as a real process, as an operator runs it: `node --import tsx src/server/main.ts`,
 * or `npm start` (which execs the same). `ready` resolves with the GraphQL URL the process
 * prints; `exited` with its exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  ready: Promise<URL>;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

export function startGatewayProcess(env: Record<string, string>, how: 'node' | 'npm start' = 'node'): GatewayProcess {
  const [command, args] = how === 'npm start' ? ['npm', ['start']] : [process.execPath, ['--import', 'tsx', 'src/server/main.ts']];
  return watchGatewayProcess(spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** A gateway process started some other way (e.g. the build, under plain node), watched the same way. */
export function watchGatewayProcess(child: ChildProcess): GatewayProcess {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<URL>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /ready at (http:\/\/\S+\/graphql)/.exec(stdout);
      if (m) { clearInterval(timer); resolve(new URL(m[1]!)); }
    }, 20);
    void exited.then(() => { clearInterval(timer); reject(new Error(`exited: ${stderr}`)); });
  });
  ready.catch(() => undefined); // awaited only by tests that expect start-up to succeed
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}
