import { MigrationInterface, QueryRunner } from "typeorm";

/** A test case's `reusable` flag (docs/reuse.md "Sub-flows"): existing test cases are not reusable. */
export class ReusableTestCases1796200000000 implements MigrationInterface {
    name = 'ReusableTestCases1796200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_cases\` ADD \`reusable\` tinyint NOT NULL DEFAULT 0`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_cases\` DROP COLUMN \`reusable\``);
    }

}
