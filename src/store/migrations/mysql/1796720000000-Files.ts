import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Workspace files (docs/api.md "Files"): `files` (name unique per workspace, content type, size,
 * SHA-256), their content deduplicated per workspace in `file_blobs` (one per workspace and SHA-256)
 * and its bytes in `file_blob_chunks` (BLOB rows of at most 60 KiB, src/store/entities/file.ts).
 */
export class Files1796720000000 implements MigrationInterface {
    name = 'Files1796720000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`files\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(200) NOT NULL, \`contentType\` varchar(255) NOT NULL, \`size\` int NOT NULL, \`sha256\` varchar(64) NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, INDEX \`ix_files_blob\` (\`workspaceId\`, \`sha256\`), UNIQUE INDEX \`uq_files_name\` (\`workspaceId\`, \`name\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`file_blobs\` (\`workspaceId\` varchar(40) NOT NULL, \`sha256\` varchar(64) NOT NULL, \`size\` int NOT NULL, \`createdAt\` datetime(3) NOT NULL, PRIMARY KEY (\`workspaceId\`, \`sha256\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`file_blob_chunks\` (\`workspaceId\` varchar(40) NOT NULL, \`sha256\` varchar(64) NOT NULL, \`seq\` int NOT NULL, \`bytes\` blob NOT NULL, PRIMARY KEY (\`workspaceId\`, \`sha256\`, \`seq\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE \`file_blob_chunks\``);
        await queryRunner.query(`DROP TABLE \`file_blobs\``);
        await queryRunner.query(`DROP INDEX \`uq_files_name\` ON \`files\``);
        await queryRunner.query(`DROP INDEX \`ix_files_blob\` ON \`files\``);
        await queryRunner.query(`DROP TABLE \`files\``);
    }

}
