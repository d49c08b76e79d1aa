/**
 * deploy/nginx/gateway.conf keeps what the replicas rely on (test/e2e/replicas.test.ts runs it in a
 * real nginx; this checks the text without one), and the test renderer swaps in only addresses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { GATEWAY_CONF, renderGatewayConf } from '../support/nginx.js';

const conf = readFileSync(GATEWAY_CONF, 'utf8');
/** The directives, comments left out. */
const directives = conf.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean).join('\n');
const sizeInBytes = (value: string) => Number(/^(\d+)/.exec(value)![1]) * ({ k: 1024, m: 1024 ** 2 }[value.slice(-1).toLowerCase()] ?? 1);

describe('deploy/nginx/gateway.conf', () => {
  it('keeps connections to the replicas alive, and closes idle ones before a replica does (Node: 5 s)', () => {
    expect(directives).toMatch(/^keepalive \d+;$/m);
    expect(directives).toMatch(/^proxy_http_version 1\.1;$/m);
    expect(directives).toMatch(/^proxy_set_header Connection "";$/m);
    const timeout = /^keepalive_timeout (\d+)s;$/m.exec(directives);
    expect(Number(timeout?.[1])).toBeLessThan(5);
  });

  it('passes a request on only when it was not sent (no non_idempotent), and passes the caller\'s headers', () => {
    expect(directives).toMatch(/^proxy_next_upstream error timeout http_502 http_503;$/m);
    expect(directives).not.toMatch(/non_idempotent/);
    expect(directives).toMatch(/^proxy_set_header Authorization \$http_authorization;$/m);
    expect(directives).toMatch(/^proxy_set_header X-Request-Id \$inventory_request_id;$/m);
  });

  it('streams answers and lets bodies up to the gateway\'s own limit through', () => {
    expect(directives).toMatch(/^proxy_buffering off;$/m);
    const limit = /^client_max_body_size (\d+[km]?);$/m.exec(directives)![1]!;
    expect(sizeInBytes(limit)).toBeGreaterThanOrEqual(loadConfig({}).limits.maxBodyBytes);
  });

  it('renders with the test\'s addresses only', () => {
    const rendered = renderGatewayConf(conf, { port: 4321, replicas: ['http://127.0.0.1:1001/graphql', '127.0.0.1:1002'], logDir: '/tmp/x' });
    const changed = rendered.split('\n').filter((line) => !conf.split('\n').includes(line));
    expect(changed).toEqual([
      '    server 127.0.0.1:1001 max_fails=1 fail_timeout=2s;',
      '    server 127.0.0.1:1002 max_fails=1 fail_timeout=2s;',
      '    listen 127.0.0.1:4321;',
      '    access_log /tmp/x/inventory-gateway.access.log inventory_gateway;',
    ]);
    expect(() => renderGatewayConf(conf.replace(/^\s*listen .*$/m, ''), { port: 1, replicas: ['a:1'], logDir: '/tmp' })).toThrow('expected one listen directive, found 0');
  });
});
