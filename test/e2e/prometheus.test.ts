/**
 * A real Prometheus (Debian package `prometheus`, installed by .ci/run) scrapes the gateway; a
 * PromQL query over its HTTP API returns the upstream calls per route that the simulator counted.
 * Loopback only, a temporary config and storage directory, random ports; stopped afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWatched, waitFor, type WatchedProcess } from '../support/child-process.js';
import { assertNoSecrets, secretsOf, startHarness, type Harness } from '../support/harness.js';
import { freePort } from '../support/redis-server.js';

/** Prometheus answers in its own time (a scrape every 500 ms): polled every 250 ms, for up to 20 s. */
const until = <T>(what: string, probe: () => Promise<T | undefined>) => waitFor(what, probe, { timeoutMs: 20_000, intervalMs: 250 });

const installed = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;
if (!installed) console.log('prometheus.test.ts skipped: the Debian package `prometheus` is not installed (apt-get install -y --no-install-recommends prometheus)');


describe.skipIf(!installed)('Prometheus scraping the gateway', () => {
  let h: Harness;
  let prometheus: WatchedProcess | undefined;
  let dir: string;
  let api: string;

  beforeAll(async () => {
    const auth = { enabled: true, clientId: 'gw-client', clientSecret: 'gw-secret-value-123', tokenTtlSeconds: 3600, expiresInAsString: false };
    h = await startHarness({ simulator: { auth }, env: { INVENTORY_AUTH_MODE: 'client-credentials', INVENTORY_CLIENT_ID: 'gw-client', INVENTORY_CLIENT_SECRET: 'gw-secret-value-123' } });
    const target = new URL(h.url).host;
    dir = mkdtempSync(path.join(tmpdir(), 'gw-prometheus-'));
    const config = path.join(dir, 'prometheus.yml');
    writeFileSync(config, [
      'global:',
      '  scrape_interval: 500ms',
      '  scrape_timeout: 400ms',
      'scrape_configs:',
      '  - job_name: gateway',
      '    metrics_path: /metrics',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'));
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawnWatched('prometheus', [
      `--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    ]);
    await until('Prometheus to be ready', async () => ((await fetch(`${api}/-/ready`)).ok ? true : undefined));
  });

  afterAll(async () => {
    await prometheus?.stop(5_000);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });

  async function promql(query: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(query)}`);
    const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    expect(body.status).toBe('success');
    return body.data.result;
  }

  it('returns upstream call counts per route equal to the simulator\'s', async () => {
    const queries = [
      'query Dashboard { tenant(id: "client_1") { resources(first: 5) { nodes { hostName applications { name } } } resourceTypes { name } } }',
      'query Detail { tenant(id: "client_1") { resources(first: 2) { nodes { ... on GeneralResource { osName serialNumber } } } } }',
      'query Missing { tenant(id: "no_such_tenant") { resourceTypes { name } } }',
      'query Antivirus { tenant(id: "client_2") { resources(first: 3) { totalCount } } }',
    ];
    for (const q of queries) await h.query(q);
    h.simulator.injectFaults({ route: 'resourceTypes', kind: '503' });
    expect((await h.query('query Retried { tenant(id: "client_2") { resourceTypes { name } } }')).errors).toBeUndefined();
    const simulated = Object.fromEntries(Object.entries(h.simulator.stats().calls).filter(([route]) => route !== 'token')) as Record<string, number>;
    expect(Object.keys(simulated).length).toBeGreaterThanOrEqual(3);

    let seen: Record<string, number> = {};
    const fromPrometheus = await until('a scrape after the queries', async () => {
      const rows = await promql('sum by (route) (upstream_requests_total{job="gateway"})');
      seen = Object.fromEntries(rows.map((r) => [r.metric.route, Number(r.value[1])]));
      const same = Object.keys(seen).length === Object.keys(simulated).length && Object.entries(simulated).every(([k, v]) => seen[k] === v);
      return same ? seen : undefined;
    }).catch(async (error: Error) => {
      const targets = await (await fetch(`${api}/api/v1/targets`)).text();
      throw new Error(`${error.message}; Prometheus has ${JSON.stringify(seen)}, the simulator ${JSON.stringify(simulated)}; targets: ${targets.slice(0, 600)}`);
    });
    console.log(`PromQL sum by (route) (upstream_requests_total): ${JSON.stringify(fromPrometheus)}; simulator: ${JSON.stringify(simulated)}`);
    expect(fromPrometheus).toEqual(simulated);

    const retries = await promql('sum by (route, reason) (upstream_retries_total{job="gateway"})');
    expect(retries.map((r) => [r.metric.route, r.metric.reason, Number(r.value[1])])).toEqual([['resourceTypes', '503', 1]]);
    const ops = await promql('sum by (operation_name) (graphql_operations_total{job="gateway"})');
    expect(Object.fromEntries(ops.map((r) => [r.metric.operation_name, Number(r.value[1])]))).toEqual({ Dashboard: 1, Detail: 1, Missing: 1, Antivirus: 1, Retried: 1 });
    const tokens = await promql('upstream_token_requests_total{job="gateway"}');
    expect(Number(tokens[0]?.value[1])).toBe(1);

    // What Prometheus stored carries no secret: every series' labels, and the gateway's own text.
    const series = await (await fetch(`${api}/api/v1/series?match[]=${encodeURIComponent('{job="gateway"}')}`)).text();
    const scraped = await (await fetch(h.url.replace(/\/graphql$/, '/metrics'))).text();
    assertNoSecrets([series, scraped], [...secretsOf(h.simulator, h.config), 'gw-secret-value-123']);
    const { stdout, stderr } = prometheus!.output();
    expect(stdout + stderr).not.toMatch(/level=error/);
  });
});
