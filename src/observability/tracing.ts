/**
 * OpenTelemetry tracing: on when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
 * is set (OTLP over HTTP, JSON encoding, batched by the SDK's BatchSpanProcessor, which reads the
 * OTEL_BSP_* settings), off otherwise. OTEL_SDK_DISABLED=true turns it off, OTEL_SERVICE_NAME
 * names the service, OTEL_EXPORTER_OTLP_HEADERS (read by the exporter) adds headers.
 *
 * The provider is not registered globally: spans are parented explicitly (the operation span
 * on the incoming traceparent, the upstream spans on the operation span), so no context manager
 * runs on the hot path and several gateways in one process (tests) keep their own exporters.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ConfigError } from '../config.js';

export { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span };

type Env = Record<string, string | undefined>;

/** The OTLP/HTTP traces URL the environment asks for, or null (tracing off). */
export function tracesEndpoint(env: Env): string | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const direct = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = direct || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : '');
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${direct ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`${direct ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http(s) URL`);
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  if (protocol !== '' && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (http/protobuf is accepted and sent as JSON), got '${protocol}'`);
  }
  return url;
}

/** OTEL_TRACES_SAMPLER (and _ARG) from the given environment; default parentbased_always_on. */
export function samplerFrom(env: Env): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? '').trim() || 'parentbased_always_on';
  const rawArg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = rawArg === undefined || rawArg === '' ? 1 : Number(rawArg);
  if (name.endsWith('traceidratio') && !(ratio >= 0 && ratio <= 1)) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got '${rawArg}'`);
  switch (name) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default: throw new ConfigError(`OTEL_TRACES_SAMPLER must be always_on, always_off, traceidratio or parentbased_(always_on|always_off|traceidratio), got '${name}'`);
  }
}

export class Tracing {
  readonly tracer: Tracer;
  readonly propagator = new W3CTraceContextPropagator();
  private readonly provider: NodeTracerProvider;

  constructor(readonly url: string, env: Env) {
    const exporter = new OTLPTraceExporter({ url });
    this.provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME?.trim() || 'inventory-graphql-gateway', [ATTR_SERVICE_VERSION]: '0.1.0' }),
      sampler: samplerFrom(env),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    this.tracer = this.provider.getTracer('inventory-graphql-gateway');
  }

  /** The parent context of an incoming request: its W3C traceparent/tracestate when valid, else none. */
  extract(headers: Headers): Context {
    if (!headers.has('traceparent')) return ROOT_CONTEXT;
    return this.propagator.extract(ROOT_CONTEXT, headers, { get: (h, key) => h.get(key) ?? undefined, keys: (h) => [...h.keys()] });
  }

  /** Adds traceparent (and tracestate) of the span in `context` to outgoing headers. */
  inject(context: Context, headers: Record<string, string>): void {
    this.propagator.inject(context, headers, { set: (h, key, value) => { h[key] = value; } });
  }

  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** Tracing from the environment, or null when no OTLP endpoint is set. */
export function createTracing(env: Env = process.env): Tracing | null {
  const url = tracesEndpoint(env);
  return url ? new Tracing(url, env) : null;
}
