/**
 * Bytes and CPU per answer in each encoding: `node --import tsx bench/compression.ts`.
 *
 * The answer is the bench's query (b) (bench/scenarios.ts: 100 resources with applications and
 * 24 h availability) as the gateway serves it on the embedded simulator, and the GraphiQL page.
 * CPU is process.cpuUsage() (user + system: zlib runs on the thread pool, counted in the
 * process) around ROUNDS compressions of the same body, median of 5 rounds; the served encoders
 * (src/server/edge/content-encoding.ts) and, for comparison, Brotli at every quality.
 */
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { assembleGateway } from '../src/server/assemble.js';
import { BROTLI_QUALITY, encode, type Encoding } from '../src/server/edge/content-encoding.js';
import { startSimulator } from '../src/simulator/app.js';
import { scenarios } from './scenarios.js';

const brotli = promisify(zlib.brotliCompress);

async function cpuMsPer(rounds: number, work: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await work();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000 / rounds);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

const simulator = await startSimulator({ port: 0 });
const config = loadConfig({ INVENTORY_API_URL: simulator.url, INVENTORY_AUTH_MODE: 'none', LOG_LEVEL: 'silent' });
const assembled = await assembleGateway({ config, baseUrl: simulator.url, logger: createLogger('silent') });
const query = scenarios([]).find((s) => s.name === 'b')!.query;
const answer = await assembled.gateway.fetch('http://gw/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
const b = Buffer.from(await answer.arrayBuffer());
if (!b.toString('utf8').includes('"applications"') || b.toString('utf8').includes('"errors"')) throw new Error(`unexpected answer: ${b.toString('utf8').slice(0, 300)}`);
const page = await assembled.gateway.fetch('http://gw/graphql', { headers: { accept: 'text/html' } });
const html = Buffer.from(await page.arrayBuffer());

for (const [name, body, rounds] of [['query (b)', b, 50], ['GraphiQL page', html, 2]] as const) {
  console.log(`\n${name}: identity ${body.length} bytes`);
  console.log('| encoding | bytes | ratio | CPU ms per answer |');
  console.log('|---|---|---|---|');
  for (const encoding of ['br', 'gzip', 'deflate'] as Encoding[]) {
    const size = (await encode(encoding, body)).length;
    const ms = await cpuMsPer(rounds, () => encode(encoding, body));
    console.log(`| ${encoding}${encoding === 'br' ? ` (quality ${BROTLI_QUALITY}, served)` : ''} | ${size} | ${(size / body.length).toFixed(3)} | ${ms.toFixed(2)} |`);
  }
  if (process.argv.includes('--qualities')) {
    for (const quality of [1, 3, 4, 5, 6, 7, 9, 11]) {
      const work = () => brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
      const size = (await work()).length;
      const ms = await cpuMsPer(quality >= 10 ? 1 : rounds, work);
      console.log(`| br quality ${quality} | ${size} | ${(size / body.length).toFixed(3)} | ${ms.toFixed(2)} |`);
    }
  }
}
await assembled.close();
await simulator.close();
