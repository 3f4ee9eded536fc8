import { Entity, PrimaryColumn, Column } from 'typeorm';

/**
 * A lease on one of a run's in-flight slots for an origin (`maxInFlight`, docs/durability.md
 * "Protecting the target"; src/net/origin-gate.ts): a row per request under way, shared by every
 * worker process of the store. Inserted when a request takes slot `slot` (the primary key makes a
 * taken slot a duplicate), deleted when its response has been read; a row whose holder died is
 * taken over once `expiresAtMs` passed (or at once, when the holder was a process of the same
 * machine that no longer exists). Deleted with the run (`discardRunGate`).
 */
@Entity('run_origin_slots')
export class RunOriginSlot {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** The origin (`scheme://host[:port]`, WHATWG URL's `origin`), or `sha256:<hex>` of one over 255 characters. */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  origin!: string;

  /** The slot, from 0 to `maxInFlight - 1`. */
  @PrimaryColumn({ type: 'int' })
  slot!: number;

  /** The gate holding the lease: its process (src/store/node-executions.ts `processOwner`) and a nonce. */
  @Column({ type: 'varchar', length: 200 })
  holder!: string;

  /** Epoch ms (the holder's clock) past which the lease may be taken over: the request's timeout and a margin. */
  @Column({ type: 'bigint' })
  expiresAtMs!: number;
}

/**
 * The pace of a run's requests to an origin (`requestsPerSecond`; src/net/origin-gate.ts): the
 * next start time a request may claim (GCRA's theoretical arrival time). Deleted with the run.
 */
@Entity('run_origin_paces')
export class RunOriginPace {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  runId!: string;

  /** As {@link RunOriginSlot.origin}. */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  origin!: string;

  /** Epoch µs (the claimer's clock) of the next free start time. */
  @Column({ type: 'bigint' })
  nextAtUs!: number;
}
