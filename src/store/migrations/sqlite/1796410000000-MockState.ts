import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Mocks with state (docs/mocks.md "State"): data collections `mock_collections`, their records per
 * scope `mock_records` (the seed under `~seed`, the shared state under `''`), and the scopes that
 * have started `mock_scopes` (for the TTL sweep and the discard at a run's end).
 */
export class MockState1796410000000 implements MigrationInterface {
    name = 'MockState1796410000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "mock_collections" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "name" varchar(63) NOT NULL, "basePath" varchar(200), "idField" varchar(100) NOT NULL DEFAULT ('id'), "seedFrom" json, "seedCount" integer NOT NULL DEFAULT (0), "createdAt" datetime(3) NOT NULL, "updatedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_mock_collections_base" ON "mock_collections" ("workspaceId", "basePath") `);
        await queryRunner.query(`CREATE UNIQUE INDEX "uq_mock_collections_name" ON "mock_collections" ("workspaceId", "name") `);
        await queryRunner.query(`CREATE TABLE "mock_records" ("collectionId" varchar(40) NOT NULL, "scope" varchar(100) NOT NULL, "recordId" varchar(200) NOT NULL, "seq" bigint NOT NULL, "intId" bigint, "data" json NOT NULL, PRIMARY KEY ("collectionId", "scope", "recordId"))`);
        await queryRunner.query(`CREATE INDEX "ix_mock_records_order" ON "mock_records" ("collectionId", "scope", "seq") `);
        await queryRunner.query(`CREATE TABLE "mock_scopes" ("collectionId" varchar(40) NOT NULL, "scope" varchar(100) NOT NULL, "workspaceId" varchar(40) NOT NULL, "createdAt" datetime(3) NOT NULL, "usedAt" datetime(3) NOT NULL, PRIMARY KEY ("collectionId", "scope"))`);
        await queryRunner.query(`CREATE INDEX "ix_mock_scopes_used" ON "mock_scopes" ("usedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_mock_scopes_workspace" ON "mock_scopes" ("workspaceId", "scope") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_mock_scopes_workspace"`);
        await queryRunner.query(`DROP INDEX "ix_mock_scopes_used"`);
        await queryRunner.query(`DROP TABLE "mock_scopes"`);
        await queryRunner.query(`DROP INDEX "ix_mock_records_order"`);
        await queryRunner.query(`DROP TABLE "mock_records"`);
        await queryRunner.query(`DROP INDEX "uq_mock_collections_name"`);
        await queryRunner.query(`DROP INDEX "uq_mock_collections_base"`);
        await queryRunner.query(`DROP TABLE "mock_collections"`);
    }

}
