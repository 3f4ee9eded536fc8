import { MigrationInterface, QueryRunner } from "typeorm";

/** Folders with hooks and an auth profile, and a test case's own `hooks` (docs/flows.md "Hooks"). */
export class FoldersAndHooks1795900000000 implements MigrationInterface {
    name = 'FoldersAndHooks1795900000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`folders\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`path\` varchar(255) NOT NULL, \`hooks\` json NULL, \`authProfile\` varchar(100) NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_folders_path\` (\`workspaceId\`, \`path\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`test_cases\` ADD \`hooks\` json NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`test_cases\` DROP COLUMN \`hooks\``);
        await queryRunner.query(`DROP INDEX \`uq_folders_path\` ON \`folders\``);
        await queryRunner.query(`DROP TABLE \`folders\``);
    }

}
