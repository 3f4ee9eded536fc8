import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, JsonColumn, TimestampColumn } from './columns';
import type { MockFault, MockViolation } from '../../domain/mocks';

/**
 * One request a mock received and how it was answered (docs/mocks.md "Journal and verification";
 * src/mock/journal.ts writes them, api/routes/mock-requests.ts lists them, `mockVerify` nodes count
 * them). Kept at most `ASSAY_MOCK_JOURNAL_MAX` per workspace and `ASSAY_MOCK_JOURNAL_TTL_SECONDS`;
 * listed newest first by (`receivedAt`, `id`).
 */
@Entity('mock_journal_entries')
@Index('ix_mock_journal_ws', ['workspaceId', 'receivedAt'])
@Index('ix_mock_journal_design', ['workspaceId', 'designId', 'receivedAt'])
@Index('ix_mock_journal_scope', ['workspaceId', 'scope', 'receivedAt'])
@Index('ix_mock_journal_received', ['receivedAt'])
export class MockJournalEntry {
  /** `mreq_…`. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  @IdColumn({ nullable: true })
  designId!: string | null;

  @IdColumn({ nullable: true })
  collectionId!: string | null;

  /** The request's scope (`X-Assay-Mock-Scope` or `/~scope`); null for the shared state. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  scope!: string | null;

  @Column({ type: 'varchar', length: 16 })
  method!: string;

  /** The path within the workspace (without `/mock/{ws}` and the scope segment), at most 2,000 characters. */
  @Column({ type: 'varchar', length: 2000 })
  path!: string;

  /** The query string without `?` (at most 4,000 characters). */
  @Column({ type: 'text' })
  query!: string;

  /** Request headers (lower-case names), secrets as `***`. */
  @JsonColumn()
  headers!: Record<string, string>;

  /** The body's first 16 KiB as text (UTF-8), or null when there was none. */
  @Column({ type: 'text', nullable: true })
  body!: string | null;

  /** The body's size in bytes (more than kept when cut). */
  @Column({ type: 'int', default: 0 })
  bodySize!: number;

  /** The status answered; 0 for a connection fault (no HTTP answer). */
  @Column({ type: 'int' })
  status!: number;

  @Column({ type: 'varchar', length: 20, nullable: true })
  fault!: MockFault | null;

  @Column({ type: 'int', default: 0 })
  delayMs!: number;

  @JsonColumn({ nullable: true })
  violations!: MockViolation[] | null;

  @Column({ type: 'varchar', length: 8 })
  source!: 'mock' | 'proxy';

  @TimestampColumn()
  receivedAt!: Date;
}
