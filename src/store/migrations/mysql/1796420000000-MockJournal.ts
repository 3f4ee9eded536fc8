import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The mock journal (docs/mocks.md "Journal and verification"): every request a mock received and
 * how it was answered, `mock_journal_entries` (src/store/entities/mock-journal-entry.ts).
 */
export class MockJournal1796420000000 implements MigrationInterface {
    name = 'MockJournal1796420000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`mock_journal_entries\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`designId\` varchar(40) NULL, \`collectionId\` varchar(40) NULL, \`scope\` varchar(100) NULL, \`method\` varchar(16) NOT NULL, \`path\` varchar(2000) NOT NULL, \`query\` text NOT NULL, \`headers\` json NOT NULL, \`body\` text NULL, \`bodySize\` int NOT NULL DEFAULT '0', \`status\` int NOT NULL, \`fault\` varchar(20) NULL, \`delayMs\` int NOT NULL DEFAULT '0', \`violations\` json NULL, \`source\` varchar(8) NOT NULL, \`receivedAt\` datetime(3) NOT NULL, INDEX \`ix_mock_journal_received\` (\`receivedAt\`), INDEX \`ix_mock_journal_scope\` (\`workspaceId\`, \`scope\`, \`receivedAt\`), INDEX \`ix_mock_journal_design\` (\`workspaceId\`, \`designId\`, \`receivedAt\`), INDEX \`ix_mock_journal_ws\` (\`workspaceId\`, \`receivedAt\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`ix_mock_journal_received\` ON \`mock_journal_entries\``);
        await queryRunner.query(`DROP INDEX \`ix_mock_journal_scope\` ON \`mock_journal_entries\``);
        await queryRunner.query(`DROP INDEX \`ix_mock_journal_design\` ON \`mock_journal_entries\``);
        await queryRunner.query(`DROP INDEX \`ix_mock_journal_ws\` ON \`mock_journal_entries\``);
        await queryRunner.query(`DROP TABLE \`mock_journal_entries\``);
    }

}
