import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Durability modes (docs/durability.md "Durability modes"): runners' `durability` (existing runners
 * keep `node`), deployments' and runs' (null: the runner's, or the deployment's then the runner's).
 * ADD COLUMN, not rebuilds of the tables, so that columns other migrations add are kept whatever
 * their order.
 */
export class Durability1796500000000 implements MigrationInterface {
    name = 'Durability1796500000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "runners" ADD COLUMN "durability" varchar(16) NOT NULL DEFAULT ('node')`);
        await queryRunner.query(`ALTER TABLE "deployments" ADD COLUMN "durability" varchar(16)`);
        await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "durability" varchar(16)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "durability"`);
        await queryRunner.query(`ALTER TABLE "deployments" DROP COLUMN "durability"`);
        await queryRunner.query(`ALTER TABLE "runners" DROP COLUMN "durability"`);
    }

}
