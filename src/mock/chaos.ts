/**
 * Latency and faults of the mock service (docs/mocks.md "Latency and faults"): the engine's chaos
 * stage (src/mock/engine.ts `MockStages.chaos`).
 *
 * Delays follow WireMock's distributions ("Simulating faults": `fixed`, `uniform`, `lognormal`;
 * src/domain/mocks.ts `MockDelay`), faults WireMock's (`CONNECTION_RESET_BY_PEER`, `EMPTY_RESPONSE`,
 * `MALFORMED_RESPONSE_CHUNK`, `RANDOM_DATA_THEN_CLOSE`) plus `status` (a 5xx problem answer), drawn
 * with a probability per design like MockServer's chaos profiles.
 *
 * **Seeded.** Every draw comes from a random source derived from (seed, design id, n), where n counts
 * the requests of one scope to one design in this process (0, 1, 2, …). So the n-th request of a
 * run (its scope) to a design draws the same fault and the same delay in every run with the same
 * seed: two runs see the same sequence. The seed is the design's `seed`, else the workspace's
 * (its mock settings, when the stage is given them), else the engine's (`ASSAY_MOCK_SEED`), else
 * one drawn when the process starts. The counters live in the process
 * (at most {@link MAX_COUNTERS} of them; past that they start again from 0), so behind a load
 * balancer with several API processes a scope's sequence is per process.
 *
 * **Selectors.** `_delay_=<ms>` (0–60,000) and `_fault_=<fault>` (a {@link MOCK_FAULTS} name, or
 * `none` for no fault), from the query string, else a header of the same name, choose for one
 * request whatever the design draws; a bad one is 400 `mock-bad-selector`.
 *
 * Order: a fault is carried out after the delay (a slow reset, as WireMock does).
 */
import { randomInt } from 'node:crypto';
import { seededRandom } from '../domain/random';
import { MOCK_FAULTS, type MockDelay, type MockFault, type MockFaultRule } from '../domain/mocks';
import type { MockExchange } from './exchange';

/** Largest delay in ms (a selector's, a distribution's cap by default: WireMock's `maxValue` default). */
export const MAX_DELAY_MS = 60_000;
/** Scope/design counters kept per process before they are all forgotten (and start again from 0). */
export const MAX_COUNTERS = 100_000;

/** What the chaos stage reads of a design (its `options`: delay, faults, seed). */
export interface ChaosDesign {
  id: string;
  delay?: MockDelay;
  faults?: MockFaultRule[];
  seed?: number;
}

/** What the chaos stage decided for one answer. */
export interface ChaosDecision {
  /** Milliseconds to wait before answering (0: none). */
  delayMs: number;
  /** The fault to carry out instead of the answer, when one was drawn or selected. */
  fault?: MockFault;
  /** For `status`: the status to answer (500–599). */
  status?: number;
}

/** A bad `_delay_`/`_fault_` selector: the engine answers 400 `mock-bad-selector` with this detail. */
export interface ChaosSelectorError {
  error: string;
}

/**
 * A 32-bit hash of text (FNV-1a), for seeding: the same text gives the same number everywhere.
 */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export { seededRandom };

/** A standard normal draw N(0, 1) from two uniform draws (Box–Muller). */
export function standardNormal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * One delay of `delay`, whole milliseconds, 0 to {@link MAX_DELAY_MS}: `fixed` as given; `uniform`
 * between `lower` and `upper` (inclusive of both ends when rounded); `lognormal` WireMock's
 * exp(ln(median) + sigma·N(0,1)), capped at `maxValue` (default 60,000). Pure given `random`.
 */
export function sampleDelay(delay: MockDelay, random: () => number): number {
  let ms: number;
  switch (delay.type) {
    case 'fixed':
      ms = delay.milliseconds;
      break;
    case 'uniform': {
      const lower = Math.min(delay.lower, delay.upper);
      const upper = Math.max(delay.lower, delay.upper);
      ms = lower + random() * (upper - lower);
      break;
    }
    case 'lognormal': {
      const cap = Math.min(delay.maxValue ?? MAX_DELAY_MS, MAX_DELAY_MS);
      ms = Math.min(cap, Math.exp(Math.log(Math.max(delay.median, 1e-9)) + delay.sigma * standardNormal(random)));
      break;
    }
  }
  return Math.max(0, Math.min(MAX_DELAY_MS, Math.round(ms)));
}

/**
 * The fault `rules` give for one uniform draw `u` in [0, 1): the rules are laid end to end on
 * [0, 1) by their probabilities in their order (their sum past 1 is cut at 1), and the rule whose
 * stretch holds `u` applies; none when `u` falls past them all.
 */
export function pickFault(rules: readonly MockFaultRule[] | undefined, u: number): MockFaultRule | undefined {
  let edge = 0;
  for (const rule of rules ?? []) {
    edge += Math.max(0, rule.probability);
    if (u < Math.min(edge, 1)) return rule;
  }
  return undefined;
}

/** A fault selector's value: a fault name, or `none`. */
const FAULT_SELECTOR_VALUES = [...MOCK_FAULTS, 'none'];

/** The engine's chaos stage: decides delays and faults, and carries out connection faults. */
export class MockChaos {
  private readonly counters = new Map<string, number>();
  private readonly seed: number;
  private readonly workspaceSeed?: (workspaceId: string) => number | null | undefined;

  /**
   * `seed`: of designs without their own (`ASSAY_MOCK_SEED`); drawn now when absent.
   * `workspaceSeed`: the workspace's seed (its mock settings, `MockSettingsView.seed`), asked
   * synchronously per request (keep it a cache lookup); it comes between the design's and `seed`.
   */
  constructor(options: { seed?: number; workspaceSeed?: (workspaceId: string) => number | null | undefined } = {}) {
    this.seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
    this.workspaceSeed = options.workspaceSeed;
  }

  /**
   * True when {@link decide} has something to do for this answer: the design has a delay or faults,
   * the response a `delay`, or the request a selector. The engine skips the stage otherwise (hot path).
   */
  static wanted(
    design: ChaosDesign | undefined,
    responseDelay: MockDelay | undefined,
    delaySelector: string | undefined,
    faultSelector: string | undefined,
  ): boolean {
    return (
      design !== undefined || responseDelay !== undefined || delaySelector !== undefined || faultSelector !== undefined
    );
  }

  /**
   * The delay and fault of one answer. The delay: `_delay_`, else the response's `delay`, else its
   * `delayMs` when above 0, else the design's `delay`. The fault: `_fault_`, else a draw on the
   * design's `faults`. Draws (fault first, then delay) come from the source of (seed, design, n-th
   * request of the scope to the design). A bad selector is a {@link ChaosSelectorError}.
   */
  decide(
    ex: MockExchange,
    design: ChaosDesign | undefined,
    designId: string,
    response: { delay?: MockDelay; delayMs: number },
    selectors: { delay?: string; fault?: string },
  ): ChaosDecision | ChaosSelectorError {
    let selectedDelay: number | undefined;
    if (selectors.delay !== undefined) {
      const n = Number(selectors.delay);
      if (selectors.delay.trim() === '' || !Number.isInteger(n) || n < 0 || n > MAX_DELAY_MS)
        return {
          error: `The _delay_ selector "${selectors.delay.slice(0, 100)}" is not a whole number of ms from 0 to ${MAX_DELAY_MS}.`,
        };
      selectedDelay = n;
    }
    let selectedFault: MockFault | 'none' | undefined;
    if (selectors.fault !== undefined) {
      if (!FAULT_SELECTOR_VALUES.includes(selectors.fault))
        return {
          error: `The _fault_ selector "${selectors.fault.slice(0, 100)}" is not one of ${FAULT_SELECTOR_VALUES.join(', ')}.`,
        };
      selectedFault = selectors.fault as MockFault | 'none';
    }
    const random = this.source(ex.scope, designId, design?.seed ?? this.workspaceSeed?.(ex.workspaceId) ?? undefined);
    const drawn = pickFault(design?.faults, random());
    const delay = response.delay ?? (response.delayMs > 0 ? undefined : design?.delay);
    const drawnDelay = delay ? sampleDelay(delay, random) : response.delayMs;
    const decision: ChaosDecision = { delayMs: selectedDelay ?? drawnDelay };
    const fault = selectedFault ?? drawn?.fault;
    if (fault && fault !== 'none') {
      decision.fault = fault;
      if (fault === 'status') {
        const rule = drawn?.fault === 'status' ? drawn : design?.faults?.find((f) => f.fault === 'status');
        decision.status = rule?.status ?? 503;
      }
    }
    return decision;
  }

  /** The random source of the next request of `scope` to `designId` (see the module comment). */
  private source(scope: string | null, designId: string, designSeed: number | undefined): () => number {
    const key = `${scope ?? ''}\u0000${designId}`;
    const n = this.counters.get(key) ?? 0;
    if (this.counters.size >= MAX_COUNTERS && n === 0) this.counters.clear();
    this.counters.set(key, n + 1);
    return seededRandom(hash32(`${designSeed ?? this.seed}|${designId}|${n}`));
  }

  /**
   * Carries out a connection fault on the exchange's socket (not `status`, which the engine answers
   * as a problem): `connection-reset` destroys it with a TCP RST; `empty-response` closes it without
   * a byte; `malformed-chunk` sends a status line and headers announcing chunked encoding, then a
   * chunk whose size is not hexadecimal, and closes; `random-data` sends bytes that are not HTTP and
   * closes. A client sees a network error, never an HTTP answer.
   */
  static inject(ex: MockExchange, fault: Exclude<MockFault, 'status'>): void {
    const socket = ex.req.socket;
    switch (fault) {
      case 'connection-reset':
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        return;
      case 'empty-response':
        socket.end();
        socket.destroySoon?.();
        return;
      case 'malformed-chunk':
        socket.end(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n' +
            'zz\r\n{"partial": tr\r\n',
        );
        return;
      case 'random-data': {
        const random = seededRandom(hash32(`${ex.startedAt}|${ex.path}`));
        // Not starting with "HTTP/": no client takes it for a status line.
        const bytes = Buffer.alloc(64, 0);
        for (let i = 0; i < bytes.length; i++) bytes[i] = 0x80 + Math.floor(random() * 0x7f);
        socket.end(bytes);
        return;
      }
    }
  }
}
