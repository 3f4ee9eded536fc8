import { Entity, PrimaryColumn, Column, Index } from 'typeorm';
import { IdColumn, TimestampColumn } from './columns';

/**
 * Bytes per row of {@link FileBlobChunk}: under MySQL's BLOB limit (65,535 bytes), so that one
 * column type serves both dialects (SQLite has no LONGBLOB, and TypeORM compares the migrated schema
 * with the entities), and no single statement carries a whole file past `max_allowed_packet`
 * (16 MiB by default on MariaDB).
 */
export const FILE_CHUNK_BYTES = 60 * 1024;

/**
 * A file of a workspace (docs/api.md "Files"), addressed by its name (unique per workspace) or id
 * (`file_<ulid>`). Its content is the {@link FileBlob} of the same workspace with its `sha256`:
 * files with the same content share one blob.
 */
@Entity('files')
@Index('uq_files_name', ['workspaceId', 'name'], { unique: true })
@Index('ix_files_blob', ['workspaceId', 'sha256'])
export class WorkspaceFile {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @IdColumn()
  workspaceId!: string;

  /** 1–200 characters of letters, digits, `_ . - /` (api/routes/files.ts `FILE_NAME`). */
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The media type it was uploaded with (`Content-Type`), default `application/octet-stream`. */
  @Column({ type: 'varchar', length: 255 })
  contentType!: string;

  /** Bytes. */
  @Column({ type: 'int' })
  size!: number;

  /** Hex SHA-256 of the content: its {@link FileBlob}. */
  @Column({ type: 'varchar', length: 64 })
  sha256!: string;

  @TimestampColumn()
  createdAt!: Date;

  @TimestampColumn()
  updatedAt!: Date;
}

/**
 * Content of a workspace's files, one per distinct content (hex SHA-256) and workspace; its bytes are
 * its {@link FileBlobChunk}s. Deleted with the last file that has it; the workspace's quota
 * (`ASSAY_QUOTA_FILE_BYTES`) counts the sizes of these.
 */
@Entity('file_blobs')
export class FileBlob {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  workspaceId!: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  sha256!: string;

  /** Bytes. */
  @Column({ type: 'int' })
  size!: number;

  @TimestampColumn()
  createdAt!: Date;
}

/** Bytes `seq × FILE_CHUNK_BYTES` onwards of a {@link FileBlob}: at most {@link FILE_CHUNK_BYTES}. */
@Entity('file_blob_chunks')
export class FileBlobChunk {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  workspaceId!: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  sha256!: string;

  /** 0, 1, …: the chunk's place in the content. */
  @PrimaryColumn({ type: 'int' })
  seq!: number;

  @Column({ type: 'blob' })
  bytes!: Buffer;
}
