import { MigrationInterface, QueryRunner } from "typeorm";

export class DataSets1795100000000 implements MigrationInterface {
    name = 'DataSets1795100000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_cases\` ADD \`dataSets\` json NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_cases\` DROP COLUMN \`dataSets\``);
    }

}
