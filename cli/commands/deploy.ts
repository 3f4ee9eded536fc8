/**
 * Deployments from the command line (docs/cli.md "Deployments and webhooks"; docs/deployments.md):
 *
 * - `assay deploy list` — name, runner, environment, schedule, enabled, webhook;
 * - `assay deploy run NAME [--var k=v …] [--wait …]` — run-now (`POST /v1/deployments/{id}/runs`);
 * - `assay deploy webhook NAME` — the incoming webhook address and a curl example;
 * - `assay trigger WEBHOOK_URL [--token T] [--var k=v] [--field k=v] [--env NAME] [--wait …]` — what a
 *   CI system posts to an incoming webhook (spec "Incoming webhook body"), with
 *   `Authorization: Bearer <token>` (`ASSAY_WEBHOOK_TOKEN`) or `X-API-Key` (the CLI's key).
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { RunDocument } from '../reports/types';
import type { AssayClient } from '../client';
import { ApiProblem, UnreachableError } from '../client';
import { CliError, EXIT, UsageError } from '../errors';
import type { Registrar } from '../context';
import {
  addWaitOptions,
  announceStarted,
  collectVar,
  parseReporters,
  runVariables,
  waitAndReport,
  type WaitFlags,
} from './run';

interface Deployment {
  id: string;
  name: string;
  runner: string;
  environment: string;
  schedule?: string | null;
  enabled: boolean;
  webhookEnabled?: boolean;
  webhookUrl?: string | null;
}

/** The deployment called `name` (or with that id); @throws UsageError listing the names there are. */
export async function findDeployment(client: AssayClient, name: string): Promise<Deployment> {
  const all = await client.listAll<Deployment>('/v1/deployments');
  const found = all.find((d) => d.name === name) ?? all.find((d) => d.id === name);
  if (!found)
    throw new UsageError(
      `no deployment "${name}" in this workspace${all.length ? ` (there are: ${all.map((d) => d.name).join(', ')})` : ''}`,
    );
  return found;
}

function sub(parent: Command, name: string): Command {
  return parent.commands.find((c) => c.name() === name)!;
}

export const registerDeployCommands: Registrar = (program, ctx, done) => {
  const deploy = program.command('deploy').description('deployments: list them, run one now, show its webhook address');

  deploy
    .command('list')
    .description('list the deployments of the workspace')
    .option('--json', 'print the list as JSON')
    .action(
      done(async () => {
        const client = ctx.client();
        const all = await client.listAll<Deployment>('/v1/deployments');
        if (sub(deploy, 'list').opts<{ json?: boolean }>().json) {
          ctx.print(JSON.stringify(all, null, 2));
          return EXIT.ok;
        }
        if (!all.length) ctx.note('No deployments yet (create one in the console, or with `assay apply`).');
        for (const d of all) {
          ctx.print(
            `${d.name}\t${d.runner} on ${d.environment}\t${d.schedule ? `schedule "${d.schedule}"` : 'no schedule'}\t${d.enabled ? 'enabled' : 'disabled'}${d.webhookEnabled ? '\twebhook' : ''}`,
          );
        }
        return EXIT.ok;
      }),
    );

  addWaitOptions(
    deploy
      .command('run')
      .description('run a deployment now with its runner and environment (POST /v1/deployments/{id}/runs)')
      .argument('<name>', 'deployment name (or id)')
      .option('--var <name=value>', 'run variable (repeatable)', collectVar)
      .option('--secret-var <name=value>', 'secret run variable, masked in results (repeatable)', collectVar),
  ).action(
    done(async () => {
      const cmd = sub(deploy, 'run');
      const flags = cmd.opts<WaitFlags & { var?: Record<string, string>; secretVar?: Record<string, string> }>();
      parseReporters(flags.reporter);
      const client = ctx.client();
      const d = await findDeployment(client, cmd.args[0]!);
      const variables = runVariables(flags.var, flags.secretVar);
      const body = variables ? { variables } : {};
      const started = await client.request<RunDocument>('POST', `/v1/deployments/${d.id}/runs`, {
        body,
        headers: { 'idempotency-key': randomUUID() },
        retryNetwork: true,
      });
      if (!flags.wait) {
        announceStarted(ctx, client, started);
        return EXIT.ok;
      }
      return waitAndReport(ctx, client, started, flags);
    }),
  );

  deploy
    .command('webhook')
    .description("show a deployment's incoming webhook address and how to call it")
    .argument('<name>', 'deployment name (or id)')
    .action(
      done(async () => {
        const client = ctx.client();
        const d = await findDeployment(client, sub(deploy, 'webhook').args[0]!);
        if (!d.webhookEnabled || !d.webhookUrl) {
          throw new UsageError(
            `deployment "${d.name}" has no incoming webhook; turn it on with PATCH /v1/deployments/${d.id} {"webhookEnabled": true} (or webhookEnabled: true in its YAML file)`,
          );
        }
        ctx.print(d.webhookUrl);
        ctx.note('Start a run from CI with:');
        ctx.note(`  assay trigger ${d.webhookUrl} --token "$ASSAY_WEBHOOK_TOKEN" --field branch="$BRANCH" --wait`);
        ctx.note(
          `  curl -fsS -X POST '${d.webhookUrl}' -H "Authorization: Bearer $ASSAY_WEBHOOK_TOKEN" -H 'Content-Type: application/json' -d '{"trigger": "ci"}'`,
        );
        ctx.note(
          '(the token was shown once when the webhook was made; POST /v1/deployments/{id}/rotate-webhook issues a new one)',
        );
        return EXIT.ok;
      }),
    );

  addWaitOptions(
    program
      .command('trigger')
      .description("start a run through a deployment's incoming webhook (what a CI system posts)")
      .argument('<webhookUrl>', "the deployment's webhook address (assay deploy webhook NAME)")
      .option(
        '--token <token>',
        'the webhook token (env ASSAY_WEBHOOK_TOKEN); without it the API key is sent as X-API-Key',
      )
      .option('--trigger <label>', 'trigger label stored on the run', 'ci')
      .option('-e, --env <name>', "environment overriding the deployment's")
      .option('--version-label <version>', 'version stored on the run')
      .option('--var <name=value>', 'run variable (repeatable)', collectVar)
      .option('--secret-var <name=value>', 'secret run variable, masked in results (repeatable)', collectVar)
      .option('--field <name=value>', 'free-form context such as branch or commit (repeatable)', collectVar),
  ).action(
    done(async () => {
      const cmd = program.commands.find((c) => c.name() === 'trigger')!;
      const flags = cmd.opts<
        WaitFlags & {
          token?: string;
          trigger: string;
          env?: string;
          versionLabel?: string;
          var?: Record<string, string>;
          secretVar?: Record<string, string>;
          field?: Record<string, string>;
        }
      >();
      parseReporters(flags.reporter);
      const url = cmd.args[0]!;
      if (!/^https?:\/\/[^/]+\/webhooks\/deploy\/[^/?#]+$/.test(url))
        throw new UsageError(
          `"${url}" is not a webhook address (…/webhooks/deploy/<id>; see assay deploy webhook NAME)`,
        );
      const token = flags.token ?? ctx.io.env.ASSAY_WEBHOOK_TOKEN;
      const apiKey = ctx.settings().apiKey;
      if (!token && !apiKey)
        throw new UsageError('no credential: pass --token (or set ASSAY_WEBHOOK_TOKEN), or set ASSAY_API_KEY');
      const body: Record<string, unknown> = { ...(flags.field ?? {}), trigger: flags.trigger };
      if (flags.env) body.environment = flags.env;
      if (flags.versionLabel) body.version = flags.versionLabel;
      const variables = runVariables(flags.var, flags.secretVar);
      if (variables) body.variables = variables;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      if (token) headers.authorization = `Bearer ${token}`;
      if (apiKey) headers['x-api-key'] = apiKey;
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        throw new UnreachableError(new URL(url).origin, err);
      }
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        /* shown below */
      }
      if (res.status !== 200)
        throw new ApiProblem(
          res.status,
          json.title ? json : { title: `HTTP ${res.status}`, detail: text.slice(0, 200) },
          'POST',
          new URL(url).pathname,
        );
      const runId = String(json.runId ?? '');
      if (!runId)
        throw new CliError(`the webhook answered 200 without a runId: ${text.slice(0, 200)}`, EXIT.incomplete);
      if (!flags.wait) {
        ctx.print(runId);
        ctx.note(`Started run ${runId}; follow it with: assay wait ${runId}`);
        return EXIT.ok;
      }
      if (!apiKey) throw new UsageError(`run ${runId} started; --wait needs an API key (ASSAY_API_KEY) to follow it`);
      const client = ctx.client();
      const run = await client.get<RunDocument>(`/v1/runs/${runId}`);
      return waitAndReport(ctx, client, run, flags);
    }),
  );
};
