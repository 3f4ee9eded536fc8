import { MigrationInterface, QueryRunner } from "typeorm";

export class RunRecovery1795500000000 implements MigrationInterface {
    name = 'RunRecovery1795500000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`progressWork\` double NOT NULL DEFAULT '0'`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`idempotencyKey\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`idempotencyFingerprint\` varchar(64) NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`workflowStartedAt\` datetime(3) NULL`);
        await queryRunner.query(`CREATE INDEX \`ix_runs_status_completed\` ON \`runs\` (\`status\`, \`completedAt\`)`);
        await queryRunner.query(`CREATE INDEX \`ix_runs_status_created\` ON \`runs\` (\`status\`, \`createdAt\`)`);
        await queryRunner.query(`CREATE UNIQUE INDEX \`uq_runs_idempotency\` ON \`runs\` (\`workspaceId\`, \`idempotencyKey\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`uq_runs_idempotency\` ON \`runs\``);
        await queryRunner.query(`DROP INDEX \`ix_runs_status_created\` ON \`runs\``);
        await queryRunner.query(`DROP INDEX \`ix_runs_status_completed\` ON \`runs\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`workflowStartedAt\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`idempotencyFingerprint\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`idempotencyKey\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`progressWork\``);
    }

}
