/** The Grafana dashboard queries only metrics the gateway exports (names checked against the registry). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';

const dashboard = JSON.parse(readFileSync(new URL('../../observability/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

describe('observability/grafana-dashboard.json', () => {
  it('queries only metric names the registry has, and shows every gateway metric', async () => {
    const metrics = new GatewayMetrics();
    const registered = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    const exported = new Set<string>();
    for (const name of registered) {
      exported.add(name);
      for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
    }
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        for (const [name] of target.expr.matchAll(/\b(?:graphql|upstream|gateway)_[a-z_]+\b/g)) used.add(name);
      }
    }
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    const shown = new Set([...used].map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect([...registered].filter((name) => !shown.has(name))).toEqual([]);
  });
});
