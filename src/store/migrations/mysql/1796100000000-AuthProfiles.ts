import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Authentication profiles (docs/auth.md): the `auth_profiles` table, the OAuth 2.0 token cache
 * `auth_tokens` (sealed tokens, src/auth/token-cache.ts), and the `authProfile` of test cases and
 * runners (null: none named at that level).
 */
export class AuthProfiles1796100000000 implements MigrationInterface {
    name = 'AuthProfiles1796100000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`auth_profiles\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(100) NOT NULL, \`description\` varchar(1000) NOT NULL DEFAULT '', \`type\` varchar(16) NOT NULL, \`config\` json NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_auth_profiles_name\` (\`workspaceId\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`auth_tokens\` (\`key\` varchar(64) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`profileId\` varchar(40) NOT NULL, \`sealed\` text NULL, \`expiresAt\` datetime(3) NULL, \`leaseUntil\` datetime(3) NULL, \`updatedAt\` datetime(3) NOT NULL, PRIMARY KEY (\`key\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`test_cases\` ADD \`authProfile\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`authProfile\` varchar(100) NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`authProfile\``);
        await queryRunner.query(`ALTER TABLE \`test_cases\` DROP COLUMN \`authProfile\``);
        await queryRunner.query(`DROP TABLE \`auth_tokens\``);
        await queryRunner.query(`DROP INDEX \`uq_auth_profiles_name\` ON \`auth_profiles\``);
        await queryRunner.query(`DROP TABLE \`auth_profiles\``);
    }

}
