/**
 * `npm start` (tsx) and `npm run start:prod` (the build in dist/): settings from the environment;
 * the embedded simulator when INVENTORY_API_URL is `simulator`, or unset outside production.
 * Settings are read before anything starts: an invalid one exits 1 with one line.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { ConfigError, loadConfig, type GatewayConfig } from '../config.js';
import { createLogger } from '../logger.js';
import type { Simulator } from '../simulator/app.js';
import { rateLimitFromEnv, type RateLimitPatch } from '../simulator/settings.js';
import type { Tracing } from '../observability/tracing.js';

/** What node was started with: its command line's options, then NODE_OPTIONS (a later one wins). */
function nodeOptions(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}

/** Whether node was started with this V8 option (on its command line or in NODE_OPTIONS). */
function startedWith(option: string): boolean {
  return nodeOptions().some((arg) => arg === option || arg.startsWith(`${option}=`));
}

/** The value node was given for a numeric V8 option (`--option=N`), else undefined. */
function optionValue(option: string): number | undefined {
  const given = nodeOptions().findLast((arg) => arg.startsWith(`${option}=`));
  return given === undefined ? undefined : Number(given.slice(option.length + 1)) || undefined;
}

/** After SIGTERM, an idle keep-alive connection may still carry one request (answered with Connection: close) for this long. */
const IDLE_LINGER_MS = 1_000;

let config: GatewayConfig;
let tracing: Tracing | null;
let simulatorRateLimit: RateLimitPatch | undefined;
try {
  config = loadConfig();
  // The embedded simulator's throttle: SIMULATOR_RATE_LIMIT(S), SIMULATOR_RATE_WINDOW_S, SIMULATOR_MINIMAL_CATEGORY.
  if (config.inventoryApiUrl === null) {
    try {
      simulatorRateLimit = rateLimitFromEnv(process.env);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  // The gateway's modules (Yoga, Pothos, OpenTelemetry) load only once the settings are valid:
  // a bad setting exits in a fraction of the time.
  const { createTracing } = await import('../observability/tracing.js');
  tracing = createTracing(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Invalid setting: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

// graphql-jit makes each compiled operation's code with `new Function` (compiled-execution.ts),
// and V8's compilation cache keeps the source and bytecode of every such function after the code
// itself is gone, for as long as its own aging allows: measured, 3,000 distinct documents left
// about 200 MB that no forced collection gave back. The gateway keeps compiled code in its
// document cache (DOCUMENT_CACHE_MAX_BYTES) and never compiles the same source twice on purpose,
// so it runs without V8's cache; Node's module loading compiles each module once and does not
// need it either.
v8.setFlagsFromString('--no-compilation-cache');
const logger = createLogger(config.logLevel);
logger.addSecret(config.clientSecret);
// A request's answers are garbage within milliseconds, but at V8's default young generation a
// page of records still in flight when a scavenge comes is copied, then promoted: after a burst of
// wide queries scavenges took 6-8 ms each and refilled the old space every few seconds, and a
// list query cost 1.4x its CPU. The start commands size it (npm start, npm run start:prod).
if (!startedWith('--max-semi-space-size')) {
  logger.warn('node was started without --max-semi-space-size: start the gateway with `node --max-semi-space-size=64 dist/server/main.js` (npm run start:prod) or NODE_OPTIONS=--max-semi-space-size=64; at V8\'s default young generation the gateway spends much more CPU on garbage collection under load');
}
if (config.identityOff) {
  logger.warn('AUTH=off: the gateway does not check who is asking; every caller that reaches it may read and change every tenant its upstream credential covers. Only run it so behind something that authenticates callers.');
}
// What the settings let the heap keep (README, "Memory"): the gateway itself (modules, schema:
// about 80 MiB), the document and response caches at their bounds, and what is bounded by count
// (cache generations, credential proofs, rate-limit readings: about 30 MiB). V8's old generation
// needs room above that for garbage; unless started with --max-old-space-size, Node sizes it at
// half the memory it sees, a container's limit included (Node 20 in a memory cgroup: 256 MiB in
// 512 MiB, 512 MiB in 1 GiB; 4 GiB at most), which may be less.
const MiB = 1024 * 1024;
const keptBySettings = 110 * MiB + config.documentCacheMaxBytes + (config.cache?.maxBytes ?? 0);
const oldGenerationLimit = v8.getHeapStatistics().heap_size_limit - 3 * (optionValue('--max-semi-space-size') ?? 16) * MiB;
if (oldGenerationLimit < 1.5 * keptBySettings) {
  const suggested = Math.ceil((1.75 * keptBySettings) / (64 * MiB)) * 64;
  logger.warn(`V8's old generation may hold ${Math.round(oldGenerationLimit / MiB)} MiB, less than 1.5 times the ${Math.round(keptBySettings / MiB)} MiB the settings let the gateway keep (DOCUMENT_CACHE_MAX_BYTES, CACHE_MAX_BYTES): start node with --max-old-space-size=${suggested} (and a memory limit to match, README "Memory"), or lower those settings`);
}
// A promise nobody awaited failed (a bug in fire-and-forget work): logged in the gateway's log
// with what was open, and the process keeps serving, rather than every viewer and request
// ending with it (Node's default for an unhandled rejection).
process.on('unhandledRejection', (reason) => {
  logger.error('unhandled promise rejection', { error: reason });
});
const [{ startSimulator }, { assembleGateway }, { createHttpServer, wholeBodies }] = await Promise.all([
  import('../simulator/app.js'), import('./assemble.js'), import('./edge/http-server.js'),
]);
let simulator: Simulator | null = null;
let baseUrl = config.inventoryApiUrl;
if (baseUrl === null) {
  simulator = await startSimulator({ port: 0, rateLimit: simulatorRateLimit });
  baseUrl = simulator.url;
}
const lifecycle = { draining: false };
// REDIS_URL: the replicas share cached answers, invalidations and the client-credentials token;
// replicas starting together meet there (waited for up to 2 s).
const { gateway, metrics, shared, close, serveWebSocket, endLiveOperations } = await assembleGateway({ config, baseUrl, logger, tracing, processMetrics: true, lifecycle, redisWaitMs: 2_000 });
/** Responses not yet finished: the in-flight requests a drain waits for. */
const inFlight = new Set<http.ServerResponse>();
// Timeouts for slow clients and the per-address connection bound: http-server.ts.
const handle = wholeBodies(config.limits.maxBodyBytes, (req, res) => void gateway(req, res));
const server = createHttpServer(config, (req, res) => {
  inFlight.add(res);
  res.once('close', () => inFlight.delete(res));
  // Draining: the client learns that this connection ends with this response.
  if (lifecycle.draining) res.setHeader('connection', 'close');
  handle(req, res);
});

// GraphQL over WebSocket (graphql-transport-ws) on the same /graphql.
serveWebSocket(server);

server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(error.code === 'EADDRINUSE' ? `Invalid setting: PORT ${config.port} is already in use` : `Server error: ${error.message}`);
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  const upstream = simulator ? `embedded simulator at ${simulator.url}` : baseUrl;
  const cache = !config.cache ? 'off' : shared ? 'in-process + Redis' : 'in-process';
  console.log(`Inventory GraphQL gateway ready at http://localhost:${port}/graphql (upstream: ${upstream}, auth: ${config.authMode}, sign-in: ${config.identity ? config.identity.issuers.join(' ') : config.identityOff ? 'off (AUTH=off)' : 'none'}, cache: ${cache}, metrics: ${metrics ? '/metrics' : 'off'}, tracing: ${tracing ? tracing.url : 'off'})`);
});

let stopping = false;
/**
 * SIGTERM/SIGINT: /readyz answers 503 at once, the listener closes (new connections are refused),
 * every response from now on carries Connection: close, and in-flight requests get
 * SHUTDOWN_GRACE_MS (at least the operation deadline) to finish. Exit 0 when they all finished,
 * 1 when the grace period cut some.
 */
async function shutdown(signal: string): Promise<void> {
  // A repeated signal is expected (npm forwards the one a process group already got): ignore it.
  if (stopping) return logger.info('already draining', { signal });
  stopping = true;
  lifecycle.draining = true;
  const started = Date.now();
  const pending = inFlight.size;
  for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
  // Live queries never finish on their own: they end now (clients reconnect to another replica).
  await endLiveOperations();
  logger.info('shutting down: draining in-flight requests', { signal, inFlight: pending, graceMs: config.shutdownGraceMs });
  // net.Server's close, not http.Server's: the latter also destroys idle keep-alive connections at
  // once, racing with a request a client may be writing on one. They linger briefly instead (a
  // request on one is answered, with Connection: close) and are swept after that.
  const drained = new Promise<'drained'>((resolve) => net.Server.prototype.close.call(server, () => resolve('drained')));
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_LINGER_MS);
  let graceTimer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'cut'>((resolve) => (graceTimer = setTimeout(() => resolve('cut'), config.shutdownGraceMs)));
  const outcome = await Promise.race([drained, graceOver]);
  clearTimeout(graceTimer);
  clearInterval(sweep);
  const cut = outcome === 'cut' ? inFlight.size : 0;
  if (outcome === 'cut') {
    logger.error('shutdown grace period over: cutting in-flight requests', { cut, graceMs: config.shutdownGraceMs });
    server.closeAllConnections();
  } else {
    logger.info('drained', { requests: pending, ms: Date.now() - started });
  }
  // Closing the pools waits for their requests: bounded, since the exit code is already known.
  const cleanup = Promise.allSettled([close({ cut: cut > 0 }), simulator?.close()]);
  await Promise.race([cleanup, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  process.exit(cut > 0 ? 1 : 0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
