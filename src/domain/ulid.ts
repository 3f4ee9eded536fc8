/**
 * ULIDs from a given clock and random source, for workflow code (the `ulid` package's Node build
 * needs `node:crypto`, which the workflow sandbox refuses). Same format: 10 characters of
 * millisecond time and 16 of randomness, Crockford base 32 (https://github.com/ulid/spec).
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID for `timeMs` (epoch ms) with randomness from `random` (values in [0, 1)). */
export function ulidFrom(timeMs: number, random: () => number): string {
  let time = '';
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  let rest = '';
  for (let i = 0; i < 16; i++) rest += ALPHABET[Math.floor(random() * 32)]!;
  return time + rest;
}
