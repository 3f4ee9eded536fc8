import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Secrets at rest (docs/secrets.md): `deployments.signingSecret` widens to 512 characters to
 * hold a sealed secret (`v1.<keyId>.<iv>.<ciphertext>`). Existing plain values stay as they are (MODIFY
 * keeps them; TypeORM's generated DROP + ADD would have lost them) and are sealed on the deployment's
 * next write or delivery (src/store/entities/deployment-secrets.ts).
 */
export class SealedSecrets1795700000000 implements MigrationInterface {
    name = 'SealedSecrets1795700000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`deployments\` MODIFY \`signingSecret\` varchar(512) NOT NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        // Sealed secrets longer than 200 characters do not fit back: rotate them first (or restore a backup).
        await queryRunner.query(`ALTER TABLE \`deployments\` MODIFY \`signingSecret\` varchar(200) NOT NULL`);
    }

}
