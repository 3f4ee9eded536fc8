import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Mocks that behave like the real service (docs/mocks.md): the design's options beyond the spec's
 * fields (contract validation, parameters, latency, faults, seed; src/domain/mocks.ts
 * `MockDesignOptions`).
 */
export class MockDesignOptions1796400000000 implements MigrationInterface {
    name = 'MockDesignOptions1796400000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "api_designs" ADD COLUMN "options" json`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "api_designs" DROP COLUMN "options"`);
    }

}
