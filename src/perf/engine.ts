/**
 * The load engine: drives one shard of a load profile (src/perf/profile.ts) by calling an
 * iteration function for its virtual users, at the times the executor says, and nothing else — it
 * knows neither HTTP nor flows (activities/load.ts gives it an iteration that runs the runner's test
 * cases through the interpreter).
 *
 * Time is the profile's: `elapsedMs` into the profile, which starts at the position given (0, or
 * the last heartbeat's when an activity resumes after a crash) and moves with the wall clock while
 * the engine runs. So a resumed shard continues the profile where it stopped, and the outage shows
 * as a gap in the wall-clock time series.
 *
 * - VU executors (`constant-vus`, `ramping-vus`): the shard's share of the target VUs
 *   ({@link shareOf}) loop over iterations, with the profile's think time after each; VUs above a
 *   falling target finish their iteration and stop; an iteration still running `gracefulRampDown`
 *   after its VU was told to stop is abandoned (counted interrupted).
 * - Arrival-rate executors: global iteration `k` starts at {@link arrivalTime}`(k)`; the shard runs
 *   `k ≡ shard (mod shards)` on a free VU of its pool (`preAllocatedVUs`, growing to `maxVUs`,
 *   each its share); with none free the iteration is dropped (k6's `dropped_iterations`).
 * - At the end of the plan no iteration starts; those under way get `gracefulStop`, then are
 *   abandoned. An abandoned iteration's later measurements must not be recorded: iterations check
 *   {@link VuIterationContext.live}.
 *
 * Live control ({@link LoadEngine.applyControl}, src/domain/load-control.ts; docs/performance.md
 * "Steering a running test"): the run's absolute control state, applied as the shard reads it.
 * - Pause: no iteration starts (VUs finish the one under way, then wait; due arrivals wait, none is
 *   dropped) and the profile clock stops — `elapsedMs` leaves paused time out, so the profile, its
 *   stages and a resumed attempt continue where the pause began. Resume starts the clock again.
 * - Scale: the VU target (VU executors) or the arrival rate per `timeUnit` (arrival-rate executors)
 *   is held from the moment the shard applies it to the end of the profile, later stages overridden,
 *   split over shards as the profile is ({@link shareOf}). VUs above the profile's peak get fresh
 *   globally unique numbers; an arrival-rate pool stays bounded by `maxVUs`.
 * - Stop: no iteration starts; those under way get `gracefulStop`; the shard ends normally.
 */
import type { LoadControlState } from '../domain/load-control';
import { arrivalTime, plannedMs, shareOf, vusAt, type LoadProfile } from './profile';

/** Where a shard is in its profile: what a heartbeat carries so a retry resumes there. */
export interface EnginePosition {
  /** Milliseconds into the profile. */
  elapsedMs: number;
  /** Arrival-rate executors: the next global iteration index this shard starts. */
  nextArrival: number;
  /**
   * Arrival-rate executors scaled by a `rate` command: from profile time `anchorMs` (ms) global
   * iteration `k` starts at `anchorMs + k × timeUnit / rate`; this shard has started `next` of its
   * own since (its k are `shard + j × shards`). Absent: the profile's own schedule.
   */
  rateFrom?: { anchorMs: number; rate: number; next: number };
}

/** The last control state a shard (part) applied: its command number and when (epoch ms). */
export interface AppliedControl {
  seq: number;
  appliedAt: number;
  paused: boolean;
  stopped: boolean;
}

/** What an iteration is told. */
export interface VuIterationContext {
  /** The VU's number, 1-based and unique across shards (k6's `__VU`). */
  vu: number;
  /** The VU's iteration count, 0-based (k6's `__ITER`). */
  iteration: number;
  /** Epoch ms by which the iteration must end (its requests' deadlines). */
  deadlineMs: number;
  /** False once the engine abandoned the iteration: record nothing more. */
  live(): boolean;
}

export type VuIterationFn = (ctx: VuIterationContext) => Promise<void>;

/** Calls the engine makes as it runs (progress and accounting). */
export interface EngineEvents {
  /** VUs active changed (called at most once per tick). */
  vus?(active: number, nowMs: number): void;
  /** An arrival-rate iteration was due with no VU free. */
  dropped?(): void;
  /** An iteration was abandoned at a graceful stop. */
  interrupted?(): void;
}

/** Milliseconds between the engine's ticks (VU targets are re-read, VUs counted). */
export const TICK_MS = 100;

interface Vu {
  id: number;
  iteration: number;
  busy: boolean;
  /** Its loop is running (VU executors). */
  looping?: boolean;
  /** Set when the VU must stop after its iteration; epoch ms when it is abandoned. */
  stopBy?: number;
  current?: { live: boolean; done: Promise<void> };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

export class LoadEngine {
  private readonly resumedAt = Date.now();
  private readonly startElapsed: number;
  private nextArrival: number;
  private readonly vus: Vu[] = [];
  private stopped = false;
  private readonly planned: number;
  /** Stop commanded: no iteration starts; the shard drains with `gracefulStop` and ends. */
  private ending = false;
  /** Epoch ms the current pause began. */
  private pausedSince?: number;
  /** Milliseconds paused in this attempt before the current pause. */
  private pausedTotal = 0;
  /** Resolves when a pause ends (resume, stop). */
  private gate?: { promise: Promise<void>; open(): void };
  private vuTarget?: number;
  private rateFrom?: EnginePosition['rateFrom'];
  private applied: AppliedControl = { seq: 0, appliedAt: 0, paused: false, stopped: false };

  constructor(
    private readonly profile: LoadProfile,
    private readonly shard: number,
    private readonly iterate: VuIterationFn,
    start: EnginePosition,
    private readonly events: EngineEvents = {},
  ) {
    this.startElapsed = start.elapsedMs;
    this.nextArrival = start.nextArrival || shard;
    this.planned = plannedMs(profile);
    if (start.rateFrom) this.rateFrom = { ...start.rateFrom };
  }

  /** Milliseconds paused in this attempt, the current pause included. */
  private pausedMs(now: number): number {
    return this.pausedTotal + (this.pausedSince === undefined ? 0 : now - this.pausedSince);
  }

  /** Milliseconds into the profile now (paused time left out). */
  elapsedMs(): number {
    const now = Date.now();
    return this.startElapsed + (now - this.resumedAt) - this.pausedMs(now);
  }

  /** The position to heartbeat. */
  position(): EnginePosition {
    return {
      elapsedMs: Math.min(this.elapsedMs(), this.planned),
      nextArrival: this.nextArrival,
      ...(this.rateFrom ? { rateFrom: { ...this.rateFrom } } : {}),
    };
  }

  /**
   * Active VUs now, as k6's `vus` metric counts them: for VU executors every VU started and not yet
   * stopped, also while it sleeps its think time between iterations; for arrival-rate executors the
   * VUs running an iteration. Paused: only VUs finishing their iteration (0 once they did).
   */
  activeVUs(): number {
    if (this.pausedSince !== undefined) return this.vus.filter((v) => v.busy).length;
    return this.vus.filter((v) => v.busy || v.looping).length;
  }

  /** Whether the profile clock is stopped by a pause. */
  paused(): boolean {
    return this.pausedSince !== undefined;
  }

  /** The control state last applied (seq 0: none) and when. */
  appliedControl(): AppliedControl {
    return { ...this.applied };
  }

  /**
   * Applies the run's control state (absolute: applying the same state again changes nothing; an
   * older `seq` than the one applied is ignored). Takes effect at the engine's next tick
   * ({@link TICK_MS}) at the latest. Called before {@link run} with the state a resumed attempt
   * reads, and whenever the shard reads a newer one.
   */
  applyControl(state: LoadControlState): void {
    if (state.seq < this.applied.seq) return;
    const now = Date.now();
    if (state.paused && this.pausedSince === undefined && !state.stopped) {
      this.pausedSince = now;
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      this.gate = { promise, open };
    } else if ((!state.paused || state.stopped) && this.pausedSince !== undefined) this.resume(now);
    if (state.stopped) this.ending = true;
    this.vuTarget = state.vus;
    if (state.rate === undefined) this.rateFrom = undefined;
    else if (this.rateFrom?.rate !== state.rate)
      this.rateFrom = { anchorMs: Math.min(this.elapsedMs(), this.planned), rate: state.rate, next: 0 };
    this.applied = { seq: state.seq, appliedAt: now, paused: this.paused(), stopped: state.stopped };
  }

  private resume(now: number): void {
    this.pausedTotal += now - (this.pausedSince ?? now);
    this.pausedSince = undefined;
    this.gate?.open();
    this.gate = undefined;
  }

  /** Stops at once: no iteration starts; those under way are abandoned. */
  stop(): void {
    this.stopped = true;
    if (this.pausedSince !== undefined) this.resume(Date.now());
  }

  /** Waits while paused (resolves at once when not). */
  private async unpaused(): Promise<void> {
    while (this.gate && !this.stopped && !this.ending) await this.gate.promise;
  }

  /** Runs the shard's part of the profile to its end (graceful stop included). */
  async run(): Promise<void> {
    const arrival =
      this.profile.executor === 'constant-arrival-rate' || this.profile.executor === 'ramping-arrival-rate';
    if (arrival) await this.runArrivals();
    else await this.runVUs();
    await this.drain(Date.now() + this.profile.gracefulStopMs);
  }

  private globalVu(local: number): number {
    return this.shard + local * this.profile.shards + 1;
  }

  /** Epoch ms at which the profile reaches `profileMs` if no pause comes (while paused: as if resumed now). */
  private wallAt(profileMs: number): number {
    return this.resumedAt + this.pausedMs(Date.now()) + (profileMs - this.startElapsed);
  }

  private startIteration(vu: Vu): Promise<void> {
    vu.busy = true;
    const current = { live: true, done: Promise.resolve() };
    const ctx: VuIterationContext = {
      vu: vu.id,
      iteration: vu.iteration++,
      deadlineMs: this.wallAt(this.planned) + this.profile.gracefulStopMs,
      live: () => current.live && !this.stopped,
    };
    current.done = this.iterate(ctx)
      .catch(() => undefined)
      .finally(() => {
        vu.busy = false;
        if (vu.current === current) vu.current = undefined;
      });
    vu.current = current;
    return current.done;
  }

  /** Abandons `vu`'s iteration (counted interrupted). */
  private abandon(vu: Vu): void {
    if (!vu.current?.live) return;
    vu.current.live = false;
    vu.busy = false;
    vu.current = undefined;
    this.events.interrupted?.();
  }

  private async runVUs(): Promise<void> {
    const thinkTime = () => {
      const { minMs, maxMs } = this.profile.thinkTime;
      return minMs + Math.random() * (maxMs - minMs);
    };
    const loop = async (vu: Vu) => {
      vu.looping = true;
      try {
        const going = () => !this.stopped && !this.ending && vu.stopBy === undefined && this.elapsedMs() < this.planned;
        while (going()) {
          await this.unpaused();
          if (!going()) break;
          await this.startIteration(vu);
          const pause = thinkTime();
          if (pause > 0 && vu.stopBy === undefined)
            await sleep(Math.min(pause, this.wallAt(this.planned) - Date.now()));
        }
      } finally {
        vu.looping = false;
      }
    };
    while (!this.stopped && !this.ending) {
      const t = this.elapsedMs();
      if (t >= this.planned) break;
      const total = this.vuTarget ?? vusAt(this.profile, t);
      const target = shareOf(total, this.profile.shards, this.shard);
      const now = Date.now();
      for (let i = 0; i < this.vus.length; i++) {
        const vu = this.vus[i]!;
        if (i >= target && vu.stopBy === undefined)
          vu.stopBy = now + (this.profile.executor === 'ramping-vus' ? this.profile.gracefulRampDownMs : 0);
        if (vu.stopBy !== undefined && vu.busy && now >= vu.stopBy) this.abandon(vu);
      }
      for (let i = 0; i < target; i++) {
        let vu = this.vus[i];
        if (!vu) {
          vu = { id: this.globalVu(i), iteration: 0, busy: false };
          this.vus[i] = vu;
        }
        if (vu.looping) continue; // a VU told to stop restarts once its last iteration ended
        vu.stopBy = undefined;
        void loop(vu);
      }
      this.events.vus?.(this.activeVUs(), now);
      await sleep(Math.min(TICK_MS, this.wallAt(this.planned) - Date.now()));
    }
    for (const vu of this.vus) vu.stopBy ??= Date.now();
  }

  private async runArrivals(): Promise<void> {
    const profile = this.profile as Extract<LoadProfile, { preAllocatedVUs: number }>;
    const maxVUs = Math.max(1, shareOf(profile.maxVUs, profile.shards, this.shard));
    const pre = Math.max(1, Math.min(maxVUs, shareOf(profile.preAllocatedVUs, profile.shards, this.shard)));
    for (let i = 0; i < pre; i++) this.vus.push({ id: this.globalVu(i), iteration: 0, busy: false });
    const idle: Vu[] = [...this.vus];
    let lastTick = 0;
    const tick = () => {
      const now = Date.now();
      if (now - lastTick >= TICK_MS) {
        lastTick = now;
        this.events.vus?.(this.activeVUs(), now);
      }
    };
    while (!this.stopped && !this.ending) {
      if (this.pausedSince !== undefined) {
        // Paused: due arrivals wait (the clock stopped), none is dropped.
        tick();
        await sleep(TICK_MS);
        continue;
      }
      const due = this.nextDue(profile);
      if (due === undefined || due >= this.planned) {
        // No arrival left before the end (unless a scale adds some): wait for the end.
        if (this.elapsedMs() >= this.planned) break;
        tick();
        await sleep(Math.min(TICK_MS, this.wallAt(this.planned) - Date.now()));
        continue;
      }
      const wait = this.wallAt(due) - Date.now();
      if (wait > 1) {
        await sleep(Math.min(wait, TICK_MS));
      } else {
        let vu = idle.pop();
        if (!vu && this.vus.length < maxVUs) {
          vu = { id: this.globalVu(this.vus.length), iteration: 0, busy: false };
          this.vus.push(vu);
        }
        if (vu) {
          const v = vu;
          void this.startIteration(v).then(() => {
            if (!this.stopped) idle.push(v);
          });
        } else this.events.dropped?.();
        this.nextArrival += profile.shards;
        if (this.rateFrom) this.rateFrom.next += 1;
        // Many arrivals due at once (high rates): yield now and then so responses are read.
        if (this.nextArrival % (64 * profile.shards) === this.shard) await new Promise((r) => setImmediate(r));
      }
      tick();
    }
  }

  /** Profile time (ms) of this shard's next arrival; undefined when none is left. */
  private nextDue(profile: Extract<LoadProfile, { timeUnitMs: number }>): number | undefined {
    const scaled = this.rateFrom;
    if (!scaled) return arrivalTime(profile, this.nextArrival);
    if (!(scaled.rate > 0)) return undefined;
    return scaled.anchorMs + ((this.shard + scaled.next * profile.shards) * profile.timeUnitMs) / scaled.rate;
  }

  /** Waits for iterations under way until `byMs`, then abandons the rest. */
  private async drain(byMs: number): Promise<void> {
    while (!this.stopped && this.vus.some((v) => v.busy) && Date.now() < byMs) {
      this.events.vus?.(this.activeVUs(), Date.now());
      await sleep(Math.min(TICK_MS, byMs - Date.now()));
    }
    for (const vu of this.vus) if (vu.busy) this.abandon(vu);
    this.events.vus?.(0, Date.now());
  }
}
