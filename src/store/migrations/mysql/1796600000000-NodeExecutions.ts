import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Node execution records (docs/durability.md "What a crash repeats"): each `node`-mode node
 * execution's claim and outcome, `node_executions` (src/store/entities/node-execution.ts).
 */
export class NodeExecutions1796600000000 implements MigrationInterface {
    name = 'NodeExecutions1796600000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`node_executions\` (\`id\` varchar(64) NOT NULL, \`runId\` varchar(40) NOT NULL, \`position\` int NOT NULL, \`execution\` varchar(600) NOT NULL, \`owner\` varchar(200) NOT NULL, \`leaseUntilMs\` bigint NOT NULL, \`outcome\` json NULL, INDEX \`ix_node_executions_lease\` (\`leaseUntilMs\`), INDEX \`ix_node_executions_run\` (\`runId\`, \`position\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`ix_node_executions_lease\` ON \`node_executions\``);
        await queryRunner.query(`DROP INDEX \`ix_node_executions_run\` ON \`node_executions\``);
        await queryRunner.query(`DROP TABLE \`node_executions\``);
    }

}
