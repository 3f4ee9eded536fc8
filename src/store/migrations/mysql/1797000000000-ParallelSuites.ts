import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Parallel suites (docs/parallel.md): runners', deployments' and runs' `parallel` settings
 * (concurrency, bail, per-origin limits; null: the defaults, or what the run inherits), and a run's
 * own `selection` within its runner (`assay run --folder/--tag`; null: the runner's whole selection), and test cases' `dependsOn`
 * (the test cases that must have passed before one starts; null: none).
 */
export class ParallelSuites1797000000000 implements MigrationInterface {
    name = 'ParallelSuites1797000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runners\` ADD \`parallel\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`deployments\` ADD \`parallel\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`parallel\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`selection\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`test_cases\` ADD \`dependsOn\` json NULL`);
        await queryRunner.query(`ALTER TABLE \`runs\` ADD \`progressRunning\` int NOT NULL DEFAULT 0`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`progressRunning\``);
        await queryRunner.query(`ALTER TABLE \`test_cases\` DROP COLUMN \`dependsOn\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`selection\``);
        await queryRunner.query(`ALTER TABLE \`runs\` DROP COLUMN \`parallel\``);
        await queryRunner.query(`ALTER TABLE \`deployments\` DROP COLUMN \`parallel\``);
        await queryRunner.query(`ALTER TABLE \`runners\` DROP COLUMN \`parallel\``);
    }

}
