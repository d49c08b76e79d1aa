/** Seeded, dependency-free randomness so every run of the simulator serves the same data. */

/** mulberry32: tiny, fast, good enough for fixtures. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int(min: number, max: number): number {
      return min + Math.floor(next() * (max - min + 1));
    },
    pick<T>(items: readonly T[]): T {
      return items[Math.floor(next() * items.length)] as T;
    },
    chance(probability: number): boolean {
      return next() < probability;
    },
    hex(length: number): string {
      let out = '';
      for (let i = 0; i < length; i++) out += Math.floor(next() * 16).toString(16);
      return out;
    },
    uuid(): string {
      const h = this.hex(32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}

export type Random = ReturnType<typeof createRandom>;

/** Stateless 32-bit hash of a few integers: lets availability be computed for any window without storing it. */
export function hashInts(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const v of values) {
    h ^= v & 0xffffffff;
    h = Math.imul(h, 0x01000193);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    h ^= h >>> 15;
  }
  return (h >>> 0) / 4294967296;
}

/** Upstream timestamp form: yyyy-MM-ddTHH:mm:ss+hhmm, in the given offset (minutes east of UTC). */
export function formatUpstreamTime(epochSeconds: number, offsetMinutes = 0): string {
  const shifted = new Date((epochSeconds + offsetMinutes * 60) * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}` +
    `T${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}
