/** What every part of the simulator's data set shares: its fixed "now", and made-up addresses. */
import type { Random } from './random.js';

/** Fixed "now" so the data set does not drift between runs: 2026-11-01T00:00:00Z. */
export const DATASET_NOW = 1793491200;
export const DAY = 86_400;

export function ipv4(rng: Random, prefix = '10'): string {
  return `${prefix}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}
export function mac(rng: Random): string {
  return Array.from({ length: 6 }, () => rng.hex(2)).join(':').toUpperCase();
}
