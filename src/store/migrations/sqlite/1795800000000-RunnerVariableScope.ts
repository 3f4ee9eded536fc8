import { MigrationInterface, QueryRunner } from "typeorm";

/** A runner's `variableScope` (docs/flows.md "Variables across test cases"): existing runners keep `testCase`. */
export class RunnerVariableScope1795800000000 implements MigrationInterface {
    name = 'RunnerVariableScope1795800000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_runners_name"`);
        await queryRunner.query(`CREATE TABLE "temporary_runners" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "testCaseIds" json NOT NULL, "folder" varchar(255), "tags" json NOT NULL, "order" varchar(20) NOT NULL DEFAULT ('name'), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json, "variableScope" varchar(16) NOT NULL DEFAULT ('testCase'))`);
        await queryRunner.query(`INSERT INTO "temporary_runners"("id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt", "loadProfile") SELECT "id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt", "loadProfile" FROM "runners"`);
        await queryRunner.query(`DROP TABLE "runners"`);
        await queryRunner.query(`ALTER TABLE "temporary_runners" RENAME TO "runners"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runners_name" ON "runners" ("workspaceId", "name") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_runners_name"`);
        await queryRunner.query(`ALTER TABLE "runners" RENAME TO "temporary_runners"`);
        await queryRunner.query(`CREATE TABLE "runners" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "testCaseIds" json NOT NULL, "folder" varchar(255), "tags" json NOT NULL, "order" varchar(20) NOT NULL DEFAULT ('name'), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json)`);
        await queryRunner.query(`INSERT INTO "runners"("id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt", "loadProfile") SELECT "id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt", "loadProfile" FROM "temporary_runners"`);
        await queryRunner.query(`DROP TABLE "temporary_runners"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runners_name" ON "runners" ("workspaceId", "name") `);
    }

}
