import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Test history (docs/history.md): an index of `test_case_history` by test case, status and time,
 * so that a test case's newest failure and newest pass (its last failure, the start of its failing
 * streak) are one index seek however long it has been failing or passing (docs/benchmarks.md
 * "Test history").
 */
export class HistoryStatusIndex1796301000000 implements MigrationInterface {
    name = 'HistoryStatusIndex1796301000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE INDEX \`ix_history_status\` ON \`test_case_history\` (\`workspaceId\`, \`testCaseId\`, \`status\`, \`ranAt\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`ix_history_status\` ON \`test_case_history\``);
    }

}
