import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Folders with hooks and an auth profile, and a test case's own `hooks` (docs/flows.md "Hooks").
 * The nullable column is added in place (SQLite's ADD COLUMN) rather than by rebuilding `test_cases`,
 * so later migrations that rebuild the table start from a definition that has it.
 */
export class FoldersAndHooks1795900000000 implements MigrationInterface {
    name = 'FoldersAndHooks1795900000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "folders" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "path" varchar(255) NOT NULL, "hooks" json, "authProfile" varchar(100), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_folders_path" ON "folders" ("workspaceId", "path") `);
        await queryRunner.query(`ALTER TABLE "test_cases" ADD COLUMN "hooks" json`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "test_cases" DROP COLUMN "hooks"`);
        await queryRunner.query(`DROP INDEX "uq_folders_path"`);
        await queryRunner.query(`DROP TABLE "folders"`);
    }

}
