import type { GatewayContext } from '../context.js';
import type { Availability } from '../domain/inventory.js';
import type { ResourceView } from '../domain/resource.js';
import { badUserInput, UpstreamNotFound } from '../upstream/errors.js';

/** The window in whole epoch seconds, or BAD_USER_INPUT; used at run time and in the pre-execution check. */
export function availabilityWindowSeconds(from: Date, to: Date, maxDays: number): { start: number; end: number } {
  const start = Math.floor(from.getTime() / 1000);
  const end = Math.floor(to.getTime() / 1000);
  if (end <= start) throw badUserInput('availability: `to` must be after `from`', 'to');
  if (end - start > maxDays * 86_400) throw badUserInput(`availability: the window may span at most ${maxDays} days`, 'to');
  return { start, end };
}

/** Validates the window and loads it; the upstream takes whole epoch seconds. */
export async function availabilityWindow(view: ResourceView, from: Date, to: Date, ctx: GatewayContext): Promise<Availability> {
  const { start, end } = availabilityWindowSeconds(from, to, ctx.config.maxAvailabilityWindowDays);
  const availability = await ctx.loaders.availabilityByWindow.load({ tenantId: view.tenantId, id: view.id, from: start, to: end });
  if (availability === null) throw new UpstreamNotFound(`resource ${view.id}`);
  return availability;
}
