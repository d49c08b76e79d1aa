/**
 * Where an estimate's calls come from, field by field: recorded by the walk that makes the
 * estimate (src/schema/cost.ts), when asked for (explain, `npm run explain`), never counted a
 * second way. Each part is a read at a response path, times the lists it sits under; the parts of
 * one tenant and route add up to the estimate's count of that route.
 */
import type { RouteName } from '../core/routes.js';

/** A list the reads sit under: its size as estimated, and its response path. */
export interface ListScope {
  n: number;
  path: string;
}

export interface CostPart {
  /** The tenant whose window the calls spend; null: a tenant known only at run time. */
  tenant: string | null;
  /** The response path of the field (or object) whose read it is, as the request wrote it. */
  path: string;
  route: RouteName;
  /** Reads per object the field is on (an availability field with two windows: 2). */
  perItem: number;
  /** The lists the object sits under, outermost first. */
  under: readonly ListScope[];
  /** For a resource's detail or search read: the selected fields that need it. */
  needs?: readonly string[];
  calls: number;
}

export class CostTrace {
  private readonly byKey = new Map<string, CostPart>();
  private readonly path: string[] = [];
  private readonly lists: ListScope[] = [];
  private muted = 0;
  /** The tenant of the root field being walked. */
  tenant: string | null = null;

  get parts(): CostPart[] {
    return [...this.byKey.values()];
  }

  /** Runs fn one response key deeper. */
  at<T>(segment: string, fn: () => T): T {
    this.path.push(segment);
    try {
      return fn();
    } finally {
      this.path.pop();
    }
  }

  /** Runs fn for each of n items of the list at the current path. */
  each<T>(n: number, fn: () => T): T {
    this.lists.push({ n, path: this.path.join('.') });
    try {
      return fn();
    } finally {
      this.lists.pop();
    }
  }

  /** Runs fn without recording: cases of which only the worst counts are recorded once, as their result. */
  quiet<T>(fn: () => T): T {
    this.muted++;
    try {
      return fn();
    } finally {
      this.muted--;
    }
  }

  /** perItem reads of the route at the current path (and `leaf` below it), for every item of the lists around. */
  note(route: RouteName, perItem: number, leaf?: string, needs?: readonly string[]): void {
    if (this.muted > 0 || perItem <= 0) return;
    const path = leaf ? [...this.path, leaf].join('.') : this.path.join('.');
    const under = this.lists.map((l) => ({ ...l }));
    const calls = under.reduce((product, l) => product * l.n, perItem);
    const key = JSON.stringify([this.tenant, path, route, under]);
    const known = this.byKey.get(key);
    if (known) {
      known.perItem += perItem;
      known.calls += calls;
      if (needs) known.needs = [...new Set([...(known.needs ?? []), ...needs])];
      return;
    }
    this.byKey.set(key, { tenant: this.tenant, path, route, perItem, under, ...(needs?.length ? { needs: [...needs] } : {}), calls });
  }
}
