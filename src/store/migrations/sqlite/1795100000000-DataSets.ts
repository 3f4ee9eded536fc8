import { MigrationInterface, QueryRunner } from "typeorm";

export class DataSets1795100000000 implements MigrationInterface {
    name = 'DataSets1795100000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_test_cases_name"`);
        await queryRunner.query(`CREATE TABLE "temporary_test_cases" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "folder" varchar(255) NOT NULL DEFAULT (''), "description" varchar(2000) NOT NULL DEFAULT (''), "flow" json NOT NULL, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "dataSets" json)`);
        await queryRunner.query(`INSERT INTO "temporary_test_cases"("id", "workspaceId", "name", "folder", "description", "flow", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "folder", "description", "flow", "createdAt", "updatedAt" FROM "test_cases"`);
        await queryRunner.query(`DROP TABLE "test_cases"`);
        await queryRunner.query(`ALTER TABLE "temporary_test_cases" RENAME TO "test_cases"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_test_cases_name" ON "test_cases" ("workspaceId", "folder", "name") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_test_cases_name"`);
        await queryRunner.query(`ALTER TABLE "test_cases" RENAME TO "temporary_test_cases"`);
        await queryRunner.query(`CREATE TABLE "test_cases" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "folder" varchar(255) NOT NULL DEFAULT (''), "description" varchar(2000) NOT NULL DEFAULT (''), "flow" json NOT NULL, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`INSERT INTO "test_cases"("id", "workspaceId", "name", "folder", "description", "flow", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "folder", "description", "flow", "createdAt", "updatedAt" FROM "temporary_test_cases"`);
        await queryRunner.query(`DROP TABLE "temporary_test_cases"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_test_cases_name" ON "test_cases" ("workspaceId", "folder", "name") `);
    }

}
