/**
 * API key and first-admin administration (run on the server, with the same DATABASE_URL as the
 * service; docs/teams.md "API keys", "Bootstrapping the first admin"):
 *
 *   npm run keys -- create --workspace NAME [--name LABEL] [--scope read|run|write|admin] [--expires-in-days N]
 *       creates the workspace if needed, issues a workspace key and prints it once
 *   npm run keys -- list --workspace NAME
 *   npm run keys -- revoke --id key_...
 *   npm run keys -- admin --email EMAIL --workspace NAME [--role owner|admin|editor|runner|viewer] [--name NAME]
 *       creates the workspace if needed and gives the person with that e-mail the role there
 *       (default owner); a person who never signed in is made, and bound at their first sign-in
 *       with that verified e-mail (src/teams/people.ts)
 *
 * Scopes: `read` (GET only), `run` (read, start and cancel runs), `write` (change what the
 * workspace holds; default), `admin` (also keys, members and the audit trail).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { migrate, openDataSource } from '../src/store/data-source';
import { ApiKey, KEY_SCOPES, Workspace, WorkspaceMember, type KeyScope } from '../src/store/entities';
import { ensureWorkspace, issueKey } from '../src/api-keys';
import { provisionUser } from '../src/teams/people';
import { ROLES, type Role } from '../src/teams/roles';

const USAGE =
  'usage: keys create --workspace NAME [--name LABEL] [--scope read|run|write|admin] [--expires-in-days N] | keys list --workspace NAME | keys revoke --id KEY_ID | keys admin --email EMAIL --workspace NAME [--role owner|admin|editor|runner|viewer] [--name NAME]';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      id: { type: 'string' },
      'expires-in-days': { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
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
      let expiresAt: Date | null = null;
      if (values['expires-in-days'] !== undefined) {
        const days = Number(values['expires-in-days']);
        if (!Number.isInteger(days) || days < 1 || days > 3650)
          throw new Error('--expires-in-days must be a whole number of days from 1 to 3650');
        expiresAt = new Date(Date.now() + days * 86_400_000);
      }
      const workspace = await ensureWorkspace(dataSource.manager, values.workspace);
      const { record, key } = await issueKey(dataSource.manager, workspace.id, {
        name: values.name ?? 'cli',
        scope,
        createdBy: 'cli',
        expiresAt,
      });
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `Issued ${record.id} (scope ${record.scope}${expiresAt ? `, expires ${expiresAt.toISOString()}` : ''}) in workspace "${workspace.name}". The key is shown only now.\n`,
      );
      return 0;
    }
    if (command === 'admin') {
      if (!values.email || !values.workspace) throw new Error(`--email and --workspace are required\n${USAGE}`);
      const email = values.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error('--email must be an e-mail address');
      const role = (values.role ?? 'owner') as Role;
      if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
      const { user, workspace } = await dataSource.transaction(async (manager) => {
        const ws = await ensureWorkspace(manager, values.workspace!);
        const now = new Date();
        const found = await provisionUser(manager, email, values.name);
        const members = manager.getRepository(WorkspaceMember);
        const existing = await members.findOneBy({ workspaceId: ws.id, userId: found.id });
        if (existing) await members.update({ workspaceId: ws.id, userId: found.id }, { role, updatedAt: now });
        else
          await members.insert({
            workspaceId: ws.id,
            userId: found.id,
            role,
            groupRole: null,
            createdAt: now,
            updatedAt: now,
          });
        return { user: found, workspace: ws };
      });
      process.stdout.write(`${user.id}\n`);
      process.stderr.write(
        `${user.email} is ${role} of workspace "${workspace.name}"${user.subject ? '' : ' (bound at their first sign-in with this verified e-mail)'}.\n`,
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
