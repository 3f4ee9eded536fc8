import { MigrationInterface, QueryRunner } from "typeorm";

/** A runner's `variableScope` (docs/flows.md "Variables across test cases"): existing runners keep `testCase`. */
export class RunnerVariableScope1795800000000 implements MigrationInterface {
    name = 'RunnerVariableScope1795800000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`variableScope\` varchar(16) NOT NULL DEFAULT 'testCase'`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`variableScope\``);
    }

}
