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
 */
import { arrivalTime, plannedMs, shareOf, vusAt, type LoadProfile } from './profile';

/** Where a shard is in its profile: what a heartbeat carries so a retry resumes there. */
export interface EnginePosition {
  /** Milliseconds into the profile. */
  elapsedMs: number;
  /** Arrival-rate executors: the next global iteration index this shard starts. */
  nextArrival: number;
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
  }

  /** Milliseconds into the profile now. */
  elapsedMs(): number {
    return this.startElapsed + (Date.now() - this.resumedAt);
  }

  /** The position to heartbeat. */
  position(): EnginePosition {
    return { elapsedMs: Math.min(this.elapsedMs(), this.planned), nextArrival: this.nextArrival };
  }

  /**
   * Active VUs now, as k6's `vus` metric counts them: for VU executors every VU started and not yet
   * stopped, also while it sleeps its think time between iterations; for arrival-rate executors the
   * VUs running an iteration.
   */
  activeVUs(): number {
    return this.vus.filter((v) => v.busy || v.looping).length;
  }

  /** Stops at once: no iteration starts; those under way are abandoned. */
  stop(): void {
    this.stopped = true;
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

  private wallAt(profileMs: number): number {
    return this.resumedAt + (profileMs - this.startElapsed);
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
        while (!this.stopped && vu.stopBy === undefined && this.elapsedMs() < this.planned) {
          await this.startIteration(vu);
          const pause = thinkTime();
          if (pause > 0 && vu.stopBy === undefined)
            await sleep(Math.min(pause, this.wallAt(this.planned) - Date.now()));
        }
      } finally {
        vu.looping = false;
      }
    };
    while (!this.stopped) {
      const t = this.elapsedMs();
      if (t >= this.planned) break;
      const target = shareOf(vusAt(this.profile, t), this.profile.shards, this.shard);
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
    while (!this.stopped) {
      const due = arrivalTime(profile, this.nextArrival);
      if (due === undefined || due >= this.planned) break;
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
        // Many arrivals due at once (high rates): yield now and then so responses are read.
        if (this.nextArrival % (64 * profile.shards) === this.shard) await new Promise((r) => setImmediate(r));
      }
      const now = Date.now();
      if (now - lastTick >= TICK_MS) {
        lastTick = now;
        this.events.vus?.(this.activeVUs(), now);
      }
    }
    const end = this.wallAt(this.planned);
    while (!this.stopped && Date.now() < end) await sleep(Math.min(TICK_MS, end - Date.now()));
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
