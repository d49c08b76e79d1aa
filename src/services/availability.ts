import type { GatewayContext } from '../context.js';
import type { Availability } from '../domain/inventory.js';
import type { ResourceView } from '../domain/resource.js';
import { badUserInput, UpstreamNotFound } from '../upstream/errors.js';

/** Validates the window and loads it; the upstream takes whole epoch seconds. */
export async function availabilityWindow(view: ResourceView, from: Date, to: Date, ctx: GatewayContext): Promise<Availability> {
  const start = Math.floor(from.getTime() / 1000);
  const end = Math.floor(to.getTime() / 1000);
  if (end <= start) throw badUserInput('availability: `to` must be after `from`', 'to');
  const maxDays = ctx.config.maxAvailabilityWindowDays;
  if (end - start > maxDays * 86_400) throw badUserInput(`availability: the window may span at most ${maxDays} days`, 'to');
  const availability = await ctx.loaders.availabilityByWindow.load({ tenantId: view.tenantId, id: view.id, from: start, to: end });
  if (availability === null) throw new UpstreamNotFound(`resource ${view.id}`);
  return availability;
}
