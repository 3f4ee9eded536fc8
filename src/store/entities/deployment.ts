import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import type { LoadProfileInput } from '../../perf/profile';
import type { Durability, ParallelSettings } from '../../domain/types';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';

/** One outgoing webhook (spec "Events"): where to send, how, and the payload template. */
export interface OutgoingWebhook {
  url: string;
  /** HTTP method (default POST). */
  method?: string;
  headers?: Record<string, string>;
  /** Body template; absent: the default payload (docs/deployments.md). */
  payload?: unknown;
}

export interface DeploymentWebhooks {
  onComplete?: OutgoingWebhook[];
  onFailure?: OutgoingWebhook[];
}

/**
 * A deployment (spec "Deployment"): a runner paired with an environment, with an optional cron
 * schedule (a Temporal Schedule), an optional incoming webhook address and outgoing webhooks.
 */
@Entity('deployments')
@Index('uq_deployments_name', ['workspaceId', 'name'], { unique: true })
export class Deployment {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  runnerName!: string;

  @Column({ type: 'varchar', length: 100 })
  environmentName!: string;

  /** Five-field cron expression, or null for no schedule. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  schedule!: string | null;

  /** IANA time zone of the schedule. */
  @Column({ type: 'varchar', length: 64, default: 'UTC' })
  timezone!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'boolean', default: false })
  webhookEnabled!: boolean;

  /** The secret path segment of the incoming webhook address. */
  @Index('uq_deployments_webhook', { unique: true })
  @Column({ type: 'varchar', length: 64, nullable: true })
  webhookId!: string | null;

  /** SHA-256 (hex) of the incoming webhook's bearer token. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  webhookTokenHash!: string | null;

  /** Refuse incoming webhook calls that carry neither the token nor an API key (default true). */
  @Column({ type: 'boolean', default: true })
  webhookRequireAuth!: boolean;

  /** Outgoing webhooks; their header values are sealed (`openWebhookHeaders`, ./deployment-secrets.ts). */
  @JsonColumn({ nullable: true })
  webhooks!: DeploymentWebhooks | null;

  /**
   * Key of the HMAC-SHA256 signature of outgoing webhooks (x-assay-signature), sealed with the key
   * ring (`v1.…`; a row from before encryption may still hold it plain): read it with
   * `openSigningSecret` (./deployment-secrets.ts). 512 characters: a 200-character secret sealed.
   */
  @Column({ type: 'varchar', length: 512 })
  signingSecret!: string;

  /** When the Temporal Schedule last matched this row; null while a change is not synced yet. */
  @TimestampColumn({ nullable: true })
  scheduleSyncedAt!: Date | null;

  /** Why the last sync with Temporal failed, if it did. */
  @Column({ type: 'text', nullable: true })
  scheduleError!: string | null;

  /**
   * A load profile (src/perf/profile.ts) that makes this deployment's scheduled and webhook's runs performance runs, unless a run
   * gives its own; null for functional runs.
   */
  @JsonColumn({ nullable: true })
  loadProfile!: LoadProfileInput | null;

  /** The baseline of its runs (a run id or `lastPassing`; docs/history.md "Baselines"), over the runner's; null: the runner's. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  baseline!: string | null;

  /**
   * Its runs' durability mode (src/domain/types.ts `Durability`; docs/durability.md "Durability
   * modes"), over the runner's, unless a run gives its own; null: the runner's.
   */
  @Column({ type: 'varchar', length: 16, nullable: true })
  durability!: Durability | null;

  /** Its runs' scheduling settings (docs/parallel.md), each over the runner's, unless a run sets its own; null: the runner's. */
  @JsonColumn({ nullable: true })
  parallel!: ParallelSettings | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
