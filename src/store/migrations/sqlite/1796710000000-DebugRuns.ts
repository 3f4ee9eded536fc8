import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Debug runs (docs/api.md "Debug runs", `POST /v1/test-cases/debug`): a run's `testCaseId` (the
 * saved test case a debug run's test case is a draft of) and `debugTestCase` (the test case it
 * runs); null for every other run. ADD COLUMN, not a rebuild of the table, so that columns other
 * migrations add to `runs` are kept whatever their order.
 */
export class DebugRuns1796710000000 implements MigrationInterface {
    name = 'DebugRuns1796710000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "testCaseId" varchar(40)`);
        await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "debugTestCase" json`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "debugTestCase"`);
        await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "testCaseId"`);
    }

}
