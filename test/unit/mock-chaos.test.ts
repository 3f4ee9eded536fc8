/**
 * Latency and faults of the mock service (src/mock/chaos.ts; docs/mocks.md "Latency and faults"):
 * the distributions (WireMock's lognormal within a stated tolerance, from many draws without
 * waiting), the fault draw, the seeded per-scope sequences, and the selectors.
 */
import { expect } from 'chai';
import {
  MockChaos,
  pickFault,
  sampleDelay,
  seededRandom,
  standardNormal,
  type ChaosDecision,
  type ChaosDesign,
} from '../../src/mock/chaos';
import type { MockExchange } from '../../src/mock/exchange';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const exchange = (scope: string | null): MockExchange =>
  ({ workspaceId: 'ws_x', scope, method: 'GET', path: '/p', rawQuery: '', startedAt: 0 }) as unknown as MockExchange;

describe('mock latency and faults (src/mock/chaos.ts)', () => {
  it('draws N(0,1): mean within 0.02 and standard deviation within 0.02 of 1 over 200,000 draws', () => {
    const random = seededRandom(7);
    const n = 200_000;
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      const x = standardNormal(random);
      sum += x;
      squares += x * x;
    }
    const mean = sum / n;
    expect(Math.abs(mean)).to.be.below(0.02);
    expect(Math.abs(Math.sqrt(squares / n - mean * mean) - 1)).to.be.below(0.02);
  });

  it("lognormal (WireMock's exp(ln median + sigma·N)): p50 and p95 within 3% of the distribution's over 100,000 draws", () => {
    const median = 80;
    const sigma = 0.4;
    const random = seededRandom(12345);
    const draws: number[] = [];
    // maxValue far above: no draw is capped here.
    for (let i = 0; i < 100_000; i++)
      draws.push(sampleDelay({ type: 'lognormal', median, sigma, maxValue: 60_000 }, random));
    draws.sort((a, b) => a - b);
    const p50 = percentile(draws, 0.5);
    const p95 = percentile(draws, 0.95);
    const expectedP95 = median * Math.exp(sigma * 1.6448536269514722);
    expect(Math.abs(p50 - median) / median, `p50 ${p50} against ${median}`).to.be.below(0.03);
    expect(Math.abs(p95 - expectedP95) / expectedP95, `p95 ${p95} against ${expectedP95.toFixed(1)}`).to.be.below(0.03);
  });

  it('caps lognormal at maxValue; uniform stays within its bounds; fixed is fixed; all whole ms', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 10_000; i++) {
      const capped = sampleDelay({ type: 'lognormal', median: 1000, sigma: 3, maxValue: 1500 }, random);
      expect(capped).to.be.at.most(1500);
      const u = sampleDelay({ type: 'uniform', lower: 20, upper: 40 }, random);
      expect(u).to.be.within(20, 40);
      expect(Number.isInteger(u)).to.equal(true);
    }
    expect(sampleDelay({ type: 'fixed', milliseconds: 250 }, random)).to.equal(250);
  });

  it('lays fault rules end to end on [0, 1) by probability', () => {
    const rules = [
      { fault: 'connection-reset' as const, probability: 0.1 },
      { fault: 'status' as const, probability: 0.2, status: 500 },
    ];
    expect(pickFault(rules, 0.05)?.fault).to.equal('connection-reset');
    expect(pickFault(rules, 0.1)?.fault).to.equal('status');
    expect(pickFault(rules, 0.29)?.fault).to.equal('status');
    expect(pickFault(rules, 0.31)).to.equal(undefined);
    expect(pickFault([{ fault: 'random-data', probability: 1 }], 0.9999)?.fault).to.equal('random-data');
    // Frequencies over many seeded draws: within 1 point of the probabilities.
    const random = seededRandom(99);
    const counts: Record<string, number> = {};
    for (let i = 0; i < 50_000; i++) {
      const f = pickFault(rules, random())?.fault ?? 'none';
      counts[f] = (counts[f] ?? 0) + 1;
    }
    expect(counts['connection-reset']! / 50_000).to.be.closeTo(0.1, 0.01);
    expect(counts.status! / 50_000).to.be.closeTo(0.2, 0.01);
  });

  it('gives the n-th request of a scope to a design the same draws in every scope (the same seed: the same sequence twice)', () => {
    const design: ChaosDesign = {
      id: 'dsg_1',
      seed: 42,
      delay: { type: 'uniform', lower: 0, upper: 1000 },
      faults: [
        { fault: 'connection-reset', probability: 0.2 },
        { fault: 'status', probability: 0.2, status: 502 },
      ],
    };
    const sequence = (chaos: MockChaos, scope: string) =>
      Array.from({ length: 40 }, () => {
        const d = chaos.decide(exchange(scope), design, design.id, { delayMs: 0 }, {}) as ChaosDecision;
        return `${d.fault ?? '-'}:${d.status ?? ''}:${d.delayMs}`;
      });
    const chaos = new MockChaos();
    const first = sequence(chaos, 'run_A');
    const second = sequence(chaos, 'run_B');
    expect(second).to.deep.equal(first);
    // Another process (another MockChaos), same design seed: the same again.
    expect(sequence(new MockChaos({ seed: 1 }), 'run_C')).to.deep.equal(first);
    // Faults and delays do vary along the sequence.
    expect(new Set(first.map((s) => s.split(':')[0])).size).to.equal(3);
    expect(first.some((s) => s.startsWith('status:502'))).to.equal(true);
    // Another seed: another sequence.
    const other = new MockChaos();
    const reseeded = Array.from({ length: 40 }, () => {
      const d = other.decide(
        exchange('run_D'),
        { ...design, seed: 43 },
        design.id,
        { delayMs: 0 },
        {},
      ) as ChaosDecision;
      return `${d.fault ?? '-'}:${d.status ?? ''}:${d.delayMs}`;
    });
    expect(reseeded).to.not.deep.equal(first);
  });

  it("takes _delay_ and _fault_ over the design's, a response's delay over delayMs and the design's, and refuses bad selectors", () => {
    const chaos = new MockChaos({ seed: 3 });
    const design: ChaosDesign = { id: 'dsg_2', delay: { type: 'fixed', milliseconds: 500 }, faults: [] };
    const ex = exchange(null);
    expect(chaos.decide(ex, design, design.id, { delayMs: 0 }, {})).to.deep.equal({ delayMs: 500 });
    expect(chaos.decide(ex, design, design.id, { delayMs: 120 }, {})).to.deep.equal({ delayMs: 120 });
    expect(
      chaos.decide(ex, design, design.id, { delayMs: 120, delay: { type: 'fixed', milliseconds: 7 } }, {}),
    ).to.deep.equal({ delayMs: 7 });
    expect(chaos.decide(ex, design, design.id, { delayMs: 0 }, { delay: '0' })).to.deep.equal({ delayMs: 0 });
    expect(chaos.decide(ex, undefined, 'dsg_3', { delayMs: 0 }, { fault: 'status' })).to.deep.equal({
      delayMs: 0,
      fault: 'status',
      status: 503,
    });
    const always: ChaosDesign = { id: 'dsg_4', faults: [{ fault: 'empty-response', probability: 1 }] };
    expect(chaos.decide(ex, always, always.id, { delayMs: 0 }, { fault: 'none' })).to.deep.equal({ delayMs: 0 });
    for (const bad of ['-1', '1.5', 'soon', '60001', '']) {
      const out = chaos.decide(ex, design, design.id, { delayMs: 0 }, { delay: bad });
      expect(out, bad)
        .to.have.property('error')
        .that.match(/_delay_/);
    }
    expect(chaos.decide(ex, design, design.id, { delayMs: 0 }, { fault: 'explode' }))
      .to.have.property('error')
      .that.match(/_fault_ selector "explode" is not one of connection-reset, empty-response/);
  });
});
