/**
 * Relay connections over the page-numbered upstream. A cursor is an item's offset in the
 * ordered result; any window [start, start + count) is served by one page when some page size
 * in [count, 2*count] covers it, else by two pages of size `count`. `last` without `before`
 * reads the first page of the reversed order instead of asking for the total first.
 */
import { badUserInput } from '../core/errors.js';
import type { Page } from './records.js';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  offset?: number | null;
}

export type WindowPlan =
  | { reverse: false; start: number; count: number }
  /** The last `count` items, none before `minStart`. */
  | { reverse: true; count: number; minStart: number };

export interface PageLimits { defaultPageSize: number; maxPageSize: number }

export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, field: string): number {
  const text = cursor.length <= 32 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const m = /^o:(\d{1,9})$/.exec(text);
  if (!m) throw badUserInput(`${field} is not a cursor from this connection`, field);
  return Number(m[1]);
}

function checkCount(value: number | null | undefined, field: string, max: number): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0) throw badUserInput(`${field} must be zero or more`, field);
  if (value > max) throw badUserInput(`${field} must be at most ${max} (the maximum page size)`, field);
  return value;
}

export function planWindow(args: ConnectionArgs, limits: PageLimits): WindowPlan {
  const first = checkCount(args.first, 'first', limits.maxPageSize);
  const last = checkCount(args.last, 'last', limits.maxPageSize);
  if (args.offset !== null && args.offset !== undefined) {
    if (!Number.isInteger(args.offset) || args.offset < 0) throw badUserInput('offset must be zero or more', 'offset');
    if (args.after || args.before) throw badUserInput('offset cannot be combined with after or before', 'offset');
  }
  let start = args.after ? decodeCursor(args.after, 'after') + 1 : args.offset ?? 0;
  const end = args.before ? decodeCursor(args.before, 'before') : null;
  if (end !== null && end < start) return { reverse: false, start, count: 0 };
  if (first === null && last !== null && end === null) return { reverse: true, count: last, minStart: start };
  let count: number;
  if (first !== null) count = end === null ? first : Math.min(first, end - start);
  else if (end !== null) count = end - start;
  else count = limits.defaultPageSize;
  if (last !== null && last < count) {
    start += count - last;
    count = last;
  }
  // A window between two cursors may be wider than a page; keep its first page-sized part.
  count = Math.min(count, limits.maxPageSize);
  return { reverse: false, start, count };
}

export interface PageRequest { pageNo: number; pageSize: number }

/** The fewest upstream pages that cover [start, start + count): one, or two of size count. */
export function pagesFor(start: number, count: number, maxPageSize: number): PageRequest[] {
  if (count <= 0) return [{ pageNo: Math.floor(start / Math.max(1, maxPageSize)) + 1, pageSize: 1 }];
  for (let size = count; size <= Math.min(maxPageSize, 2 * count); size++) {
    if (Math.floor(start / size) === Math.floor((start + count - 1) / size)) return [{ pageNo: Math.floor(start / size) + 1, pageSize: size }];
  }
  const pageNo = Math.floor(start / count) + 1;
  return [{ pageNo, pageSize: count }, { pageNo: pageNo + 1, pageSize: count }];
}

export interface WindowResult<T> {
  items: { offset: number; node: T }[];
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export type PageFetcher<T> = (page: PageRequest, reverse: boolean) => Promise<Page<T>>;

export async function fetchWindow<T>(plan: WindowPlan, limits: PageLimits, fetchPage: PageFetcher<T>): Promise<WindowResult<T>> {
  if (plan.reverse) {
    const page = await fetchPage({ pageNo: 1, pageSize: Math.max(1, plan.count) }, true);
    const total = page.totalResults;
    const items: { offset: number; node: T }[] = [];
    const taken = plan.count === 0 ? [] : page.items.slice(0, plan.count);
    taken.forEach((node, i) => {
      const offset = total - 1 - i;
      if (node !== null && offset >= plan.minStart) items.push({ offset, node });
    });
    items.reverse();
    const firstOffset = Math.max(plan.minStart, total - taken.length);
    return { items, totalCount: total, hasNextPage: false, hasPreviousPage: firstOffset > 0 && total > 0 };
  }
  const { start, count } = plan;
  const requests = pagesFor(start, count, limits.maxPageSize);
  const pages = await Promise.all(requests.map((r) => fetchPage(r, false)));
  const total = Math.max(...pages.map((p) => p.totalResults));
  const items: { offset: number; node: T }[] = [];
  if (count > 0) {
    pages.forEach((page, i) => {
      const request = requests[i] as PageRequest;
      const base = (request.pageNo - 1) * request.pageSize;
      page.items.forEach((node, j) => {
        const offset = base + j;
        if (node !== null && offset >= start && offset < start + count) items.push({ offset, node });
      });
    });
  }
  const windowEnd = Math.min(start + count, total);
  return { items, totalCount: total, hasNextPage: windowEnd < total, hasPreviousPage: start > 0 && total > 0 };
}

export interface PageInfoShape { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }

export interface ConnectionShape<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfoShape;
  totalCount: number;
}

/** An edge whose cursor is encoded when read: most selections of a page ask for none. */
class Edge<T> {
  constructor(private readonly offset: number, readonly node: T) {}
  get cursor(): string {
    return encodeCursor(this.offset);
  }
}

export function toConnection<T>(window: WindowResult<T>): ConnectionShape<T> {
  const edges = window.items.map(({ offset, node }) => new Edge(offset, node));
  return {
    edges,
    totalCount: window.totalCount,
    pageInfo: {
      hasNextPage: window.hasNextPage,
      hasPreviousPage: window.hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

