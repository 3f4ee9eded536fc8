import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from './columns';

/**
 * A workspace's mock settings (`GET/PUT /v1/mock-settings`, src/domain/mocks.ts
 * `MockSettingsView`): the validation and recording proxy (src/mock/proxy.ts) and the seed of
 * designs without their own. No row: the defaults (proxy off, no seed).
 */
@Entity('mock_settings')
export class MockSettings {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  workspaceId!: string;

  /** The proxy's target base URL (`https://api.example.com/v2`); null: the proxy is off. */
  @Column({ type: 'varchar', length: 2000, nullable: true })
  proxyUrl!: string | null;

  /** `validate` or `record`; null when the proxy is off. */
  @Column({ type: 'varchar', length: 10, nullable: true })
  proxyMode!: 'validate' | 'record' | null;

  @Column({ type: 'int', nullable: true })
  seed!: number | null;

  @TimestampColumn()
  updatedAt!: Date;
}
