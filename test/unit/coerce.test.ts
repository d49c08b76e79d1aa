import { describe, expect, it } from 'vitest';
import { bool, int32, safeInt, splitList, str, time } from '../../src/domain/coerce.js';

describe('time', () => {
  it.each([
    ['2016-06-30T15:24:40+0000', '2016-06-30T15:24:40.000Z'],
    ['2016-06-30T15:24:40+0530', '2016-06-30T09:54:40.000Z'],
    ['2016-06-30T15:24:40-0800', '2016-06-30T23:24:40.000Z'],
    ['2016-06-30T15:24:40+05:30', '2016-06-30T09:54:40.000Z'],
    ['2016-06-30T15:24:40Z', '2016-06-30T15:24:40.000Z'],
    ['2016-06-30T15:24:40.5Z', '2016-06-30T15:24:40.500Z'],
    ['2016-06-30 15:24:40', '2016-06-30T15:24:40.000Z'],
    ['2016-06-30T15:24:40+02', '2016-06-30T13:24:40.000Z'],
    [1467300280, '2016-06-30T15:24:40.000Z'],
    ['1467300280', '2016-06-30T15:24:40.000Z'],
    [1467300280123, '2016-06-30T15:24:40.123Z'],
  ])('reads %j', (input, expected) => {
    expect(time(input)?.toISOString()).toBe(expected);
  });

  it.each(['', '   ', null, undefined, 'yesterday', '2016-13-01T00:00:00Z', '2016-06-30T25:00:00Z', '2016-06-30T15:24:40+2500', 0, -5, {}, [], true, NaN])('reads %j as null', (input) => {
    expect(time(input)).toBeNull();
  });
});

describe('scalars of untrusted data', () => {
  it('reads strings, with empty as null', () => {
    expect([str('a'), str(''), str('  '), str(null), str(5), str(false), str({})]).toEqual(['a', null, null, null, '5', 'false', null]);
  });
  it('keeps Int within 32 bits and SafeInt within 53', () => {
    expect([int32(7), int32('7'), int32(2 ** 31), int32(1.5), int32('x'), int32(null)]).toEqual([7, 7, null, null, null, null]);
    expect([safeInt(2 ** 40), safeInt('1099511627776'), safeInt(2 ** 60), safeInt(Infinity)]).toEqual([2 ** 40, 2 ** 40, null, null]);
  });
  it('reads booleans from booleans and their string forms only', () => {
    expect([bool(true), bool('false'), bool('yes'), bool(null), bool(1)]).toEqual([true, false, null, null, true]);
  });
  it('splits joined lists', () => {
    expect(splitList(' a, ,b ,', ',')).toEqual(['a', 'b']);
    expect(splitList('10.0.0.1;fe80::1', ';')).toEqual(['10.0.0.1', 'fe80::1']);
    expect(splitList(null, ',')).toEqual([]);
  });
});
