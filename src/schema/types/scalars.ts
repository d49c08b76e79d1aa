import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { time } from '../../domain/coerce.js';
import { parseDateTimeInput } from '../../domain/datetime-input.js';
import { builder } from '../builder.js';

builder.scalarType('DateTime', {
  description:
    "ISO-8601 date-time in UTC, e.g. 2016-06-30T15:24:40Z. Upstream '2016-06-30T15:24:40+0000' (any offset) and epoch seconds both map here; an empty upstream string is null. As input: ISO-8601 with an offset, or epoch seconds.",
  serialize: (value) => {
    const date = value instanceof Date ? value : time(value);
    if (!date) throw new GraphQLError('DateTime cannot represent this value');
    return date.toISOString().replace(/\.000Z$/, 'Z');
  },
  parseValue: parseDateTimeInput,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.STRING) return parseDateTimeInput(ast.value);
    if (ast.kind === Kind.INT) return parseDateTimeInput(Number(ast.value));
    throw new GraphQLError('DateTime must be a string or epoch seconds');
  },
});

function parseSafeInt(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError('SafeInt must be an integer between -(2^53-1) and 2^53-1');
  return value;
}

builder.scalarType('SafeInt', {
  description: 'Integer up to 2^53-1.',
  serialize: (value) => parseSafeInt(value),
  parseValue: parseSafeInt,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('SafeInt must be an integer');
    return parseSafeInt(Number(ast.value));
  },
});

function literalToJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw new GraphQLError('JSON literals cannot use variables');
  }
}

builder.scalarType('JSON', {
  description: 'Free-form JSON as the inventory sends it (consoles, processors, degraded periods).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalToJson,
});
