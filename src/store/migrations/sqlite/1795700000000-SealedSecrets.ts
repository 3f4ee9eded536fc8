import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Secrets at rest (docs/secrets.md): `deployments.signingSecret` widens to 512 characters to
 * hold a sealed secret (SQLite does not enforce the length; the table is rebuilt so the schema matches
 * the entity). Existing plain values are copied as they are and sealed on the deployment's next write
 * or delivery (src/store/entities/deployment-secrets.ts).
 */
export class SealedSecrets1795700000000 implements MigrationInterface {
    name = 'SealedSecrets1795700000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_deployments_webhook"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_name"`);
        await queryRunner.query(`CREATE TABLE "temporary_deployments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "schedule" varchar(200), "timezone" varchar(64) NOT NULL DEFAULT ('UTC'), "enabled" boolean NOT NULL DEFAULT (1), "webhookEnabled" boolean NOT NULL DEFAULT (0), "webhookId" varchar(64), "webhookTokenHash" varchar(64), "webhookRequireAuth" boolean NOT NULL DEFAULT (1), "webhooks" json, "signingSecret" varchar(512) NOT NULL, "scheduleSyncedAt" datetime(3), "scheduleError" text, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json)`);
        await queryRunner.query(`INSERT INTO "temporary_deployments"("id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt", "loadProfile") SELECT "id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt", "loadProfile" FROM "deployments"`);
        await queryRunner.query(`DROP TABLE "deployments"`);
        await queryRunner.query(`ALTER TABLE "temporary_deployments" RENAME TO "deployments"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_webhook" ON "deployments" ("webhookId") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_name" ON "deployments" ("workspaceId", "name") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_deployments_name"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_webhook"`);
        await queryRunner.query(`ALTER TABLE "deployments" RENAME TO "temporary_deployments"`);
        await queryRunner.query(`CREATE TABLE "deployments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "schedule" varchar(200), "timezone" varchar(64) NOT NULL DEFAULT ('UTC'), "enabled" boolean NOT NULL DEFAULT (1), "webhookEnabled" boolean NOT NULL DEFAULT (0), "webhookId" varchar(64), "webhookTokenHash" varchar(64), "webhookRequireAuth" boolean NOT NULL DEFAULT (1), "webhooks" json, "signingSecret" varchar(200) NOT NULL, "scheduleSyncedAt" datetime(3), "scheduleError" text, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json)`);
        await queryRunner.query(`INSERT INTO "deployments"("id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt", "loadProfile") SELECT "id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt", "loadProfile" FROM "temporary_deployments"`);
        await queryRunner.query(`DROP TABLE "temporary_deployments"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_name" ON "deployments" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_webhook" ON "deployments" ("webhookId") `);
    }

}
