/**
 * What the schema tells a caller who may not read it (INTROSPECTION off, the production default):
 *
 * - `_service { sdl }` (Apollo Federation) is the whole SDL with every description: refused like
 *   `__schema`, unless the request carries the federation gateway's shared secret
 *   (FEDERATION_SECRET, sent in the `x-federation-secret` header, compared in constant time).
 * - Validation and variable errors name only what the request named: graphql-js's
 *   "Did you mean …?" suggestions (fields, arguments, input fields, enum values, types, inline
 *   fragments) are cut, and any other quoted schema name the request did not use (the parent type
 *   of an unknown field, an enum's type, a missing argument) is replaced by "(hidden)", so that a
 *   client cannot rebuild the schema from error messages (clairvoyance and the like).
 *
 * GraphQL Armor's block-field-suggestions does the first half of the second point only for
 * validation errors and only for the `Did you mean "x"?` form: not enum values (`Did you mean the
 * enum value "X"?`), inline fragments, variable values, nor the type names in the messages
 * themselves. One rule here covers all of them.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import {
  GraphQLError, isEnumType, isInputObjectType, isInterfaceType, isObjectType, visit, type DocumentNode, type GraphQLSchema, type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayConfig } from '../../config.js';

/** The header a federation gateway sends FEDERATION_SECRET in. */
export const FEDERATION_SECRET_HEADER = 'x-federation-secret';

/** Replaces a schema name the request did not use. */
const HIDDEN = '"(hidden)"';

/** Constant-time comparison of digests: neither the length nor a prefix of the secret leaks through timing. */
function sameSecret(given: string | null, secret: string): boolean {
  if (given === null) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/** Named so that Yoga's validation cache (keyed by the rules' names) keeps gated and ungated results apart. */
function federationServiceGateRule(context: ValidationContext) {
  const queryType = context.getSchema().getQueryType();
  return {
    Field(node: { name: { value: string } }) {
      if (node.name.value !== '_service' || context.getParentType() !== queryType) return;
      context.reportError(new GraphQLError(
        'The federation service SDL is served only to the federation gateway: send its shared secret in the x-federation-secret header.',
        { nodes: [node as never], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
      ));
    },
  };
}

/** Every name the schema defines: types, fields, arguments, input fields, enum values, directives. */
function schemaNames(schema: GraphQLSchema): Set<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    names.add(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        names.add(field.name);
        for (const arg of field.args) names.add(arg.name);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) names.add(field.name);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) names.add(value.name);
    }
  }
  for (const directive of schema.getDirectives()) {
    names.add(directive.name);
    for (const arg of directive.args) names.add(arg.name);
  }
  return names;
}

/** The names a request used: every name in its document, and the keys and strings of its variables. */
function requestNames(document: DocumentNode | undefined, variables: unknown): Set<string> {
  const names = new Set<string>();
  if (document) visit(document, { Name: (node) => void names.add(node.value) });
  const walk = (value: unknown, depth: number): void => {
    if (depth > 20) return;
    if (typeof value === 'string') for (const word of value.match(IDENTIFIER) ?? []) names.add(word);
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        names.add(key);
        walk(item, depth + 1);
      }
    }
  };
  walk(variables, 0);
  return names;
}

const IDENTIFIER = /[_A-Za-z][_0-9A-Za-z]*/g;
/** graphql-js's suggestions: ` Did you mean "a", "b", or "c"?`, `… the enum value "X"?`, `… to use an inline fragment on "T"?`. */
const SUGGESTION = /\s*Did you mean [^?]*\?/g;
const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

/** The message without suggestions and without quoted schema names the request did not use. */
export function redactMessage(message: string, known: Set<string>, named: Set<string>): string {
  return message.replace(SUGGESTION, '').replace(QUOTED, (quoted, inner: string) => {
    const words = inner.match(IDENTIFIER) ?? [];
    return words.some((word) => known.has(word) && !named.has(word)) ? HIDDEN : quoted;
  });
}

function redacted(error: GraphQLError, known: Set<string>, named: Set<string>): GraphQLError {
  const message = redactMessage(error.message, known, named);
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions: error.extensions,
  });
}

export function schemaExposurePlugin(config: Pick<GatewayConfig, 'introspection' | 'federationSecret'>): Plugin {
  if (config.introspection) return {};
  const { federationSecret } = config;
  let known: Set<string> | null = null;
  const knownOf = (schema: GraphQLSchema) => (known ??= schemaNames(schema));
  return {
    onValidate({ context, params, addValidationRule }) {
      const request = (context as { request?: Request }).request;
      const proven = federationSecret !== null && sameSecret(request?.headers.get(FEDERATION_SECRET_HEADER) ?? null, federationSecret);
      if (!proven) addValidationRule(federationServiceGateRule);
      return ({ result, setResult }) => {
        if (result.length === 0) return;
        const named = requestNames(params.documentAST, undefined);
        const out = result.map((e) => redacted(e, knownOf(params.schema), named));
        if (out.some((e, i) => e !== result[i])) setResult(out);
      };
    },
    // Variables that do not fit their types fail before any field runs: their messages too.
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in Object(result)) return;
          const single = result as { data?: unknown; errors?: readonly GraphQLError[] };
          if (single.data !== undefined || !single.errors?.length) return;
          const named = requestNames(args.document, args.variableValues);
          const errors = single.errors.map((e) => (e instanceof GraphQLError ? redacted(e, knownOf(args.schema), named) : e));
          if (errors.some((e, i) => e !== single.errors?.[i])) setResult({ ...single, errors } as never);
        },
      };
    },
  };
}

let knownNames: { schema: GraphQLSchema; names: Set<string> } | null = null;

/**
 * A structure the gateway answers about a request (an explain plan) with every schema name in its
 * strings that the request did not use replaced by "(hidden)": with introspection off, it tells
 * no more of the schema than the request already knew. Object keys are the answer's own vocabulary.
 */
export function withoutUnnamedSchemaNames<T>(value: T, schema: GraphQLSchema, document: DocumentNode, variables: unknown): T {
  if (knownNames?.schema !== schema) knownNames = { schema, names: schemaNames(schema) };
  const known = knownNames.names;
  const named = requestNames(document, variables);
  const hide = (item: unknown): unknown => {
    if (typeof item === 'string') return item.replace(IDENTIFIER, (word) => (known.has(word) && !named.has(word) ? '(hidden)' : word));
    if (Array.isArray(item)) return item.map(hide);
    if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, hide(v)]));
    return item;
  };
  return hide(value) as T;
}
