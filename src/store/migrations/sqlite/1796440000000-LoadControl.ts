import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Performance runs' control state (docs/performance.md "Steering a running test"): one row per run
 * that received a command, read by its load shards.
 */
export class LoadControl1796440000000 implements MigrationInterface {
    name = 'LoadControl1796440000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "run_load_controls" ("runId" varchar(40) PRIMARY KEY NOT NULL, "seq" integer NOT NULL, "state" json NOT NULL, "windows" json, "updatedAt" datetime(3) NOT NULL)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "run_load_controls"`);
    }

}
