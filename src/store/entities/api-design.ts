import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { MockResponse } from '../../domain/types';
import type { MockDesignOptions } from '../../domain/mocks';

/**
 * An API design (spec "Mock definition"): a method and a path (with `{param}` segments), optional
 * schemas, and mock responses per status. Unique per workspace by method and route shape (the
 * path with parameter names blanked), so two designs never claim the same requests.
 */
@Entity('api_designs')
@Index('uq_api_designs_route', ['workspaceId', 'method', 'routeKey'], { unique: true })
export class ApiDesign {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  name!: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description!: string;

  @Column({ type: 'varchar', length: 10 })
  method!: string;

  /** `/users/{userId}/orders`. */
  @Column({ type: 'varchar', length: 500 })
  path!: string;

  /** The path with parameter names blanked (`/users/{}/orders`): what two designs may not share. */
  @Column({ type: 'varchar', length: 500 })
  routeKey!: string;

  @JsonColumn({ nullable: true })
  requestSchema!: object | null;

  /** JSON Schemas of response bodies by status ("200": {...}). */
  @JsonColumn({ nullable: true })
  responseSchemas!: Record<string, object> | null;

  @JsonColumn()
  responses!: MockResponse[];

  /** Contract validation, parameters, latency, faults and seed (docs/mocks.md); null: the defaults. */
  @JsonColumn({ nullable: true })
  options!: MockDesignOptions | null;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
