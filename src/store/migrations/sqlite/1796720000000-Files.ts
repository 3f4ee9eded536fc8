import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Workspace files (docs/api.md "Files"): `files` (name unique per workspace, content type, size,
 * SHA-256), their content deduplicated per workspace in `file_blobs` (one per workspace and SHA-256)
 * and its bytes in `file_blob_chunks` (BLOB rows of at most 60 KiB, src/store/entities/file.ts).
 */
export class Files1796720000000 implements MigrationInterface {
    name = 'Files1796720000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "files" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "contentType" varchar(255) NOT NULL, "size" integer NOT NULL, "sha256" varchar(64) NOT NULL, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE INDEX "ix_files_blob" ON "files" ("workspaceId", "sha256") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_files_name" ON "files" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE TABLE "file_blobs" ("workspaceId" varchar(40) NOT NULL, "sha256" varchar(64) NOT NULL, "size" integer NOT NULL, "createdAt" datetime(3) NOT NULL, PRIMARY KEY ("workspaceId", "sha256"))`);
        await queryRunner.query(`CREATE TABLE "file_blob_chunks" ("workspaceId" varchar(40) NOT NULL, "sha256" varchar(64) NOT NULL, "seq" integer NOT NULL, "bytes" blob NOT NULL, PRIMARY KEY ("workspaceId", "sha256", "seq"))`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "file_blob_chunks"`);
        await queryRunner.query(`DROP TABLE "file_blobs"`);
        await queryRunner.query(`DROP INDEX "uq_files_name"`);
        await queryRunner.query(`DROP INDEX "ix_files_blob"`);
        await queryRunner.query(`DROP TABLE "files"`);
    }

}
