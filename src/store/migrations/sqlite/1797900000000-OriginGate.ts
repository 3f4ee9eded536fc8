import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Per-origin limits of runs (docs/parallel.md "Protecting the target"; src/net/origin-gate.ts):
 * `run_origin_slots`, the leases of requests in flight (`maxInFlight`), and `run_origin_paces`,
 * the next start time of each run's origin (`requestsPerSecond`)
 * (src/store/entities/run-origin-gate.ts).
 */
export class OriginGate1797900000000 implements MigrationInterface {
    name = 'OriginGate1797900000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "run_origin_slots" ("runId" varchar(40) NOT NULL, "origin" varchar(255) NOT NULL, "slot" integer NOT NULL, "holder" varchar(200) NOT NULL, "expiresAtMs" bigint NOT NULL, PRIMARY KEY ("runId", "origin", "slot"))`);
        await queryRunner.query(`CREATE TABLE "run_origin_paces" ("runId" varchar(40) NOT NULL, "origin" varchar(255) NOT NULL, "nextAtUs" bigint NOT NULL, PRIMARY KEY ("runId", "origin"))`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "run_origin_paces"`);
        await queryRunner.query(`DROP TABLE "run_origin_slots"`);
    }

}
