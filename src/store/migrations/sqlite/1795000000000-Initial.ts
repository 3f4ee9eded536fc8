import { MigrationInterface, QueryRunner } from "typeorm";

export class Initial1795000000000 implements MigrationInterface {
    name = 'Initial1795000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "workspaces" ("id" varchar(40) PRIMARY KEY NOT NULL, "name" varchar(100) NOT NULL, "createdAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_workspaces_name" ON "workspaces" ("name") `);
        await queryRunner.query(`CREATE TABLE "api_keys" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "prefix" varchar(16) NOT NULL, "hash" varchar(64) NOT NULL, "scope" varchar(10) NOT NULL, "createdAt" datetime(3) NOT NULL, "revokedAt" datetime(3))`);
        await queryRunner.query(`CREATE INDEX "ix_api_keys_workspace" ON "api_keys" ("workspaceId") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("hash") `);
        await queryRunner.query(`CREATE TABLE "environments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "variables" json NOT NULL, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_environments_name" ON "environments" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE TABLE "test_cases" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "folder" varchar(255) NOT NULL DEFAULT (''), "description" varchar(2000) NOT NULL DEFAULT (''), "flow" json NOT NULL, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_test_cases_name" ON "test_cases" ("workspaceId", "folder", "name") `);
        await queryRunner.query(`CREATE TABLE "test_case_tags" ("testCaseId" varchar(40) NOT NULL, "tag" varchar(100) NOT NULL, PRIMARY KEY ("testCaseId", "tag"))`);
        await queryRunner.query(`CREATE INDEX "ix_test_case_tags_tag" ON "test_case_tags" ("tag") `);
        await queryRunner.query(`CREATE TABLE "runners" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "testCaseIds" json NOT NULL, "folder" varchar(255), "tags" json NOT NULL, "order" varchar(20) NOT NULL DEFAULT ('name'), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runners_name" ON "runners" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE TABLE "runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3))`);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE TABLE "run_test_case_results" ("runId" varchar(40) NOT NULL, "position" integer NOT NULL, "testCaseId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "status" varchar(12) NOT NULL, "duration" integer NOT NULL, "assertions" integer NOT NULL, "detail" json NOT NULL, "createdAt" datetime(3) NOT NULL, PRIMARY KEY ("runId", "position"))`);
        await queryRunner.query(`DROP INDEX "ix_test_case_tags_tag"`);
        await queryRunner.query(`CREATE TABLE "temporary_test_case_tags" ("testCaseId" varchar(40) NOT NULL, "tag" varchar(100) NOT NULL, CONSTRAINT "FK_4b6db3d6084b125c0ddc3501bc7" FOREIGN KEY ("testCaseId") REFERENCES "test_cases" ("id") ON DELETE CASCADE ON UPDATE NO ACTION, PRIMARY KEY ("testCaseId", "tag"))`);
        await queryRunner.query(`INSERT INTO "temporary_test_case_tags"("testCaseId", "tag") SELECT "testCaseId", "tag" FROM "test_case_tags"`);
        await queryRunner.query(`DROP TABLE "test_case_tags"`);
        await queryRunner.query(`ALTER TABLE "temporary_test_case_tags" RENAME TO "test_case_tags"`);
        await queryRunner.query(`CREATE INDEX "ix_test_case_tags_tag" ON "test_case_tags" ("tag") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_test_case_tags_tag"`);
        await queryRunner.query(`ALTER TABLE "test_case_tags" RENAME TO "temporary_test_case_tags"`);
        await queryRunner.query(`CREATE TABLE "test_case_tags" ("testCaseId" varchar(40) NOT NULL, "tag" varchar(100) NOT NULL, PRIMARY KEY ("testCaseId", "tag"))`);
        await queryRunner.query(`INSERT INTO "test_case_tags"("testCaseId", "tag") SELECT "testCaseId", "tag" FROM "temporary_test_case_tags"`);
        await queryRunner.query(`DROP TABLE "temporary_test_case_tags"`);
        await queryRunner.query(`CREATE INDEX "ix_test_case_tags_tag" ON "test_case_tags" ("tag") `);
        await queryRunner.query(`DROP TABLE "run_test_case_results"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP TABLE "runs"`);
        await queryRunner.query(`DROP INDEX "uq_runners_name"`);
        await queryRunner.query(`DROP TABLE "runners"`);
        await queryRunner.query(`DROP INDEX "ix_test_case_tags_tag"`);
        await queryRunner.query(`DROP TABLE "test_case_tags"`);
        await queryRunner.query(`DROP INDEX "uq_test_cases_name"`);
        await queryRunner.query(`DROP TABLE "test_cases"`);
        await queryRunner.query(`DROP INDEX "uq_environments_name"`);
        await queryRunner.query(`DROP TABLE "environments"`);
        await queryRunner.query(`DROP INDEX "uq_api_keys_hash"`);
        await queryRunner.query(`DROP INDEX "ix_api_keys_workspace"`);
        await queryRunner.query(`DROP TABLE "api_keys"`);
        await queryRunner.query(`DROP INDEX "uq_workspaces_name"`);
        await queryRunner.query(`DROP TABLE "workspaces"`);
    }

}
