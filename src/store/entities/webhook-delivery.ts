import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, TimestampColumn } from './columns';

export type DeliveryEvent = 'complete' | 'failure';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One outgoing webhook delivery of a run: its attempts and outcome. */
@Entity('webhook_deliveries')
@Index('uq_webhook_deliveries_entry', ['runId', 'event', 'position'], { unique: true })
export class WebhookDelivery {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  runId!: string;

  @IdColumn()
  deploymentId!: string;

  /** Which array the entry is in: onComplete (`complete`) or onFailure (`failure`). */
  @Column({ type: 'varchar', length: 10 })
  event!: DeliveryEvent;

  /** Index of the entry in its array. */
  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 10 })
  method!: string;

  @Column({ type: 'varchar', length: 10 })
  status!: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'int', nullable: true })
  lastStatusCode!: number | null;

  @Column({ type: 'text', nullable: true })
  lastError!: string | null;

  @TimestampColumn({ nullable: true })
  deliveredAt!: Date | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
