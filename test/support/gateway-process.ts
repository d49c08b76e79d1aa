/**
 * The gateway as a real process, as an operator runs it: `node --max-semi-space-size=64 --import tsx src/server/main.ts`,
 * or `npm start` (which execs the same). `ready` resolves with the GraphQL URL the process
 * prints; `exited` with its exit code.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnWatched, watchProcess, type WatchedProcess } from './child-process.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayProcess extends WatchedProcess {
  ready: Promise<URL>;
}

export function startGatewayProcess(env: Record<string, string>, how: 'node' | 'npm start' = 'node'): GatewayProcess {
  const [command, args] = how === 'npm start' ? ['npm', ['start']] : [process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'src/server/main.ts']];
  return withReady(spawnWatched(command, args, { cwd: root, env: { ...process.env, ...env } }));
}

/** A gateway process started some other way (e.g. the build, under plain node), watched the same way. */
export function watchGatewayProcess(child: ChildProcess): GatewayProcess {
  return withReady(watchProcess(child));
}

function withReady(watched: WatchedProcess): GatewayProcess {
  const ready = new Promise<URL>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /ready at (http:\/\/\S+\/graphql)/.exec(watched.output().stdout);
      if (m) { clearInterval(timer); resolve(new URL(m[1]!)); }
    }, 20);
    void watched.exited.then(() => { clearInterval(timer); reject(new Error(`exited: ${watched.output().stderr}`)); });
  });
  ready.catch(() => undefined); // awaited only by tests that expect start-up to succeed
  // Spread would read the `running` getter once: keep it live.
  return Object.assign(watched, { ready });
}
