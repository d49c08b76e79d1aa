/**
 * What a field's arguments say about the calls it makes, for the estimate (cost.ts): the page size
 * and upstream pages of a connection (as src/domain/paging.ts plans the window) and the distinct
 * time windows of availability fields, whose limits are checked here before any call.
 */
import { GraphQLError, valueFromASTUntyped, type FieldNode } from 'graphql';
import { parseDateTimeInput } from '../domain/datetime-input.js';
import { availabilityWindowSeconds } from '../domain/input.js';
import { pagesFor, planWindow, type ConnectionArgs } from '../domain/paging.js';

export interface ArgumentSettings {
  maxAvailabilityWindowDays: number;
  defaultPageSize: number;
  maxPageSize: number;
}

export class CostArguments {
  /** Argument problems found before execution (so a bad nested argument costs no upstream call). */
  readonly problems: GraphQLError[] = [];

  constructor(
    private readonly variables: Record<string, unknown>,
    private readonly settings: ArgumentSettings,
  ) {}

  arg(field: FieldNode, name: string): unknown {
    const node = field.arguments?.find((a) => a.name.value === name)?.value;
    return node ? valueFromASTUntyped(node, this.variables) : undefined;
  }

  /** Items a connection field returns at most. */
  pageSize(field: FieldNode): number {
    const first = this.arg(field, 'first');
    const last = this.arg(field, 'last');
    const sizes = [first, last].filter((v): v is number => typeof v === 'number' && v >= 0);
    const size = sizes.length ? Math.min(...sizes) : this.settings.defaultPageSize;
    return Math.min(size, this.settings.maxPageSize);
  }

  /** Distinct time windows of these fields (checked before any call). */
  windows(fields: FieldNode[]): number {
    for (const f of fields) this.checkWindow(this.arg(f, 'from'), this.arg(f, 'to'));
    return new Set(fields.map((f) => JSON.stringify([this.arg(f, 'from'), this.arg(f, 'to')]))).size;
  }

  private checkWindow(from: unknown, to: unknown): void {
    let dates: [Date, Date];
    try {
      dates = [parseDateTimeInput(from), parseDateTimeInput(to)];
    } catch {
      return; // malformed values are refused by GraphQL's own coercion
    }
    try {
      availabilityWindowSeconds(dates[0], dates[1], this.settings.maxAvailabilityWindowDays);
    } catch (error) {
      if (error instanceof GraphQLError && !this.problems.some((p) => p.message === error.message)) this.problems.push(error);
    }
  }

  /** Upstream pages a connection field reads: one or two. */
  upstreamPages(field: FieldNode): number {
    const limits = { defaultPageSize: this.settings.defaultPageSize, maxPageSize: this.settings.maxPageSize };
    const args = Object.fromEntries(['first', 'after', 'last', 'before', 'offset'].map((name) => [name, this.arg(field, name)]));
    try {
      const plan = planWindow(args as ConnectionArgs, limits);
      return plan.reverse ? 1 : pagesFor(plan.start, plan.count, limits.maxPageSize).length;
    } catch {
      return 2; // arguments the run time refuses (a foreign cursor...): the most a window can take
    }
  }
}
