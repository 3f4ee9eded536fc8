/**
 * Column helpers shared by the entities, so both dialects (MySQL/MariaDB and SQLite) get the same
 * definitions: timestamps keep milliseconds, identifiers are short strings, JSON is a native JSON
 * column on MySQL 8 and MariaDB (an alias of LONGTEXT there) and TEXT on SQLite.
 */
import { Column, type ColumnOptions } from 'typeorm';

/** A prefixed identifier column (`run_01J...`): up to 40 characters. */
export function IdColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'varchar', length: 40, ...options });
}

/** A UTC timestamp with millisecond precision. */
export function TimestampColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'datetime', precision: 3, ...options });
}

/** A JSON document. */
export function JsonColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'json', ...options });
}

/**
 * TypeORM's partial-entity types (used by `update` and `upsert`) recurse into JSON documents and
 * cannot describe `unknown` fields inside them. JSON column values pass through this typed no-op.
 */
export function jsonValue<T>(value: T): never {
  return value as never;
}
