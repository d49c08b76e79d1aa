/**
 * A real nginx (Debian package `nginx`, installed by .ci/run) balancing gateway replicas with the
 * committed deploy/nginx/gateway.conf: rendered with a loopback port, the replicas' addresses and
 * a temporary directory for the logs, and run in the foreground (`daemon off`) with its pid, error
 * log and temp paths in that directory, so that it runs as root without touching /var or /run.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnWatched, waitFor } from './child-process.js';
import { root } from './gateway-process.js';
import { freePort } from './redis-server.js';

const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
export const hasNginx = spawnSync(NGINX, ['-v'], { stdio: 'ignore' }).status === 0;

export const GATEWAY_CONF = path.join(root, 'deploy/nginx/gateway.conf');

export interface NginxOptions {
  /** Replica base URLs (http://127.0.0.1:PORT[/graphql]) or host:port, in upstream order. */
  replicas: string[];
  /** Change the rendered gateway.conf (for tests showing what a directive is for). */
  edit?: (conf: string) => string;
}

export interface Nginx {
  /** http://127.0.0.1:PORT/graphql */
  url: string;
  port: number;
  /** The rendered gateway.conf that runs. */
  conf: string;
  /** Lines of the access log (log_format inventory_gateway). */
  accessLog(): string[];
  errorLog(): string;
  /** Fast shutdown (SIGTERM), then SIGKILL of what is left; removes the temporary directory. */
  stop(): Promise<void>;
}

/** host:port of a replica URL. */
const hostPort = (replica: string) => (/^https?:\/\//.test(replica) ? new URL(replica).host : replica);

/**
 * gateway.conf with the test's addresses: the one `listen` becomes 127.0.0.1:port, the `server`
 * lines of the upstream block become one per replica (with the options of the first example
 * line), logs in /var/log/nginx/ go to `logDir`. Anything else stays as committed.
 */
export function renderGatewayConf(template: string, options: { port: number; replicas: string[]; logDir: string }): string {
  const listens = template.match(/^\s*listen\s+[^;]+;/gm) ?? [];
  if (listens.length !== 1) throw new Error(`gateway.conf: expected one listen directive, found ${listens.length}`);
  const block = /^upstream\s+inventory_gateway\s*\{[\s\S]*?^\}/m.exec(template);
  if (!block) throw new Error('gateway.conf: no upstream inventory_gateway block');
  const servers = [...block[0].matchAll(/^(\s*)server\s+(\S+?)(\s+[^;]*)?;\n/gm)];
  if (servers.length === 0) throw new Error('gateway.conf: no server line in the upstream block');
  const [first] = servers;
  const lines = options.replicas.map((r) => `${first![1]}server ${hostPort(r)}${first![3] ?? ''};\n`).join('');
  const start = block.index + first!.index!;
  const last = servers[servers.length - 1]!;
  const end = block.index + last.index! + last[0].length;
  const upstream = template.slice(0, start) + lines + template.slice(end);
  return upstream
    .replace(/^(\s*)listen\s+[^;]+;/m, `$1listen 127.0.0.1:${options.port};`)
    .replace(/^(\s*(?:access_log|error_log)\s+)\/var\/log\/nginx\//gm, `$1${options.logDir}/`);
}

/** The process-level wrapper: what /etc/nginx/nginx.conf is in a Debian install. */
function mainConf(dir: string): string {
  return [
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`),
    '  access_log off;',
    `  include ${dir}/gateway.conf;`,
    '}',
    '',
  ].join('\n');
}

export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-nginx-'));
  // Run as root, nginx's workers are `nobody`: they must reach the temp paths below this directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const rendered = renderGatewayConf(readFileSync(GATEWAY_CONF, 'utf8'), { port, replicas: options.replicas, logDir: dir });
  const conf = options.edit ? options.edit(rendered) : rendered;
  writeFileSync(path.join(dir, 'gateway.conf'), conf);
  writeFileSync(path.join(dir, 'nginx.conf'), mainConf(dir));

  const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-g', 'daemon off; master_process on;'];
  const test = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx -t: ${test.stderr}`);

  const master = spawnWatched(NGINX, args);
  const output = () => `${master.output().stdout}${master.output().stderr}`;
  const read = (file: string) => (existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : '');

  try {
    await waitFor('nginx to listen', async () => ((await canConnect(port)) ? true : undefined), {
      timeoutMs: 30_000,
      gaveUp: () => (master.running ? undefined : 'exited'),
    });
  } catch {
    for (const pid of childrenOf(master.child.pid!)) killQuietly(pid);
    master.child.kill('SIGKILL');
    const log = `${output()}${read('error.log')}`;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx did not start: ${log}`);
  }

  return {
    url: `http://127.0.0.1:${port}/graphql`,
    port,
    conf,
    accessLog: () => read('inventory-gateway.access.log').split('\n').filter(Boolean),
    errorLog: () => output() + read('error.log'),
    async stop() {
      const workers = master.running ? childrenOf(master.child.pid!) : [];
      await master.stop(5_000);
      // A master killed after the grace period leaves its workers behind.
      if (master.child.signalCode === 'SIGKILL') for (const pid of workers) killQuietly(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * TCP connections in ESTABLISHED state whose local port is `port` (the server side of connections
 * to a replica listening there), from /proc/net/tcp: how many connections nginx holds to it.
 * `exceptPeerPorts` leaves out connections from given client ports (the test's own).
 */
export function establishedTo(port: number, exceptPeerPorts: number[] = []): number {
  let count = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4) continue;
    const local = Number.parseInt(fields[1]!.split(':')[1]!, 16);
    const remote = Number.parseInt(fields[2]!.split(':')[1]!, 16);
    if (local === port && fields[3] === '01' && !exceptPeerPorts.includes(remote)) count++;
  }
  return count;
}
