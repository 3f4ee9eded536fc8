import { MigrationInterface, QueryRunner } from "typeorm";

export class PerformanceRuns1795600000000 implements MigrationInterface {
    name = 'PerformanceRuns1795600000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "run_load_shards" ("runId" varchar(40) NOT NULL, "shard" integer NOT NULL, "attempt" integer NOT NULL, "worker" varchar(200) NOT NULL, "activeVUs" integer NOT NULL, "position" json NOT NULL, "metrics" json NOT NULL, "updatedAt" datetime(3) NOT NULL, PRIMARY KEY ("runId", "shard"))`);
        await queryRunner.query(`DROP INDEX "uq_runs_idempotency"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_completed"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`CREATE TABLE "temporary_runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40), "progressWork" double NOT NULL DEFAULT (0), "idempotencyKey" varchar(255), "idempotencyFingerprint" varchar(64), "workflowStartedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "temporary_runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt" FROM "runs"`);
        await queryRunner.query(`DROP TABLE "runs"`);
        await queryRunner.query(`ALTER TABLE "temporary_runs" RENAME TO "runs"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_idempotency" ON "runs" ("workspaceId", "idempotencyKey") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_created" ON "runs" ("status", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_completed" ON "runs" ("status", "completedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
        await queryRunner.query(`DROP INDEX "uq_runners_name"`);
        await queryRunner.query(`CREATE TABLE "temporary_runners" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "testCaseIds" json NOT NULL, "folder" varchar(255), "tags" json NOT NULL, "order" varchar(20) NOT NULL DEFAULT ('name'), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json)`);
        await queryRunner.query(`INSERT INTO "temporary_runners"("id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt" FROM "runners"`);
        await queryRunner.query(`DROP TABLE "runners"`);
        await queryRunner.query(`ALTER TABLE "temporary_runners" RENAME TO "runners"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runners_name" ON "runners" ("workspaceId", "name") `);
        await queryRunner.query(`DROP INDEX "uq_runs_idempotency"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_completed"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`CREATE TABLE "temporary_runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40), "progressWork" double NOT NULL DEFAULT (0), "idempotencyKey" varchar(255), "idempotencyFingerprint" varchar(64), "workflowStartedAt" datetime(3), "loadProfile" json, "performance" json)`);
        await queryRunner.query(`INSERT INTO "temporary_runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt" FROM "runs"`);
        await queryRunner.query(`DROP TABLE "runs"`);
        await queryRunner.query(`ALTER TABLE "temporary_runs" RENAME TO "runs"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_idempotency" ON "runs" ("workspaceId", "idempotencyKey") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_created" ON "runs" ("status", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_completed" ON "runs" ("status", "completedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
        await queryRunner.query(`DROP INDEX "uq_deployments_name"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_webhook"`);
        await queryRunner.query(`CREATE TABLE "temporary_deployments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "schedule" varchar(200), "timezone" varchar(64) NOT NULL DEFAULT ('UTC'), "enabled" boolean NOT NULL DEFAULT (1), "webhookEnabled" boolean NOT NULL DEFAULT (0), "webhookId" varchar(64), "webhookTokenHash" varchar(64), "webhookRequireAuth" boolean NOT NULL DEFAULT (1), "webhooks" json, "signingSecret" varchar(200) NOT NULL, "scheduleSyncedAt" datetime(3), "scheduleError" text, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL, "loadProfile" json)`);
        await queryRunner.query(`INSERT INTO "temporary_deployments"("id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt" FROM "deployments"`);
        await queryRunner.query(`DROP TABLE "deployments"`);
        await queryRunner.query(`ALTER TABLE "temporary_deployments" RENAME TO "deployments"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_name" ON "deployments" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_webhook" ON "deployments" ("webhookId") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_deployments_webhook"`);
        await queryRunner.query(`DROP INDEX "uq_deployments_name"`);
        await queryRunner.query(`ALTER TABLE "deployments" RENAME TO "temporary_deployments"`);
        await queryRunner.query(`CREATE TABLE "deployments" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "runnerName" varchar(100) NOT NULL, "environmentName" varchar(100) NOT NULL, "schedule" varchar(200), "timezone" varchar(64) NOT NULL DEFAULT ('UTC'), "enabled" boolean NOT NULL DEFAULT (1), "webhookEnabled" boolean NOT NULL DEFAULT (0), "webhookId" varchar(64), "webhookTokenHash" varchar(64), "webhookRequireAuth" boolean NOT NULL DEFAULT (1), "webhooks" json, "signingSecret" varchar(200) NOT NULL, "scheduleSyncedAt" datetime(3), "scheduleError" text, "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`INSERT INTO "deployments"("id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "runnerName", "environmentName", "schedule", "timezone", "enabled", "webhookEnabled", "webhookId", "webhookTokenHash", "webhookRequireAuth", "webhooks", "signingSecret", "scheduleSyncedAt", "scheduleError", "createdAt", "updatedAt" FROM "temporary_deployments"`);
        await queryRunner.query(`DROP TABLE "temporary_deployments"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_webhook" ON "deployments" ("webhookId") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_deployments_name" ON "deployments" ("workspaceId", "name") `);
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_completed"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_idempotency"`);
        await queryRunner.query(`ALTER TABLE "runs" RENAME TO "temporary_runs"`);
        await queryRunner.query(`CREATE TABLE "runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40), "progressWork" double NOT NULL DEFAULT (0), "idempotencyKey" varchar(255), "idempotencyFingerprint" varchar(64), "workflowStartedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt" FROM "temporary_runs"`);
        await queryRunner.query(`DROP TABLE "temporary_runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_completed" ON "runs" ("status", "completedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_created" ON "runs" ("status", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_idempotency" ON "runs" ("workspaceId", "idempotencyKey") `);
        await queryRunner.query(`DROP INDEX "uq_runners_name"`);
        await queryRunner.query(`ALTER TABLE "runners" RENAME TO "temporary_runners"`);
        await queryRunner.query(`CREATE TABLE "runners" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(100) NOT NULL, "description" varchar(1000) NOT NULL DEFAULT (''), "testCaseIds" json NOT NULL, "folder" varchar(255), "tags" json NOT NULL, "order" varchar(20) NOT NULL DEFAULT ('name'), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`INSERT INTO "runners"("id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt") SELECT "id", "workspaceId", "name", "description", "testCaseIds", "folder", "tags", "order", "createdAt", "updatedAt" FROM "temporary_runners"`);
        await queryRunner.query(`DROP TABLE "temporary_runners"`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runners_name" ON "runners" ("workspaceId", "name") `);
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_completed"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_idempotency"`);
        await queryRunner.query(`ALTER TABLE "runs" RENAME TO "temporary_runs"`);
        await queryRunner.query(`CREATE TABLE "runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40), "progressWork" double NOT NULL DEFAULT (0), "idempotencyKey" varchar(255), "idempotencyFingerprint" varchar(64), "workflowStartedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId", "progressWork", "idempotencyKey", "idempotencyFingerprint", "workflowStartedAt" FROM "temporary_runs"`);
        await queryRunner.query(`DROP TABLE "temporary_runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_completed" ON "runs" ("status", "completedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_created" ON "runs" ("status", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_idempotency" ON "runs" ("workspaceId", "idempotencyKey") `);
        await queryRunner.query(`DROP TABLE "run_load_shards"`);
    }

}
