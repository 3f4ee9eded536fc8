import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * People, sessions, workspace members, the audit trail and resource versions; API keys gain an
 * owner (user or service account), an expiry and a last-used time (docs/teams.md).
 */
export class Teams1798000000000 implements MigrationInterface {
    name = 'Teams1798000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`users\` (\`id\` varchar(40) NOT NULL, \`issuer\` varchar(255) NULL, \`subject\` varchar(255) NULL, \`email\` varchar(255) NULL, \`name\` varchar(200) NOT NULL, \`groups\` json NULL, \`createdAt\` datetime(3) NOT NULL, \`lastSignInAt\` datetime(3) NULL, \`disabledAt\` datetime(3) NULL, UNIQUE INDEX \`uq_users_email\` (\`email\`), UNIQUE INDEX \`uq_users_subject\` (\`issuer\`, \`subject\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`sessions\` (\`id\` varchar(40) NOT NULL, \`hash\` varchar(64) NOT NULL, \`userId\` varchar(40) NOT NULL, \`csrfToken\` varchar(64) NOT NULL, \`address\` varchar(64) NULL, \`userAgent\` varchar(255) NULL, \`createdAt\` datetime(3) NOT NULL, \`lastSeenAt\` datetime(3) NOT NULL, \`expiresAt\` datetime(3) NOT NULL, \`endedAt\` datetime(3) NULL, UNIQUE INDEX \`uq_sessions_hash\` (\`hash\`), INDEX \`ix_sessions_user\` (\`userId\`), INDEX \`ix_sessions_expires\` (\`expiresAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`workspace_members\` (\`workspaceId\` varchar(40) NOT NULL, \`userId\` varchar(40) NOT NULL, \`role\` varchar(10) NULL, \`groupRole\` varchar(10) NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, INDEX \`ix_workspace_members_user\` (\`userId\`), PRIMARY KEY (\`workspaceId\`, \`userId\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`audit_events\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`at\` datetime(3) NOT NULL, \`actor\` json NOT NULL, \`address\` varchar(64) NULL, \`action\` varchar(60) NOT NULL, \`resourceType\` varchar(30) NOT NULL, \`resourceId\` varchar(200) NULL, \`resourceName\` varchar(200) NULL, \`request\` varchar(300) NULL, \`requestId\` varchar(128) NULL, \`changes\` json NOT NULL, INDEX \`ix_audit_at\` (\`at\`), INDEX \`ix_audit_resource\` (\`workspaceId\`, \`resourceType\`, \`resourceId\`, \`at\`), INDEX \`ix_audit_workspace_at\` (\`workspaceId\`, \`at\`, \`id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`resource_versions\` (\`resourceType\` varchar(30) NOT NULL, \`resourceId\` varchar(40) NOT NULL, \`version\` int NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(200) NOT NULL, \`body\` json NOT NULL, \`savedAt\` datetime(3) NOT NULL, \`savedBy\` json NOT NULL, \`restoredFrom\` int NULL, INDEX \`ix_resource_versions_saved\` (\`workspaceId\`, \`resourceType\`, \`savedAt\`), PRIMARY KEY (\`resourceType\`, \`resourceId\`, \`version\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`userId\` varchar(40) NULL`);
        await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`serviceAccount\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`createdBy\` varchar(40) NULL`);
        await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`expiresAt\` datetime(3) NULL`);
        await queryRunner.query(`ALTER TABLE \`api_keys\` ADD \`lastUsedAt\` datetime(3) NULL`);
        await queryRunner.query(`CREATE INDEX \`ix_api_keys_user\` ON \`api_keys\` (\`userId\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`ix_api_keys_user\` ON \`api_keys\``);
        await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`lastUsedAt\``);
        await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`expiresAt\``);
        await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`createdBy\``);
        await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`serviceAccount\``);
        await queryRunner.query(`ALTER TABLE \`api_keys\` DROP COLUMN \`userId\``);
        await queryRunner.query(`DROP INDEX \`ix_resource_versions_saved\` ON \`resource_versions\``);
        await queryRunner.query(`DROP TABLE \`resource_versions\``);
        await queryRunner.query(`DROP INDEX \`ix_audit_workspace_at\` ON \`audit_events\``);
        await queryRunner.query(`DROP INDEX \`ix_audit_resource\` ON \`audit_events\``);
        await queryRunner.query(`DROP INDEX \`ix_audit_at\` ON \`audit_events\``);
        await queryRunner.query(`DROP TABLE \`audit_events\``);
        await queryRunner.query(`DROP INDEX \`ix_workspace_members_user\` ON \`workspace_members\``);
        await queryRunner.query(`DROP TABLE \`workspace_members\``);
        await queryRunner.query(`DROP INDEX \`ix_sessions_expires\` ON \`sessions\``);
        await queryRunner.query(`DROP INDEX \`ix_sessions_user\` ON \`sessions\``);
        await queryRunner.query(`DROP INDEX \`uq_sessions_hash\` ON \`sessions\``);
        await queryRunner.query(`DROP TABLE \`sessions\``);
        await queryRunner.query(`DROP INDEX \`uq_users_subject\` ON \`users\``);
        await queryRunner.query(`DROP INDEX \`uq_users_email\` ON \`users\``);
        await queryRunner.query(`DROP TABLE \`users\``);
    }

}
