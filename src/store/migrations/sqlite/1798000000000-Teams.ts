import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * People, sessions, workspace members, the audit trail and resource versions; API keys gain an
 * owner (user or service account), an expiry and a last-used time (docs/teams.md).
 */
export class Teams1798000000000 implements MigrationInterface {
    name = 'Teams1798000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "users" ("id" varchar(40) PRIMARY KEY NOT NULL, "issuer" varchar(255), "subject" varchar(255), "email" varchar(255), "name" varchar(200) NOT NULL, "groups" json, "createdAt" datetime(3) NOT NULL, "lastSignInAt" datetime(3), "disabledAt" datetime(3))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_email" ON "users" ("email") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_subject" ON "users" ("issuer", "subject") `);
        await queryRunner.query(`CREATE TABLE "sessions" ("id" varchar(40) PRIMARY KEY NOT NULL, "hash" varchar(64) NOT NULL, "userId" varchar(40) NOT NULL, "csrfToken" varchar(64) NOT NULL, "address" varchar(64), "userAgent" varchar(255), "createdAt" datetime(3) NOT NULL, "lastSeenAt" datetime(3) NOT NULL, "expiresAt" datetime(3) NOT NULL, "endedAt" datetime(3))`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_sessions_hash" ON "sessions" ("hash") `);
        await queryRunner.query(`CREATE INDEX "ix_sessions_user" ON "sessions" ("userId") `);
        await queryRunner.query(`CREATE INDEX "ix_sessions_expires" ON "sessions" ("expiresAt") `);
        await queryRunner.query(`CREATE TABLE "workspace_members" ("workspaceId" varchar(40) NOT NULL, "userId" varchar(40) NOT NULL, "role" varchar(10), "groupRole" varchar(10), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, PRIMARY KEY ("workspaceId", "userId"))`);
        await queryRunner.query(`CREATE INDEX "ix_workspace_members_user" ON "workspace_members" ("userId") `);
        await queryRunner.query(`CREATE TABLE "audit_events" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "at" datetime(3) NOT NULL, "actor" json NOT NULL, "address" varchar(64), "action" varchar(60) NOT NULL, "resourceType" varchar(30) NOT NULL, "resourceId" varchar(200), "resourceName" varchar(200), "request" varchar(300), "requestId" varchar(128), "changes" json NOT NULL)`);
        await queryRunner.query(`CREATE INDEX "ix_audit_at" ON "audit_events" ("at") `);
        await queryRunner.query(`CREATE INDEX "ix_audit_resource" ON "audit_events" ("workspaceId", "resourceType", "resourceId", "at") `);
        await queryRunner.query(`CREATE INDEX "ix_audit_workspace_at" ON "audit_events" ("workspaceId", "at", "id") `);
        await queryRunner.query(`CREATE TABLE "resource_versions" ("resourceType" varchar(30) NOT NULL, "resourceId" varchar(40) NOT NULL, "version" integer NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(200) NOT NULL, "body" json NOT NULL, "savedAt" datetime(3) NOT NULL, "savedBy" json NOT NULL, "restoredFrom" integer, PRIMARY KEY ("resourceType", "resourceId", "version"))`);
        await queryRunner.query(`CREATE INDEX "ix_resource_versions_saved" ON "resource_versions" ("workspaceId", "resourceType", "savedAt") `);
        await queryRunner.query(`DROP INDEX "uq_api_keys_hash"`);
        await queryRunner.query(`DROP INDEX "ix_api_keys_workspace"`);
        await queryRunner.query(`CREATE TABLE "temporary_api_keys" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "prefix" varchar(16) NOT NULL, "hash" varchar(64) NOT NULL, "scope" varchar(10) NOT NULL, "createdAt" datetime(3) NOT NULL, "revokedAt" datetime(3), "userId" varchar(40), "serviceAccount" varchar(100), "createdBy" varchar(40), "expiresAt" datetime(3), "lastUsedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "temporary_api_keys"("id", "workspaceId", "name", "prefix", "hash", "scope", "createdAt", "revokedAt") SELECT "id", "workspaceId", "name", "prefix", "hash", "scope", "createdAt", "revokedAt" FROM "api_keys"`);
        await queryRunner.query(`DROP TABLE "api_keys"`);
        await queryRunner.query(`ALTER TABLE "temporary_api_keys" RENAME TO "api_keys"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("hash") `);
        await queryRunner.query(`CREATE INDEX "ix_api_keys_workspace" ON "api_keys" ("workspaceId") `);
        await queryRunner.query(`CREATE INDEX "ix_api_keys_user" ON "api_keys" ("userId") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_api_keys_user"`);
        await queryRunner.query(`DROP INDEX "ix_api_keys_workspace"`);
        await queryRunner.query(`DROP INDEX "uq_api_keys_hash"`);
        await queryRunner.query(`ALTER TABLE "api_keys" RENAME TO "temporary_api_keys"`);
        await queryRunner.query(`CREATE TABLE "api_keys" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "prefix" varchar(16) NOT NULL, "hash" varchar(64) NOT NULL, "scope" varchar(10) NOT NULL, "createdAt" datetime(3) NOT NULL, "revokedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "api_keys"("id", "workspaceId", "name", "prefix", "hash", "scope", "createdAt", "revokedAt") SELECT "id", "workspaceId", "name", "prefix", "hash", "scope", "createdAt", "revokedAt" FROM "temporary_api_keys"`);
        await queryRunner.query(`DROP TABLE "temporary_api_keys"`);
        await queryRunner.query(`CREATE INDEX "ix_api_keys_workspace" ON "api_keys" ("workspaceId") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("hash") `);
        await queryRunner.query(`DROP INDEX "ix_resource_versions_saved"`);
        await queryRunner.query(`DROP TABLE "resource_versions"`);
        await queryRunner.query(`DROP INDEX "ix_audit_workspace_at"`);
        await queryRunner.query(`DROP INDEX "ix_audit_resource"`);
        await queryRunner.query(`DROP INDEX "ix_audit_at"`);
        await queryRunner.query(`DROP TABLE "audit_events"`);
        await queryRunner.query(`DROP INDEX "ix_workspace_members_user"`);
        await queryRunner.query(`DROP TABLE "workspace_members"`);
        await queryRunner.query(`DROP INDEX "ix_sessions_expires"`);
        await queryRunner.query(`DROP INDEX "ix_sessions_user"`);
        await queryRunner.query(`DROP INDEX "uq_sessions_hash"`);
        await queryRunner.query(`DROP TABLE "sessions"`);
        await queryRunner.query(`DROP INDEX "uq_users_subject"`);
        await queryRunner.query(`DROP INDEX "uq_users_email"`);
        await queryRunner.query(`DROP TABLE "users"`);
    }

}
