/** The OTEL_* settings the gateway reads itself, the METRICS setting and the request id check. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { requestIdFrom } from '../../src/observability/access-log.js';
import { samplerFrom, tracesEndpoint } from '../../src/observability/tracing.js';

describe('tracing settings', () => {
  it('is off without an endpoint, or with OTEL_SDK_DISABLED=true', () => {
    expect(tracesEndpoint({})).toBeNull();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('adds /v1/traces to the base endpoint; the traces endpoint is used as it is', () => {
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces' })).toBe('https://b/otlp/traces');
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/json/],
  ])('refuses %j with one line naming the setting', (env, message) => {
    expect(() => tracesEndpoint(env)).toThrow(ConfigError);
    expect(() => tracesEndpoint(env)).toThrow(message);
  });

  it('reads OTEL_TRACES_SAMPLER and its ratio, and refuses nonsense', () => {
    expect(samplerFrom({}).toString()).toMatch(/ParentBased\{root=AlwaysOnSampler/);
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).toString()).toMatch(/TraceIdRatioBased\{0.25\}/);
    expect(() => samplerFrom({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER must be/);
    expect(() => samplerFrom({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});

describe('METRICS', () => {
  it('is on by default, and a boolean', () => {
    expect(loadConfig({}).metrics).toBe(true);
    expect(loadConfig({ METRICS: 'false' }).metrics).toBe(false);
    expect(() => loadConfig({ METRICS: 'sometimes' })).toThrow(ConfigError);
  });
});

describe('request ids', () => {
  it('keeps safe ids and replaces the rest', () => {
    expect(requestIdFrom('abc-DEF_1.2:3')).toBe('abc-DEF_1.2:3');
    for (const bad of [null, '', 'a'.repeat(129), 'a b', 'a\nb', 'ä', '<x>']) expect(requestIdFrom(bad)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
