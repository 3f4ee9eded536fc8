import { MigrationInterface, QueryRunner } from "typeorm";

export class PerformanceRuns1795600000000 implements MigrationInterface {
    name = 'PerformanceRuns1795600000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`run_load_shards\` (\`runId\` varchar(40) NOT NULL, \`shard\` int NOT NULL, \`attempt\` int NOT NULL, \`worker\` varchar(200) NOT NULL, \`activeVUs\` int NOT NULL, \`position\` json NOT NULL, \`metrics\` json NOT NULL, \`updatedAt\` datetime(3) NOT NULL, PRIMARY KEY (\`runId\`, \`shard\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`estimatedCompletion\``);
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`loadProfile\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`loadProfile\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`performance\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`deployments\` ADD \`loadProfile\` json NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`deployments\` DROP COLUMN \`loadProfile\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`performance\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`loadProfile\``);
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`loadProfile\``);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`estimatedCompletion\` datetime(3) NULL`);
        await queryRunner.query(`DROP TABLE \`run_load_shards\``);
    }

}
