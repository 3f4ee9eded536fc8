import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Runs with a memory (docs/history.md): the test cases' history `test_case_history` and the flaky
 * flags `flaky_test_cases`; runners' and deployments' `baseline`, runners' `quarantineFlaky`; a
 * run's `planHash` and `origin`; a failed result's sealed `resumeState`. ADD COLUMN, not rebuilds
 * of the tables, so that columns other migrations add are kept whatever their order.
 */
export class RunHistory1796300000000 implements MigrationInterface {
    name = 'RunHistory1796300000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "test_case_history" ("runId" varchar(40) NOT NULL, "position" integer NOT NULL, "workspaceId" varchar(40) NOT NULL, "testCaseId" varchar(40) NOT NULL, "testCaseName" varchar(200) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "deploymentId" varchar(40), "trigger" varchar(12) NOT NULL, "kind" varchar(12) NOT NULL, "status" varchar(12) NOT NULL, "durationMs" integer NOT NULL, "assertions" integer NOT NULL DEFAULT (0), "passedAssertions" integer NOT NULL DEFAULT (0), "failedNode" varchar(200), "failure" text, "commitRef" varchar(100), "definitionHash" varchar(64) NOT NULL, "flaky" boolean NOT NULL DEFAULT (0), "quarantined" boolean NOT NULL DEFAULT (0), "nodes" json, "ranAt" datetime(3) NOT NULL, PRIMARY KEY ("runId", "position"))`);
        await queryRunner.query(`CREATE INDEX "ix_history_ran" ON "test_case_history" ("ranAt") `);
        await queryRunner.query(`CREATE INDEX "ix_history_runner_env" ON "test_case_history" ("workspaceId", "testCaseId", "runnerName", "environmentName", "ranAt") `);
        await queryRunner.query(`CREATE INDEX "ix_history_test_case" ON "test_case_history" ("workspaceId", "testCaseId", "ranAt") `);
        await queryRunner.query(`CREATE TABLE "flaky_test_cases" ("workspaceId" varchar(40) NOT NULL, "testCaseId" varchar(40) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "testCaseName" varchar(200) NOT NULL, "flips" integer NOT NULL, "window" integer NOT NULL, "flipRate" double NOT NULL, "definitionHash" varchar(64) NOT NULL, "lastRunId" varchar(40) NOT NULL, "flaggedAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, PRIMARY KEY ("workspaceId", "testCaseId", "runnerName", "environmentName"))`);
        await queryRunner.query(`ALTER TABLE "runners" ADD COLUMN "baseline" varchar(40)`);
        await queryRunner.query(`ALTER TABLE "runners" ADD COLUMN "quarantineFlaky" boolean NOT NULL DEFAULT (0)`);
        await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "planHash" varchar(64)`);
        await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "origin" json`);
        await queryRunner.query(`ALTER TABLE "run_test_case_results" ADD COLUMN "resumeState" text`);
        await queryRunner.query(`ALTER TABLE "deployments" ADD COLUMN "baseline" varchar(40)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "deployments" DROP COLUMN "baseline"`);
        await queryRunner.query(`ALTER TABLE "run_test_case_results" DROP COLUMN "resumeState"`);
        await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "origin"`);
        await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "planHash"`);
        await queryRunner.query(`ALTER TABLE "runners" DROP COLUMN "quarantineFlaky"`);
        await queryRunner.query(`ALTER TABLE "runners" DROP COLUMN "baseline"`);
        await queryRunner.query(`DROP TABLE "flaky_test_cases"`);
        await queryRunner.query(`DROP INDEX "ix_history_test_case"`);
        await queryRunner.query(`DROP INDEX "ix_history_runner_env"`);
        await queryRunner.query(`DROP INDEX "ix_history_ran"`);
        await queryRunner.query(`DROP TABLE "test_case_history"`);
    }

}
