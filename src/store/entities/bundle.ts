import { Entity, PrimaryColumn, Column } from 'typeorm';
import { JsonColumn, TimestampColumn } from './columns';

/** One module inside a bundle: its URL after redirects, content hash and size in bytes. */
export interface BundleModule {
  url: string;
  sha256: string;
  bytes: number;
}

/**
 * A bundle made by the bundler service (docs/bundler.md "Cache"), keyed by the request: the
 * SHA-256 of its parameters (URL, global name, minify, defaultAccessPath) and of the esbuild
 * version. It records the content hash of every fetched source and names the code it produced
 * ({@link BundleBlob}). Shared by every bundler process on the database; not workspace-scoped,
 * since a public URL bundles the same for everyone.
 */
@Entity('bundles')
export class Bundle {
  /** Hex SHA-256 of the request's parameters. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  /** The entry's URL after redirects. */
  @Column({ type: 'varchar', length: 2048 })
  finalUrl!: string;

  @Column({ type: 'varchar', length: 200 })
  globalName!: string;

  @Column({ type: 'boolean' })
  minify!: boolean;

  @Column({ type: 'varchar', length: 200, nullable: true })
  defaultAccessPath!: string | null;

  /** Whether the URL pins an exact version; unpinned bundles are rebuilt after a while. */
  @Column({ type: 'boolean' })
  pinned!: boolean;

  /** The code: a {@link BundleBlob} id (hex SHA-256 of the code). */
  @Column({ type: 'varchar', length: 64 })
  blobId!: string;

  /** Bytes of the code. */
  @Column({ type: 'int' })
  size!: number;

  /** Hex SHA-256 over the modules' URLs and content hashes. */
  @Column({ type: 'varchar', length: 64 })
  sourcesHash!: string;

  @JsonColumn()
  modules!: BundleModule[];

  @JsonColumn()
  warnings!: string[];

  @TimestampColumn()
  builtAt!: Date;
}

/**
 * Bundled code, addressed by its content (hex SHA-256), immutable: what `GET /blobs/{id}.js`
 * serves. The code is kept in a JSON column (a JSON string) because that is the one large-text
 * type both dialects share through TypeORM (LONGTEXT on MariaDB, JSON on MySQL, TEXT on SQLite).
 */
@Entity('bundle_blobs')
export class BundleBlob {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  /** Bytes of the code (UTF-8). */
  @Column({ type: 'int' })
  size!: number;

  @JsonColumn()
  code!: string;

  @TimestampColumn()
  createdAt!: Date;
}
