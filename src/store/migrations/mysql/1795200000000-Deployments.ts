import { MigrationInterface, QueryRunner } from "typeorm";

export class Deployments1795200000000 implements MigrationInterface {
    name = 'Deployments1795200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`deployments\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`runnerName\` varchar(100) NOT NULL, \`environmentName\` varchar(100) NOT NULL, \`schedule\` varchar(200) NULL, \`timezone\` varchar(64) NOT NULL DEFAULT 'UTC', \`enabled\` tinyint NOT NULL DEFAULT 1, \`webhookEnabled\` tinyint NOT NULL DEFAULT 0, \`webhookId\` varchar(64) NULL, \`webhookTokenHash\` varchar(64) NULL, \`webhookRequireAuth\` tinyint NOT NULL DEFAULT 1, \`webhooks\` json NULL, \`signingSecret\` varchar(200) NOT NULL, \`scheduleSyncedAt\` datetime(3) NULL, \`scheduleError\` text NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_deployments_webhook\` (\`webhookId\`), UNIQUE INDEX \`uq_deployments_name\` (\`workspaceId\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`webhook_deliveries\` (\`id\` varchar(40) NOT NULL, \`runId\` varchar(40) NOT NULL, \`deploymentId\` varchar(40) NOT NULL, \`event\` varchar(10) NOT NULL, \`position\` int NOT NULL, \`url\` varchar(2048) NOT NULL, \`method\` varchar(10) NOT NULL, \`status\` varchar(10) NOT NULL, \`attempts\` int NOT NULL DEFAULT '0', \`lastStatusCode\` int NULL, \`lastError\` text NULL, \`deliveredAt\` datetime(3) NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_webhook_deliveries_entry\` (\`runId\`, \`event\`, \`position\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`deploymentId\` varchar(40) NULL`);
        await queryRunner.query(`CREATE UNIQUE INDEX \`uq_runs_workflow\` ON \`runs\` (\`workflowId\`)`);
        await queryRunner.query(`CREATE INDEX \`ix_runs_deployment_created\` ON \`runs\` (\`workspaceId\`, \`deploymentId\`, \`createdAt\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`ix_runs_deployment_created\` ON \`runs\``);
        await queryRunner.query(`DROP INDEX \`uq_runs_workflow\` ON \`runs\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`deploymentId\``);
        await queryRunner.query(`DROP INDEX \`uq_webhook_deliveries_entry\` ON \`webhook_deliveries\``);
        await queryRunner.query(`DROP TABLE \`webhook_deliveries\``);
        await queryRunner.query(`DROP INDEX \`uq_deployments_name\` ON \`deployments\``);
        await queryRunner.query(`DROP INDEX \`uq_deployments_webhook\` ON \`deployments\``);
        await queryRunner.query(`DROP TABLE \`deployments\``);
    }

}
