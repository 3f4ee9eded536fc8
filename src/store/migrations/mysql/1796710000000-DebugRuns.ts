import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Debug runs (docs/api.md "Debug runs", `POST /v1/test-cases/debug`): a run's `testCaseId` (the
 * saved test case a debug run's test case is a draft of) and `debugTestCase` (the test case it
 * runs); null for every other run.
 */
export class DebugRuns1796710000000 implements MigrationInterface {
    name = 'DebugRuns1796710000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`testCaseId\` varchar(40) NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`debugTestCase\` json NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`debugTestCase\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`testCaseId\``);
    }

}
