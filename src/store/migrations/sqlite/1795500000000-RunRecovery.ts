import { MigrationInterface, QueryRunner } from "typeorm";

export class RunRecovery1795500000000 implements MigrationInterface {
    name = 'RunRecovery1795500000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`CREATE TABLE "temporary_runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40), "progressWork" double NOT NULL DEFAULT (0), "idempotencyKey" varchar(255), "idempotencyFingerprint" varchar(64), "workflowStartedAt" datetime(3))`);
        await queryRunner.query(`INSERT INTO "temporary_runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId" FROM "runs"`);
        await queryRunner.query(`DROP TABLE "runs"`);
        await queryRunner.query(`ALTER TABLE "temporary_runs" RENAME TO "runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_completed" ON "runs" ("status", "completedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_status_created" ON "runs" ("status", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_idempotency" ON "runs" ("workspaceId", "idempotencyKey") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "uq_runs_idempotency"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_status_completed"`);
        await queryRunner.query(`DROP INDEX "ix_runs_workspace_created"`);
        await queryRunner.query(`DROP INDEX "ix_runs_runner_env_created"`);
        await queryRunner.query(`DROP INDEX "uq_runs_workflow"`);
        await queryRunner.query(`DROP INDEX "ix_runs_deployment_created"`);
        await queryRunner.query(`ALTER TABLE "runs" RENAME TO "temporary_runs"`);
        await queryRunner.query(`CREATE TABLE "runs" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "runnerId" varchar(40), "runnerName" varchar(100) NOT NULL, "environmentId" varchar(40), "environmentName" varchar(100) NOT NULL, "status" varchar(12) NOT NULL, "result" varchar(12), "trigger" varchar(12) NOT NULL DEFAULT ('api'), "workflowId" varchar(200) NOT NULL, "timeoutSeconds" integer NOT NULL, "variables" json NOT NULL, "context" json, "error" text, "summary" json, "progressCompleted" integer NOT NULL DEFAULT (0), "progressTotal" integer NOT NULL DEFAULT (0), "estimatedCompletion" datetime(3), "duration" integer, "plan" json, "createdAt" datetime(3) NOT NULL, "startedAt" datetime(3), "completedAt" datetime(3), "deploymentId" varchar(40))`);
        await queryRunner.query(`INSERT INTO "runs"("id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId") SELECT "id", "workspaceId", "runnerId", "runnerName", "environmentId", "environmentName", "status", "result", "trigger", "workflowId", "timeoutSeconds", "variables", "context", "error", "summary", "progressCompleted", "progressTotal", "estimatedCompletion", "duration", "plan", "createdAt", "startedAt", "completedAt", "deploymentId" FROM "temporary_runs"`);
        await queryRunner.query(`DROP TABLE "temporary_runs"`);
        await queryRunner.query(`CREATE INDEX "ix_runs_workspace_created" ON "runs" ("workspaceId", "createdAt") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_runner_env_created" ON "runs" ("workspaceId", "runnerName", "environmentName", "createdAt") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_runs_workflow" ON "runs" ("workflowId") `);
        await queryRunner.query(`CREATE INDEX "ix_runs_deployment_created" ON "runs" ("workspaceId", "deploymentId", "createdAt") `);
    }

}
