import { MigrationInterface, QueryRunner } from "typeorm";

export class Initial1795000000000 implements MigrationInterface {
    name = 'Initial1795000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`workspaces\` (\`id\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`createdAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_workspaces_name\` (\`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`api_keys\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`prefix\` varchar(16) NOT NULL, \`hash\` varchar(64) NOT NULL, \`scope\` varchar(10) NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`revokedAt\` datetime(3) NULL, INDEX \`ix_api_keys_workspace\` (\`workspaceId\`), UNIQUE INDEX \`uq_api_keys_hash\` (\`hash\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`environments\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`description\` varchar(1000) NOT NULL DEFAULT '', \`variables\` json NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_environments_name\` (\`workspaceId\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`test_cases\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(200) NOT NULL, \`folder\` varchar(255) NOT NULL DEFAULT '', \`description\` varchar(2000) NOT NULL DEFAULT '', \`flow\` json NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_test_cases_name\` (\`workspaceId\`, \`folder\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`test_case_tags\` (\`testCaseId\` varchar(40) NOT NULL, \`tag\` varchar(100) NOT NULL, INDEX \`ix_test_case_tags_tag\` (\`tag\`), PRIMARY KEY (\`testCaseId\`, \`tag\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`runners\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`description\` varchar(1000) NOT NULL DEFAULT '', \`testCaseIds\` json NOT NULL, \`folder\` varchar(255) NULL, \`tags\` json NOT NULL, \`order\` varchar(20) NOT NULL DEFAULT 'name', \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_runners_name\` (\`workspaceId\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`runs\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`runnerId\` varchar(40) NULL, \`runnerName\` varchar(100) NOT NULL, \`environmentId\` varchar(40) NULL, \`environmentName\` varchar(100) NOT NULL, \`status\` varchar(12) NOT NULL, \`result\` varchar(12) NULL, \`trigger\` varchar(12) NOT NULL DEFAULT 'api', \`workflowId\` varchar(200) NOT NULL, \`timeoutSeconds\` int NOT NULL, \`variables\` json NOT NULL, \`context\` json NULL, \`error\` text NULL, \`summary\` json NULL, \`progressCompleted\` int NOT NULL DEFAULT '0', \`progressTotal\` int NOT NULL DEFAULT '0', \`estimatedCompletion\` datetime(3) NULL, \`duration\` int NULL, \`plan\` json NULL, \`createdAt\` datetime(3) NOT NULL, \`startedAt\` datetime(3) NULL, \`completedAt\` datetime(3) NULL, INDEX \`ix_runs_runner_env_created\` (\`workspaceId\`, \`runnerName\`, \`environmentName\`, \`createdAt\`), INDEX \`ix_runs_workspace_created\` (\`workspaceId\`, \`createdAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`run_test_case_results\` (\`runId\` varchar(40) NOT NULL, \`position\` int NOT NULL, \`testCaseId\` varchar(40) NOT NULL, \`name\` varchar(200) NOT NULL, \`status\` varchar(12) NOT NULL, \`duration\` int NOT NULL, \`assertions\` int NOT NULL, \`detail\` json NOT NULL, \`createdAt\` datetime(3) NOT NULL, PRIMARY KEY (\`runId\`, \`position\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`test_case_tags\` ADD CONSTRAINT \`FK_4b6db3d6084b125c0ddc3501bc7\` FOREIGN KEY (\`testCaseId\`) REFERENCES \`test_cases\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_case_tags\` DROP FOREIGN KEY \`FK_4b6db3d6084b125c0ddc3501bc7\``);
        await queryRunner.query(`DROP TABLE \`run_test_case_results\``);
        await queryRunner.query(`DROP INDEX \`ix_runs_workspace_created\` ON \`runs\``);
        await queryRunner.query(`DROP INDEX \`ix_runs_runner_env_created\` ON \`runs\``);
        await queryRunner.query(`DROP TABLE \`runs\``);
        await queryRunner.query(`DROP INDEX \`uq_runners_name\` ON \`runners\``);
        await queryRunner.query(`DROP TABLE \`runners\``);
        await queryRunner.query(`DROP INDEX \`ix_test_case_tags_tag\` ON \`test_case_tags\``);
        await queryRunner.query(`DROP TABLE \`test_case_tags\``);
        await queryRunner.query(`DROP INDEX \`uq_test_cases_name\` ON \`test_cases\``);
        await queryRunner.query(`DROP TABLE \`test_cases\``);
        await queryRunner.query(`DROP INDEX \`uq_environments_name\` ON \`environments\``);
        await queryRunner.query(`DROP TABLE \`environments\``);
        await queryRunner.query(`DROP INDEX \`uq_api_keys_hash\` ON \`api_keys\``);
        await queryRunner.query(`DROP INDEX \`ix_api_keys_workspace\` ON \`api_keys\``);
        await queryRunner.query(`DROP TABLE \`api_keys\``);
        await queryRunner.query(`DROP INDEX \`uq_workspaces_name\` ON \`workspaces\``);
        await queryRunner.query(`DROP TABLE \`workspaces\``);
    }

}
