import { MigrationInterface, QueryRunner } from "typeorm";

export class Bundles1795400000000 implements MigrationInterface {
    name = 'Bundles1795400000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE "bundles" ("key" varchar(64) PRIMARY KEY NOT NULL, "url" varchar(2048) NOT NULL, "finalUrl" varchar(2048) NOT NULL, "globalName" varchar(200) NOT NULL, "minify" boolean NOT NULL, "defaultAccessPath" varchar(200), "pinned" boolean NOT NULL, "blobId" varchar(64) NOT NULL, "size" integer NOT NULL, "sourcesHash" varchar(64) NOT NULL, "modules" json NOT NULL, "warnings" json NOT NULL, "builtAt" datetime(3) NOT NULL)`);
        await queryRunner.query(`CREATE TABLE "bundle_blobs" ("id" varchar(64) PRIMARY KEY NOT NULL, "size" integer NOT NULL, "code" json NOT NULL, "createdAt" datetime(3) NOT NULL)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TABLE "bundle_blobs"`);
        await queryRunner.query(`DROP TABLE "bundles"`);
    }

}
