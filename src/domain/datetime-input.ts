/** DateTime as callers send it: ISO-8601 with an explicit offset, or whole epoch seconds. */
import { GraphQLError } from 'graphql';
import { time } from './coerce.js';

const ISO_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function parseDateTimeInput(value: unknown): Date {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 253402300799) throw new GraphQLError('DateTime as a number must be whole epoch seconds');
    return new Date(value * 1000);
  }
  // Inputs need an explicit offset: a bare local time would silently mean UTC.
  if (typeof value !== 'string' || !ISO_INPUT.test(value.trim())) {
    throw new GraphQLError('DateTime must be ISO-8601 with an offset (2026-01-31T12:00:00Z) or epoch seconds');
  }
  const date = time(value);
  if (!date) throw new GraphQLError('DateTime is not a valid date');
  return date;
}

