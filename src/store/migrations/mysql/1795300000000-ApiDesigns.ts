import { MigrationInterface, QueryRunner } from "typeorm";

export class ApiDesigns1795300000000 implements MigrationInterface {
    name = 'ApiDesigns1795300000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`api_designs\` (\`id\` varchar(40) NOT NULL, \`workspaceId\` varchar(40) NOT NULL, \`name\` varchar(200) NOT NULL DEFAULT '', \`description\` varchar(2000) NOT NULL DEFAULT '', \`method\` varchar(10) NOT NULL, \`path\` varchar(500) NOT NULL, \`routeKey\` varchar(500) NOT NULL, \`requestSchema\` json NULL, \`responseSchemas\` json NULL, \`responses\` json NOT NULL, \`createdAt\` datetime(3) NOT NULL, \`updatedAt\` datetime(3) NOT NULL, UNIQUE INDEX \`uq_api_designs_route\` (\`workspaceId\`, \`method\`, \`routeKey\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`uq_api_designs_route\` ON \`api_designs\``);
        await queryRunner.query(`DROP TABLE \`api_designs\``);
    }

}
