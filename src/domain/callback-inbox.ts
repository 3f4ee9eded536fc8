/**
 * The callbacks a workflow received and has not consumed yet (docs/async.md "Callbacks"), per
 * Callback node key (src/domain/callback-address.ts `callbackKey`), in arrival order. Filled by the
 * `callback` signal handler (workflows/run.ts, workflows/segment.ts), read by the workflow port's
 * waits; carried across continue-as-new (ResumeState `callbacks`). Pure and deterministic.
 *
 * Bounded: at most {@link INBOX_PER_KEY} callbacks per key and {@link INBOX_BYTES} in all (the
 * buffer is workflow state and goes into continue-as-new); beyond either the oldest are dropped and
 * counted in `dropped`.
 */
import type { ReceivedCallback } from './types';
import { jsonBytes } from './limits';

/** Callbacks kept per key. */
export const INBOX_PER_KEY = 100;
/** Bytes (JSON) of all kept callbacks together. */
export const INBOX_BYTES = 1024 * 1024;

/** What the API signals: the Callback node's key and the request received. */
export interface CallbackDelivery {
  key: string;
  callback: ReceivedCallback;
}

/** One kept callback with its arrival number (so a wait knows what it has already looked at). */
export interface InboxEntry {
  seq: number;
  bytes: number;
  callback: ReceivedCallback;
}

/** The inbox as continue-as-new carries it. */
export interface CallbackInboxState {
  seq: number;
  queues: Record<string, InboxEntry[]>;
  dropped: Record<string, number>;
}

export class CallbackInbox {
  private seq: number;
  private readonly queues: Map<string, InboxEntry[]>;
  readonly dropped: Record<string, number>;
  private bytes = 0;

  constructor(state?: CallbackInboxState) {
    this.seq = state?.seq ?? 0;
    this.queues = new Map(Object.entries(state?.queues ?? {}).map(([k, q]) => [k, [...q]]));
    this.dropped = { ...(state?.dropped ?? {}) };
    for (const q of this.queues.values()) for (const e of q) this.bytes += e.bytes;
  }

  /** Keeps a delivered callback (the signal handler), dropping the oldest beyond the bounds. */
  add(delivery: CallbackDelivery): void {
    const queue = this.queues.get(delivery.key) ?? [];
    this.queues.set(delivery.key, queue);
    const entry = { seq: ++this.seq, bytes: jsonBytes(delivery.callback), callback: delivery.callback };
    queue.push(entry);
    this.bytes += entry.bytes;
    if (queue.length > INBOX_PER_KEY) this.drop(delivery.key, queue);
    while (this.bytes > INBOX_BYTES) {
      // The key whose oldest entry is the oldest of all.
      let oldest: [string, InboxEntry[]] | undefined;
      for (const [k, q] of this.queues) if (q.length && (!oldest || q[0]!.seq < oldest[1][0]!.seq)) oldest = [k, q];
      if (!oldest) break;
      this.drop(oldest[0], oldest[1]);
    }
  }

  private drop(key: string, queue: InboxEntry[]): void {
    const gone = queue.shift();
    if (!gone) return;
    this.bytes -= gone.bytes;
    this.dropped[key] = (this.dropped[key] ?? 0) + 1;
  }

  /** The kept callbacks at `key` that arrived after `afterSeq`, oldest first. */
  after(key: string, afterSeq: number): InboxEntry[] {
    return (this.queues.get(key) ?? []).filter((e) => e.seq > afterSeq);
  }

  /** Whether a callback arrived at `key` after `afterSeq`. */
  has(key: string, afterSeq: number): boolean {
    const q = this.queues.get(key);
    return !!q && q.length > 0 && q[q.length - 1]!.seq > afterSeq;
  }

  /** Removes (consumes) the entry `seq` at `key`. */
  take(key: string, seq: number): void {
    const q = this.queues.get(key);
    const i = q ? q.findIndex((e) => e.seq === seq) : -1;
    if (i < 0) return;
    this.bytes -= q![i]!.bytes;
    q!.splice(i, 1);
  }

  /** The state continue-as-new carries; undefined when nothing is kept or counted. */
  state(): CallbackInboxState | undefined {
    const queues: Record<string, InboxEntry[]> = {};
    for (const [k, q] of this.queues) if (q.length) queues[k] = q;
    if (!Object.keys(queues).length && !Object.keys(this.dropped).length) return undefined;
    return { seq: this.seq, queues, dropped: { ...this.dropped } };
  }
}
