import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The mock journal (docs/mocks.md "Journal and verification"): every request a mock received and
 * how it was answered, `mock_journal_entries` (src/store/entities/mock-journal-entry.ts).
 */
export class MockJournal1796420000000 implements MigrationInterface {
    name = 'MockJournal1796420000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "mock_journal_entries" ("id" varchar(40) PRIMARY KEY NOT NULL, "workspaceId" varchar(40) NOT NULL, "designId" varchar(40), "collectionId" varchar(40), "scope" varchar(100), "method" varchar(16) NOT NULL, "path" varchar(2000) NOT NULL, "query" text NOT NULL, "headers" json NOT NULL, "body" text, "bodySize" integer NOT NULL DEFAULT (0), "status" integer NOT NULL, "fault" varchar(20), "delayMs" integer NOT NULL DEFAULT (0), "violations" json, "source" varchar(8) NOT NULL, "receivedAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE INDEX "ix_mock_journal_received" ON "mock_journal_entries" ("receivedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_mock_journal_scope" ON "mock_journal_entries" ("workspaceId", "scope", "receivedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_mock_journal_design" ON "mock_journal_entries" ("workspaceId", "designId", "receivedAt") `);
        await queryRunner.query(`CREATE INDEX "ix_mock_journal_ws" ON "mock_journal_entries" ("workspaceId", "receivedAt") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "ix_mock_journal_ws"`);
        await queryRunner.query(`DROP INDEX "ix_mock_journal_design"`);
        await queryRunner.query(`DROP INDEX "ix_mock_journal_scope"`);
        await queryRunner.query(`DROP INDEX "ix_mock_journal_received"`);
        await queryRunner.query(`DROP TABLE "mock_journal_entries"`);
    }

}
