import type { Availability, AvailabilityPeriod } from '../../domain/inventory.js';
import { builder } from '../builder.js';
import { AvailabilityStateEnum } from './enums.js';

export const AvailabilityPeriodRef = builder.objectRef<AvailabilityPeriod>('AvailabilityPeriod').implement({
  description: 'One period of an availability log.',
  fields: (t) => ({
    key: t.exposeID('key', { description: 'Upstream `key` (a UUID) of the period.' }),
    start: t.expose('start', { type: 'DateTime', nullable: false, description: 'Upstream `startTs` (epoch seconds).' }),
    end: t.expose('end', { type: 'DateTime', nullable: false, description: 'Upstream `endTs` (epoch seconds).' }),
    durationSeconds: t.expose('durationSeconds', { type: 'SafeInt', nullable: false, description: 'end - start.' }),
    actualStart: t.expose('actualStart', { type: 'DateTime', description: 'Upstream `actStartTs`: when the state really began, possibly before the window.' }),
    stateCode: t.exposeInt('stateCode', { nullable: false, description: 'Upstream integer code; 0 is down and 4 is unknown.' }),
    state: t.expose('state', { description: 'Meaning of stateCode.', type: AvailabilityStateEnum, nullable: false }),
    rca: t.exposeBoolean('rca', { description: 'Upstream `rca`: a root-cause analysis exists.' }),
    scheduledStart: t.expose('scheduledStart', { type: 'DateTime', description: 'Upstream `schStartTs`; null when 0.' }),
    scheduledEnd: t.expose('scheduledEnd', { type: 'DateTime', description: 'Upstream `schEndTs`; null when 0.' }),
  }),
});

export const AvailabilityRef = builder.objectRef<Availability>('Availability').implement({
  description:
    'Availability of a resource over a window (GET /resources/{id}/availability). Upstream units, established from a real sample: totalDowntime is seconds, and totalAvailability is the percentage of the window that was not down.',
  fields: (t) => ({
    from: t.expose('from', { description: 'Start of the window asked for.', type: 'DateTime', nullable: false }),
    to: t.expose('to', { description: 'End of the window asked for.', type: 'DateTime', nullable: false }),
    availabilityPercent: t.exposeFloat('availabilityPercent', { description: 'Upstream `totalAvailability`: percent of the window not down.' }),
    downtimeSeconds: t.expose('downtimeSeconds', { type: 'SafeInt', description: 'Upstream `totalDowntime`: seconds down in the window.' }),
    currentState: t.exposeString('currentState', { description: 'Upstream `currentState`, e.g. down.' }),
    periods: t.field({ type: [AvailabilityPeriodRef], nullable: false, description: 'Upstream `totalLogList`.', resolve: (a) => a.periods }),
    downPeriods: t.field({ type: [AvailabilityPeriodRef], nullable: false, description: 'Upstream `downTimeList`.', resolve: (a) => a.downPeriods }),
    downOccurrences: t.exposeInt('downOccurrences', { description: 'Upstream `noOfOccurences`.' }),
    degradedPeriods: t.field({ type: ['JSON'], nullable: false, description: 'Upstream `degradedTimeList`, as sent.', resolve: (a) => a.degradedPeriods }),
    degradedOccurrences: t.exposeInt('degradedOccurrences', { description: 'Upstream `noOfDegradedOccurences`.' }),
    degradedSeconds: t.expose('degradedSeconds', { type: 'SafeInt', description: 'Upstream `totalDegradedTime`.' }),
    pausedPeriods: t.field({ type: ['JSON'], nullable: false, description: 'Upstream `pauseTimeList`, as sent.', resolve: (a) => a.pausedPeriods }),
    pauseOccurrences: t.exposeInt('pauseOccurrences', { description: 'Upstream `noOfPauseOccurences`.' }),
    pausedSeconds: t.expose('pausedSeconds', { type: 'SafeInt', description: 'Upstream `totalPauseTime`.' }),
  }),
});
