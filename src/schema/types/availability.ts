import type { Availability, AvailabilityPeriod } from '../../domain/records.js';
import { builder } from '../builder.js';
import { AvailabilityStateEnum } from './enums.js';

export const AvailabilityPeriodRef = builder.objectRef<AvailabilityPeriod>('AvailabilityPeriod').implement({
  description: 'One period of an availability log.',
  fields: (t) => ({
    key: t.exposeID('key', { description: 'Key of the period (a UUID).' }),
    start: t.expose('start', { type: 'DateTime', nullable: false, description: 'Start of the period.' }),
    end: t.expose('end', { type: 'DateTime', nullable: false, description: 'End of the period.' }),
    durationSeconds: t.expose('durationSeconds', { type: 'SafeInt', nullable: false, description: 'end - start.' }),
    actualStart: t.expose('actualStart', { type: 'DateTime', description: 'When the state really began, possibly before the window.' }),
    stateCode: t.exposeInt('stateCode', { nullable: false, description: 'State code as the inventory sends it; 0 is down and 4 is unknown.' }),
    state: t.expose('state', { description: 'Meaning of stateCode.', type: AvailabilityStateEnum, nullable: false }),
    rca: t.exposeBoolean('rca', { description: 'A root-cause analysis exists.' }),
    scheduledStart: t.expose('scheduledStart', { type: 'DateTime', description: 'Start of the scheduled maintenance the period falls in; null when none.' }),
    scheduledEnd: t.expose('scheduledEnd', { type: 'DateTime', description: 'End of the scheduled maintenance the period falls in; null when none.' }),
  }),
});

export const AvailabilityRef = builder.objectRef<Availability>('Availability').implement({
  description:
    'Availability of a resource over a window: how long it was down, degraded or paused, and the periods.',
  fields: (t) => ({
    from: t.expose('from', { description: 'Start of the window asked for.', type: 'DateTime', nullable: false }),
    to: t.expose('to', { description: 'End of the window asked for.', type: 'DateTime', nullable: false }),
    availabilityPercent: t.exposeFloat('availabilityPercent', { description: 'Percent of the window not down.' }),
    downtimeSeconds: t.expose('downtimeSeconds', { type: 'SafeInt', description: 'Seconds down in the window.' }),
    currentState: t.exposeString('currentState', { description: 'State at the end of the window, e.g. down.' }),
    periods: t.field({ type: [AvailabilityPeriodRef], nullable: false, description: 'Every period of the window, up, down or unknown.', resolve: (a) => a.periods }),
    downPeriods: t.field({ type: [AvailabilityPeriodRef], nullable: false, description: 'The periods the resource was down.', resolve: (a) => a.downPeriods }),
    downOccurrences: t.exposeInt('downOccurrences', { description: 'How many times the resource went down in the window.' }),
    degradedPeriods: t.field({ type: ['JSON'], nullable: false, description: 'Degraded periods, as the inventory sends them.', resolve: (a) => a.degradedPeriods }),
    degradedOccurrences: t.exposeInt('degradedOccurrences', { description: 'How many times the resource was degraded in the window.' }),
    degradedSeconds: t.expose('degradedSeconds', { type: 'SafeInt', description: 'Seconds degraded in the window.' }),
    pausedPeriods: t.field({ type: ['JSON'], nullable: false, description: 'Paused periods, as the inventory sends them.', resolve: (a) => a.pausedPeriods }),
    pauseOccurrences: t.exposeInt('pauseOccurrences', { description: 'How many times monitoring was paused in the window.' }),
    pausedSeconds: t.expose('pausedSeconds', { type: 'SafeInt', description: 'Seconds of paused monitoring in the window.' }),
  }),
});
