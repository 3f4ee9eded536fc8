import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';

/** One mock response of a design (spec "Mock definition"). */
export interface MockResponse {
  /** HTTP status, 100 to 599. */
  status: number;
  /** Identifies the response within its status (spec: numeric `code`, unique per status). */
  code: number;
  name?: string;
  /** The JSON body; generated from the response's schema when absent at save time. */
  data?: unknown;
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Evaluate `{{param}}` and `{{faker.module.fn}}` placeholders (off by default, spec rule 7). */
  dynamic?: boolean;
  /** A JSON Schema for this response's body (else the design's `responseSchemas[status]`). */
  schema?: object;
}

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

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}
