/**
 * The production start the README gives: the build (tsconfig.build.json), the dependencies
 * without the dev ones (`npm ci --omit=dev`), `node dist/server/main.js` with NODE_ENV=production:
 * no TypeScript loader, no dev dependency. And the unsafe production settings it refuses, one line
 * and exit 1 before anything listens (not even the embedded simulator).
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { root, watchGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const run = promisify(execFile);

/**
 * Loaded with --import before the gateway: records every listen() of the process (the gateway's
 * and the embedded simulator's; http.Server is a net.Server) in the file LISTEN_LOG names.
 * Plain JavaScript, since the build runs under plain node.
 */
const LISTEN_PROBE = `data:text/javascript,${encodeURIComponent(`
import fs from 'node:fs';
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  fs.appendFileSync(process.env.LISTEN_LOG, 'listen\\n');
  return listen.apply(this, args);
};`)}`;

let dir: string;
let probes = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-production-'));
  // The build's JavaScript without its type check (--noCheck emits the same files, byte for byte;
  // `npm run typecheck` checks the same sources): 5 s of CPU instead of 12.
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(dir, 'dist'), '--noCheck']);
  await copyFile(join(root, 'package.json'), join(dir, 'package.json'));
  await copyFile(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
  // The packages come from npm's cache, filled by the project's own `npm ci` (no network then).
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env: cleanEnv({}) });
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The process environment of an operator's shell: none of the test runner's settings (NODE_ENV=test) leak in. */
function cleanEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env };
}

/** The documented production start (npm run start:prod's command); `nodeOptions: []` leaves out its V8 option. */
function startBuilt(env: Record<string, string>, nodeOptions = ['--max-semi-space-size=64']): GatewayProcess & { listens(): Promise<number> } {
  const log = join(dir, `listens-${++probes}.log`);
  const child = spawn(process.execPath, [...nodeOptions, '--import', LISTEN_PROBE, 'dist/server/main.js'], {
    cwd: dir,
    env: cleanEnv({ LISTEN_LOG: log, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listens = () => readFile(log, 'utf8').then((text) => text.split('\n').filter(Boolean).length, () => 0);
  return { ...watchGatewayProcess(child), listens };
}

/** The packages the modules reachable from dist/server/main.js import, statically or through import('…') (main.ts loads the gateway's modules only once its settings are valid). */
async function packagesImportedFrom(entry: string): Promise<Set<string>> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(file, 'utf8');
    // tsc writes one import or re-export statement per line; import('…') may be anywhere.
    const statements = code.matchAll(/^(?:import|export)\b[^;'"]*\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm);
    const dynamic = code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g);
    for (const match of [...statements, ...dynamic]) {
      const specifier = match[1] ?? match[2];
      if (specifier!.startsWith('.')) pending.push(resolve(dirname(file), specifier!));
      else packages.add(specifier!.split('/').slice(0, specifier!.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return packages;
}

describe('production start (the build under plain node, no dev dependencies)', () => {
  it('imports only node built-ins and packages in "dependencies"', async () => {
    const { dependencies } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = [...(await packagesImportedFrom(join(dir, 'dist/server/main.js')))];
    expect(imported).toContain('graphql-yoga');
    const outside = imported.filter((name) => !name.startsWith('node:') && !builtinModules.includes(name) && !(name in dependencies));
    expect(outside).toEqual([]);
    // What npm ci --omit=dev left out: the loader `npm start` uses is not there to be picked up.
    await expect(stat(join(dir, 'node_modules/tsx'))).rejects.toThrow();
  });

  it('starts with NODE_ENV=production on the simulator asked for by name, answers GraphQL, serves GraphiQL, drains on SIGTERM', async () => {
    const p = startBuilt({ NODE_ENV: 'production', INVENTORY_API_URL: 'simulator', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', GRAPHIQL: 'true' });
    onTestFinished(() => void p.child.kill('SIGKILL'));
    const url = await p.ready;
    expect(p.output().stdout).toMatch(/upstream: embedded simulator at http:\/\/127\.0\.0\.1:\d+, auth: none/);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-upstream-stats': '1' },
      body: JSON.stringify({ query: '{ tenant(id: "client_1") { resources(first: 2) { totalCount nodes { id hostName } } resourceTypes { name } } }' }),
    });
    const body = (await response.json()) as {
      data: { tenant: { resources: { totalCount: number; nodes: { id: string; hostName: string }[] }; resourceTypes: { name: string }[] } };
      extensions?: { upstream?: unknown };
    };
    expect(body.data.tenant.resources.totalCount).toBe(500);
    expect(body.data.tenant.resources.nodes).toHaveLength(2);
    expect(body.data.tenant.resources.nodes[0]!.hostName).toMatch(/\w/);
    expect(body.data.tenant.resourceTypes.length).toBeGreaterThan(0);
    // x-upstream-stats is a development aid: off in production (UPSTREAM_STATS).
    expect(body.extensions?.upstream).toBeUndefined();
    // GraphiQL's page and scripts come from a runtime dependency, not from files next to src/.
    const html = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('FirstLook');
    // The probe sees listens: the gateway's and the simulator's.
    expect(await p.listens()).toBe(2);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('says, once at start, when node was started without the young generation the start command gives it', async () => {
    const warnings = async (nodeOptions?: string[]) => {
      const p = startBuilt({ NODE_ENV: 'production', INVENTORY_API_URL: 'simulator', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, nodeOptions);
      onTestFinished(() => void p.child.kill('SIGKILL'));
      await p.ready;
      p.child.kill('SIGTERM');
      await p.exited;
      return p.output().stdout.split('\n').filter((line) => line.includes('--max-semi-space-size'));
    };
    expect(await warnings()).toEqual([]);
    const without = await warnings([]);
    expect(without).toHaveLength(1);
    expect(JSON.parse(without[0]!)).toMatchObject({ level: 'warn' });
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).scripts['start:prod']).toBe('exec node --max-semi-space-size=64 dist/server/main.js');
  }, 60_000);

  it('says, once at start, when V8\'s heap limit leaves too little room for what the settings let the gateway keep', async () => {
    const warnings = async (nodeOptions: string[], env: Record<string, string> = {}) => {
      const p = startBuilt({ NODE_ENV: 'production', INVENTORY_API_URL: 'simulator', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, nodeOptions);
      onTestFinished(() => void p.child.kill('SIGKILL'));
      await p.ready;
      p.child.kill('SIGTERM');
      await p.exited;
      return p.output().stdout.split('\n').filter((line) => line.includes('--max-old-space-size'));
    };
    const small = await warnings(['--max-semi-space-size=64', '--max-old-space-size=200']);
    expect(small).toHaveLength(1);
    expect(JSON.parse(small[0]!)).toMatchObject({ level: 'warn', msg: expect.stringMatching(/200 MiB.*206 MiB.*--max-old-space-size=384/) });
    // Smaller caches fit the same heap.
    expect(await warnings(['--max-semi-space-size=64', '--max-old-space-size=200'], { CACHE_MAX_BYTES: String(8 * 1024 * 1024), DOCUMENT_CACHE_MAX_BYTES: String(8 * 1024 * 1024) })).toEqual([]);
  }, 60_000);

  it.each([
    ['INVENTORY_API_URL', { NODE_ENV: 'production' }],
    ['CACHE_SCOPE_SECRET', { NODE_ENV: 'production', INVENTORY_API_URL: 'http://127.0.0.1:9', REDIS_URL: 'redis://127.0.0.1:9' }],
  ])('refuses to start without %s in production: one line, exit 1, nothing listening', async (name, env) => {
    const p = startBuilt({ PORT: '0', HOST: '127.0.0.1', ...env });
    onTestFinished(() => void p.child.kill('SIGKILL'));
    // A process that starts after all is a failure now, not at the test's timeout.
    expect(await Promise.race([p.exited, p.ready.then(() => 'listening', () => 'exited')])).toBe(1);
    const { stdout, stderr } = p.output();
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter((line) => line.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid setting: ${name} is required with NODE_ENV=production`));
    expect(await p.listens()).toBe(0);
  });
});
