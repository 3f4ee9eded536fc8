import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A test case's `version` (docs/api.md "Test cases", "Concurrent edits"): its `ETag`, checked
 * against `If-Match` by PUT and PATCH. Existing test cases start at 1. An ADD COLUMN, not a
 * rebuild of the table, so that columns other migrations add to `test_cases` are kept whatever
 * their order.
 */
export class TestCaseVersion1796700000000 implements MigrationInterface {
    name = 'TestCaseVersion1796700000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "test_cases" ADD COLUMN "version" integer NOT NULL DEFAULT (1)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "test_cases" DROP COLUMN "version"`);
    }

}
