/**
 * Seeded random sources (src/domain/random.ts): the same seed gives the same numbers (a Parallel
 * lane's random source must replay alike, workflows/workflow-port.ts), and `uuidFrom` gives RFC 9562
 * version 4 UUIDs from them.
 */
import { expect } from 'chai';
import { seededRandom, uuidFrom } from '../../src/domain/random';

describe('seeded random sources', () => {
  it('repeat for the same seed, differ for another, and stay in [0, 1)', () => {
    const take = (seed: number) => Array.from({ length: 100 }, seededRandom(seed));
    expect(take(42)).to.deep.equal(take(42));
    expect(take(42)).not.to.deep.equal(take(43));
    for (const x of take(7)) expect(x).to.be.at.least(0).and.below(1);
  });

  it('make version 4 UUIDs, the same from the same seed', () => {
    const a = uuidFrom(seededRandom(1));
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFrom(seededRandom(1))).to.equal(a);
    const many = new Set(
      Array.from(
        { length: 1000 },
        (
          (r) => () =>
            uuidFrom(r)
        )(seededRandom(9)),
      ),
    );
    expect(many.size).to.equal(1000);
  });
});
