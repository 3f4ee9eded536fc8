import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Runs with a memory (docs/history.md): the test cases' history `test_case_history` and the flaky
 * flags `flaky_test_cases`; runners' and deployments' `baseline`, runners' `quarantineFlaky`; a
 * run's `planHash` and `origin`; a failed result's sealed `resumeState`.
 */
export class RunHistory1796300000000 implements MigrationInterface {
    name = 'RunHistory1796300000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`test_case_history\` (\`runId\` varchar(40) NOT NULL, \`position\` int NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`testCaseId\` varchar(40) NOT NULL, \`testCaseName\` varchar(200) NOT NULL, \`runnerName\` varchar(100) NOT NULL, \`environmentName\` varchar(100) NOT NULL, \`deploymentId\` varchar(40) NULL, \`trigger\` varchar(12) NOT NULL, \`kind\` varchar(12) NOT NULL, \`status\` varchar(12) NOT NULL, \`durationMs\` int NOT NULL, \`assertions\` int NOT NULL DEFAULT '0', \`passedAssertions\` int NOT NULL DEFAULT '0', \`failedNode\` varchar(200) NULL, \`failure\` text NULL, \`commitRef\` varchar(100) NULL, \`definitionHash\` varchar(64) NOT NULL, \`flaky\` tinyint NOT NULL DEFAULT 0, \`quarantined\` tinyint NOT NULL DEFAULT 0, \`nodes\` json NULL, \`ranAt\` datetime(3) NOT NULL, INDEX \`ix_history_ran\` (\`ranAt\`), INDEX \`ix_history_runner_env\` (\`workspaceId\`, \`testCaseId\`, \`runnerName\`, \`environmentName\`, \`ranAt\`), INDEX \`ix_history_test_case\` (\`workspaceId\`, \`testCaseId\`, \`ranAt\`), PRIMARY KEY (\`runId\`, \`position\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`flaky_test_cases\` (\`workspaceId\` varchar(40) NOT NULL, \`testCaseId\` varchar(40) NOT NULL, \`runnerName\` varchar(100) NOT NULL, \`environmentName\` varchar(100) NOT NULL, \`testCaseName\` varchar(200) NOT NULL, \`flips\` int NOT NULL, \`window\` int NOT NULL, \`flipRate\` double NOT NULL, \`definitionHash\` varchar(64) NOT NULL, \`lastRunId\` varchar(40) NOT NULL, \`flaggedAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, PRIMARY KEY (\`workspaceId\`, \`testCaseId\`, \`runnerName\`, \`environmentName\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`baseline\` varchar(40) NULL`);
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`quarantineFlaky\` tinyint NOT NULL DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`planHash\` varchar(64) NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`origin\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`run_test_case_results\` ADD \`resumeState\` text NULL`);
        await queryRunner.query(`ALTER TABLE \`deployments\` ADD \`baseline\` varchar(40) NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`deployments\` DROP COLUMN \`baseline\``);
        await queryRunner.query(`ALTER TABLE \`run_test_case_results\` DROP COLUMN \`resumeState\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`origin\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`planHash\``);
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`quarantineFlaky\``);
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`baseline\``);
        await queryRunner.query(`DROP TABLE \`flaky_test_cases\``);
        await queryRunner.query(`DROP INDEX \`ix_history_test_case\` ON \`test_case_history\``);
        await queryRunner.query(`DROP INDEX \`ix_history_runner_env\` ON \`test_case_history\``);
        await queryRunner.query(`DROP INDEX \`ix_history_ran\` ON \`test_case_history\``);
        await queryRunner.query(`DROP TABLE \`test_case_history\``);
    }

}
