/**
 * API key administration (run on the server, with the same DATABASE_URL as the service):
 *
 *   npm run keys -- create --workspace NAME [--name LABEL] [--scope read|run|write]
 *       creates the workspace if needed, issues a key and prints it once
 *   npm run keys -- list --workspace NAME
 *   npm run keys -- revoke --id key_...
 *
 * Scopes: `read` (GET only), `run` (read, start and cancel runs), `write` (everything; default).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { migrate, openDataSource } from '../src/store/data-source';
import { ApiKey, KEY_SCOPES, Workspace, type KeyScope } from '../src/store/entities';
import { ensureWorkspace, issueKey } from '../src/api-keys';

const USAGE =
  'usage: keys create --workspace NAME [--name LABEL] [--scope read|run|write] | keys list --workspace NAME | keys revoke --id KEY_ID';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      id: { type: 'string' },
    },
  });
  const command = positionals[0];
  const dataSource = await openDataSource(loadConfig().database);
  try {
    await migrate(dataSource);
    if (command === 'create') {
      if (!values.workspace) throw new Error(`--workspace is required\n${USAGE}`);
      const scope = (values.scope ?? 'write') as KeyScope;
      if (!KEY_SCOPES.includes(scope)) throw new Error(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
      const workspace = await ensureWorkspace(dataSource.manager, values.workspace);
      const { record, key } = await issueKey(dataSource.manager, workspace.id, { name: values.name ?? 'cli', scope });
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `Issued ${record.id} (scope ${record.scope}) in workspace "${workspace.name}". The key is shown only now.\n`,
      );
      return 0;
    }
    if (command === 'list') {
      if (!values.workspace) throw new Error(`--workspace is required\n${USAGE}`);
      const workspace = await dataSource.getRepository(Workspace).findOneBy({ name: values.workspace });
      if (!workspace) throw new Error(`No workspace "${values.workspace}"`);
      const keys = await dataSource
        .getRepository(ApiKey)
        .find({ where: { workspaceId: workspace.id }, order: { createdAt: 'ASC' } });
      for (const k of keys) {
        process.stdout.write(
          `${k.id}\t${k.prefix}…\t${k.scope}\t${k.name}\t${k.createdAt.toISOString()}\t${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}\n`,
        );
      }
      return 0;
    }
    if (command === 'revoke') {
      if (!values.id) throw new Error(`--id is required\n${USAGE}`);
      const result = await dataSource.getRepository(ApiKey).update({ id: values.id }, { revokedAt: new Date() });
      if (!result.affected) throw new Error(`No key ${values.id}`);
      process.stderr.write(`Revoked ${values.id}\n`);
      return 0;
    }
    throw new Error(USAGE);
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  },
);
