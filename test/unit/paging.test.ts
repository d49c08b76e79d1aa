import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, fetchWindow, pagesFor, planWindow, type PageRequest } from '../../src/domain/paging.js';

const limits = { defaultPageSize: 50, maxPageSize: 500 };

describe('pagesFor', () => {
  it('uses one page whenever a size in [n, 2n] covers the window, else two of size n', () => {
    for (let start = 0; start < 300; start++) {
      for (const count of [1, 2, 7, 10, 33, 100]) {
        const pages = pagesFor(start, count, 500);
        expect(pages.length).toBeLessThanOrEqual(2);
        const covered = new Set<number>();
        for (const p of pages) for (let i = 0; i < p.pageSize; i++) covered.add((p.pageNo - 1) * p.pageSize + i);
        for (let i = start; i < start + count; i++) expect(covered.has(i)).toBe(true);
        if (pages.length === 2) expect(pages.every((p) => p.pageSize === count)).toBe(true);
      }
    }
  });
});

describe('planWindow', () => {
  it('maps Relay arguments to a window', () => {
    expect(planWindow({}, limits)).toEqual({ reverse: false, start: 0, count: 50 });
    expect(planWindow({ first: 10, after: encodeCursor(19) }, limits)).toEqual({ reverse: false, start: 20, count: 10 });
    expect(planWindow({ last: 5, before: encodeCursor(20) }, limits)).toEqual({ reverse: false, start: 15, count: 5 });
    expect(planWindow({ last: 50, before: encodeCursor(20) }, limits)).toEqual({ reverse: false, start: 0, count: 20 });
    expect(planWindow({ last: 5 }, limits)).toEqual({ reverse: true, count: 5, minStart: 0 });
    expect(planWindow({ first: 10, last: 3 }, limits)).toEqual({ reverse: false, start: 7, count: 3 });
    expect(planWindow({ offset: 40, first: 5 }, limits)).toEqual({ reverse: false, start: 40, count: 5 });
    expect(planWindow({ after: encodeCursor(9), before: encodeCursor(5) }, limits)).toEqual({ reverse: false, start: 10, count: 0 });
  });

  it('round-trips cursors and refuses foreign ones', () => {
    expect(decodeCursor(encodeCursor(123), 'after')).toBe(123);
    expect(() => decodeCursor('b2Zmc2V0OjE=', 'after')).toThrow(/not a cursor/);
    expect(() => decodeCursor('x'.repeat(100), 'after')).toThrow(/not a cursor/);
  });
});

describe('fetchWindow', () => {
  const items = Array.from({ length: 23 }, (_, i) => `item${i}`);
  const fetcher = (calls: PageRequest[]) => async (page: PageRequest, reverse: boolean) => {
    calls.push(page);
    const ordered = reverse ? [...items].reverse() : items;
    return { items: ordered.slice((page.pageNo - 1) * page.pageSize, page.pageNo * page.pageSize), totalResults: items.length, pageNo: page.pageNo, pageSize: page.pageSize };
  };

  it('serves a forward window and the last items from the reversed order', async () => {
    const calls: PageRequest[] = [];
    const w = await fetchWindow({ reverse: false, start: 5, count: 6 }, limits, fetcher(calls));
    expect(w.items.map((i) => i.node)).toEqual(items.slice(5, 11));
    expect(w.items.map((i) => i.offset)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(calls.length).toBeLessThanOrEqual(2);
    const last = await fetchWindow({ reverse: true, count: 4, minStart: 0 }, limits, fetcher([]));
    expect(last.items.map((i) => [i.offset, i.node])).toEqual([[19, 'item19'], [20, 'item20'], [21, 'item21'], [22, 'item22']]);
    expect([last.hasNextPage, last.hasPreviousPage]).toEqual([false, true]);
  });
});
