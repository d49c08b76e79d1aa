/**
 * Child processes for tests (gateway replicas, the simulator, Redis, nginx, Prometheus): what
 * they print is kept for failure messages, their exit is a promise, and stopping is SIGTERM, then
 * SIGKILL when the process has not exited in time. One place, so every helper stops the same way.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface WatchedProcess {
  child: ChildProcess;
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** True until the process has exited. */
  readonly running: boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns with stdout and stderr piped (stdin ignored) and watches the process. */
export function spawnWatched(command: string, args: string[], options: SpawnOptions = {}): WatchedProcess {
  return watchProcess(spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Watches a process spawned with stdout and stderr piped. */
export function watchProcess(child: ChildProcess): WatchedProcess {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    get running() { return running(); },
    async stop(graceMs = 5_000) {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls `probe` every `intervalMs` until it gives a value (not undefined) and returns it; a probe
 * that throws counts as not yet. Throws after `timeoutMs`, or at once when `gaveUp()` names a
 * reason (e.g. the process being waited for exited).
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, options: { timeoutMs: number; intervalMs?: number; gaveUp?: () => string | undefined }): Promise<T> {
  const end = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    const reason = options.gaveUp?.();
    if (reason !== undefined) throw new Error(`${what}: ${reason}`);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(options.intervalMs ?? 50);
  }
}
