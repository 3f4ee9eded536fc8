import { MigrationInterface, QueryRunner } from "typeorm";

/** An environment's `extends` (its parent's name) and `servers` (docs/reuse.md): existing environments have neither. */
export class EnvironmentServers1796000000000 implements MigrationInterface {
    name = 'EnvironmentServers1796000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`environments\` ADD \`extends\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`environments\` ADD \`servers\` json NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`environments\` DROP COLUMN \`servers\``);
        await queryRunner.query(`ALTER TABLE \`environments\` DROP COLUMN \`extends\``);
    }

}
