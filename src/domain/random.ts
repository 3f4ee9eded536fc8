/**
 * Seeded pseudo-random sources: pure and deterministic, so workflow code may use them (a Parallel
 * lane's random source, workflows/workflow-port.ts) as well as the mocks' seeded chaos
 * (src/mock/chaos.ts). Not for secrets.
 */

/**
 * A seeded source of numbers in [0, 1) (mulberry32: 32-bit state, fast, well distributed for
 * simulation; not for secrets).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A version 4 UUID (RFC 9562 §5.4) drawn from `random`. */
export function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + Math.floor(random() * 4)).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
