import { MigrationInterface, QueryRunner } from "typeorm";

export class Deployments1795200000000 implements MigrationInterface {
    name = 'Deployments1795200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "deployments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "schedule" varchar(200), "timezone" varchar(64) NOT NULL DEFAULT ('UTC'), "enabled" boolean NOT NULL DEFAULT (1), "webhookEnabled" boolean NOT NULL DEFAULT (0), "webhookId" varchar(64), "webhookTokenHash" varchar(64), "webhookRequireAuth" boolean NOT NULL DEFAULT (1), "webhooks" json, "signingSecret" varchar(200) NOT NULL, "scheduleSyncedAt" datetime(3), "scheduleError" text, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_webhook" ON "deployments" ("webhookId") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_name" ON "deployments" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE TABLE "webhook_deliveries" ("id" varchar(40) PRIMARY KEY NOT NULL, "runId" varchar(40) NOT NULL, "deploymentId" varchar(40) NOT NULL, "event" varchar(10) NOT NULL, "position" integer NOT NULL, "url" varchar(2048) NOT NULL, "method" varchar(10) NOT NULL, "status" varchar(10) NOT NULL, "attempts" integer NOT NULL DEFAULT (0), "lastStatusCode" integer, "lastError" text, "deliveredAt" datetime(3), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_webhook_deliveries_entry" ON "webhook_deliveries" ("runId", "event", "position") `);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`CREATE TABLE "temporary_runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40))`);
        await queryRunner.query(`INSERT INTO "temporary_runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt" FROM "runs"`);
        await queryRunner.query(`DROP TABLE "runs"`);
        await queryRunner.query(`ALTER TABLE "temporary_runs" RENAME TO "runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`ALTER TABLE "runs" RENAME TO "temporary_runs"`);
        await queryRunner.query(`CREATE TABLE "runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt" FROM "temporary_runs"`);
        await queryRunner.query(`DROP TABLE "temporary_runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`DROP INDEX "uq_webhook_deliveries_entry"`);
        await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_name"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_webhook"`);
        await queryRunner.query(`DROP TABLE "deployments"`);
    }

}
