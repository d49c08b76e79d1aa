/**
 * No caller input in error extensions. Yoga's request parser puts the JSON parser's message, which
 * quotes the body ("\"{\"query\": 12\" is not valid JSON"), in `extensions.originalError`, and
 * development mode would add `stacktrace`. Both are dropped from every error of every result
 * (batches included); the message, the HTTP status and the gateway's own extensions (code,
 * limits, ...) stay. And every malformed request answers 400: Yoga marks the request error of a
 * missing or null `query` `spec`, which it answers 200 to a client accepting application/json,
 * while the others (a `query` of the wrong type, bad JSON) answer 400.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const ECHOING_EXTENSIONS = ['originalError', 'stacktrace', 'exception'];

function clean(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  const extensions = error.extensions as Record<string, unknown> | undefined;
  // A request error (no document position: `query` missing or null), not a GraphQL error in the
  // document, which the spec answers 200 to application/json (parse, validation, variables).
  const spec = (extensions?.http as { spec?: boolean } | undefined)?.spec === true && !error.positions?.length && !error.nodes?.length;
  if (!extensions || (!spec && !ECHOING_EXTENSIONS.some((key) => key in extensions))) return error;
  const kept = Object.fromEntries(Object.entries(extensions).filter(([key]) => !ECHOING_EXTENSIONS.includes(key)));
  // Yoga answers 200 to application/json for a `spec` error unless it has an originalError: keep its status (400).
  const http = kept.http as { spec?: boolean } | undefined;
  if (http?.spec) kept.http = { ...http, spec: false };
  return new GraphQLError(error.message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: kept,
  });
}

function cleanResult(result: unknown): unknown {
  const single = result as { errors?: readonly unknown[] } | null;
  if (!single || typeof single !== 'object' || !Array.isArray(single.errors)) return result;
  const errors = single.errors.map(clean);
  return errors.every((e, i) => e === single.errors?.[i]) ? result : { ...single, errors };
}

export function noEchoPlugin(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Symbol.asyncIterator in Object(result)) return;
      const cleaned = Array.isArray(result) ? result.map(cleanResult) : cleanResult(result);
      if (Array.isArray(result) ? (cleaned as unknown[]).some((r, i) => r !== result[i]) : cleaned !== result) setResult(cleaned as never);
    },
  };
}
