import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A workspace's mock settings (docs/mocks.md "Proxy: validate and record"): the validation and
 * recording proxy's target and mode, and the seed of designs without their own.
 */
export class MockSettings1796430000000 implements MigrationInterface {
    name = 'MockSettings1796430000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`mock_settings\` (\`workspaceId\` varchar(40) NOT NULL, \`proxyUrl\` varchar(2000) NULL, \`proxyMode\` varchar(10) NULL, \`seed\` int NULL, \`updatedAt\` datetime(3) NOT NULL, PRIMARY KEY (\`workspaceId\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE \`mock_settings\``);
    }

}
