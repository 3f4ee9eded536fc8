/**
 * Deployment pages (docs/deployments.md): the list, one deployment with its
 * runner, environment and schedule (cron, time zone, the next fire times Temporal reports in
 * `scheduleState.nextRunTimes`), an enabled switch (`PATCH {enabled}`), the incoming webhook's
 * address with a copy button and a curl example, its scheduling over the runner's (test cases at once,
 * stop after failures, per-origin limits: docs/parallel.md; empty: the runner's), "Run now", its recent runs and their outgoing
 * webhook deliveries; create and edit (write keys).
 *
 * The webhook token and signing secret are shown by the API once (creation, rotation, turning the
 * webhook on): this page shows them then, with a warning, from memory only (never stored in the
 * browser); afterwards the curl example uses the placeholder `$WEBHOOK_TOKEN`.
 *
 * While an enabled schedule has no fire times reported yet (its sync with Temporal is pending, or
 * Temporal did not answer), the page asks again every 2 s, so they appear without a reload.
 */
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, withQuery, type Page, type Problem, problemOf } from '../api';
import { useAction, useLoad, usePoll } from '../hooks';
import { can } from '../session';
import {
  DURABILITY_WORDS,
  type Durability,
  type Environment,
  type OriginLimits,
  type Run,
  type Runner,
} from '../types';
import { dateTime, duration, relative } from '../format';
import { Editor, type EditorMark } from '../ui/editor';
import { Badge, ConfirmButton, CopyButton, Empty, Field, PageHeader, ProblemBox, fieldError } from '../ui/kit';
import { CodeBlock, listAll, Loading, marksUnder, pretty, readJson, seg } from './common';
import { ResourceList } from './list';
import { BaselineField, BaselineText, useBaseline, withBaseline } from '../history/baseline';
import { anyParallel, ParallelDetails, ParallelInputs, parallelBody, useParallel } from './parallel';

/** A deployment as `GET /v1/deployments/{id}` answers it (docs/deployments.md). */
export interface Deployment {
  id: string;
  name: string;
  runner: string;
  environment: string;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  scheduleState: {
    status: 'none' | 'pending' | 'active' | 'paused';
    scheduleId?: string;
    nextRunTimes?: string[];
    error?: string;
  };
  webhookEnabled: boolean;
  webhookRequireAuth: boolean;
  webhookUrl?: string;
  webhooks: { onComplete?: unknown[]; onFailure?: unknown[] };
  loadProfile: unknown;
  /** What its runs compare with, over the runner's (docs/history.md "Baselines"); null: not set. */
  baseline?: string | null;
  /** Its runs' durability mode over the runner's (docs/durability.md "Durability modes"); null: the runner's. */
  durability?: Durability | null;
  /** Its runs' scheduling over the runner's (docs/parallel.md); null: the runner's. */
  concurrency?: number | null;
  bail?: number | null;
  originLimits?: OriginLimits | null;
  /** Only in the answer that issued it (creation, rotation, first enabling of the webhook). */
  webhookToken?: string;
  signingSecret?: string;
  createdAt: string;
  updatedAt: string;
}

/** An outgoing webhook delivery (`GET /v1/runs/{runId}/deliveries`). */
export interface Delivery {
  id: string;
  event: 'onComplete' | 'onFailure';
  url: string;
  method: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Secrets the API showed once, by deployment id; memory only, gone on reload. */
const onceSecrets = new Map<string, { webhookToken?: string; signingSecret?: string }>();

function keepSecrets(d: Deployment) {
  if (d.webhookToken || d.signingSecret)
    onceSecrets.set(d.id, {
      ...onceSecrets.get(d.id),
      ...(d.webhookToken ? { webhookToken: d.webhookToken } : {}),
      ...(d.signingSecret ? { signingSecret: d.signingSecret } : {}),
    });
}

/** The curl call that starts a run through the incoming webhook (docs/deployments.md "Incoming webhooks"). */
export function curlExample(webhookUrl: string): string {
  return [
    `curl -s -X POST '${webhookUrl}' \\`,
    `  -H "Authorization: Bearer $WEBHOOK_TOKEN" -H 'Content-Type: application/json' \\`,
    `  -d '{"trigger": "deployment", "version": "1.4.2", "variables": {"build": 812}}'`,
  ].join('\n');
}

/** `2026-11-23 03:00` in the IANA time zone `tz` (the schedule's), or the ISO text when the zone is unknown. */
export function inZone(iso: string, tz: string): string {
  try {
    return new Intl.DateTimeFormat('sv-SE', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).format(new Date(iso));
  } catch {
    return iso;
  }
}

/** `/deployments`: every deployment with its schedule and state. */
export function DeploymentsPage() {
  return (
    <ResourceList<Deployment>
      title="Deployments"
      sub="A runner with an environment: on a schedule, from CI through a webhook, with result notifications."
      create={{ href: '/deployments/new', label: 'New deployment' }}
      path="/v1/deployments"
      what="deployments"
      empty={{ title: 'No deployments yet', calls: ['POST /v1/deployments'] }}
      table={{
        label: 'Deployments',
        key: (d) => d.id,
        columns: [
          { head: 'Name', cell: (d) => <a href={`/deployments/${seg(d.id)}`}>{d.name}</a> },
          { head: 'Runner', cell: (d) => d.runner },
          { head: 'Environment', cell: (d) => d.environment },
          {
            head: 'Schedule',
            cell: (d) => (
              <>
                {d.schedule ? <code>{d.schedule}</code> : <span class="muted">none</span>}{' '}
                {d.schedule && <span class="muted">{d.timezone}</span>}
              </>
            ),
          },
          { head: 'Webhook', cell: (d) => (d.webhookEnabled ? 'on' : <span class="muted">off</span>) },
          {
            head: 'State',
            cell: (d) =>
              d.enabled ? <span class="badge badge-passed">enabled</span> : <span class="badge">disabled</span>,
          },
        ],
      }}
    />
  );
}

/** How often the deployment page asks again while its schedule reports no fire times yet, ms. */
const SCHEDULE_POLL_MS = 2000;

/** `/deployments/:id`: everything about one deployment; see the module comment. */
export function DeploymentPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id!;
  const dep = usePoll(
    (signal) => api<Deployment>('GET', `/v1/deployments/${seg(id)}`, undefined, { signal }),
    [id],
    SCHEDULE_POLL_MS,
    (d) => !!d && d.enabled && !!d.schedule && (d.scheduleState.nextRunTimes ?? []).length === 0,
  );
  const runs = useLoad(
    (signal) => api<Page<Run>>('GET', withQuery('/v1/runs', { deployment: id, limit: 10 }), undefined, { signal }),
    [id],
  );
  const [editing, setEditing] = useState(false);
  const [actionProblem, setActionProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const d = dep.data;
  const secrets = onceSecrets.get(id);
  // The switch shows the user's choice at once (the PATCH follows); a refused PATCH puts it back.
  const [enabledView, setEnabledView] = useState<boolean | undefined>();
  const enabledNow = enabledView ?? d?.enabled ?? false;

  const act = async (what: string, fn: () => Promise<void>) => {
    setBusy(what);
    setActionProblem(undefined);
    try {
      await fn();
    } catch (err) {
      setActionProblem(problemOf(err));
    } finally {
      setBusy(undefined);
    }
  };
  const toggleEnabled = (enabled: boolean) => {
    setEnabledView(enabled);
    return act('enabled', async () => {
      try {
        await api<Deployment>('PATCH', `/v1/deployments/${seg(id)}`, { enabled });
      } catch (err) {
        setEnabledView(undefined);
        throw err;
      }
      dep.reload();
    });
  };
  const runNow = () =>
    act('run', async () => {
      const run = await api<Run>('POST', `/v1/deployments/${seg(id)}/runs`);
      route(`/runs/${seg(run.runId)}`);
    });
  const rotate = () =>
    act('rotate', async () => {
      keepSecrets(await api<Deployment>('POST', `/v1/deployments/${seg(id)}/rotate-webhook`));
      dep.reload();
    });
  const turnOnWebhook = () =>
    act('webhook', async () => {
      keepSecrets(await api<Deployment>('PATCH', `/v1/deployments/${seg(id)}`, { webhookEnabled: true }));
      dep.reload();
    });
  const remove = () =>
    act('delete', async () => {
      await api('DELETE', `/v1/deployments/${seg(id)}`);
      route('/deployments');
    });

  return (
    <>
      <PageHeader title={d ? `Deployment ${d.name}` : 'Deployment'} sub={d && <code>{d.id}</code>}>
        {d && can('run') && (
          <button
            type="button"
            onClick={() => void runNow()}
            disabled={busy === 'run' || !enabledNow}
            title={enabledNow ? undefined : 'Disabled deployments start no runs'}
          >
            {busy === 'run' ? 'Starting…' : 'Run now'}
          </button>
        )}
        {d && can('write') && !editing && (
          <button type="button" class="secondary" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {d && can('write') && (
          <ConfirmButton
            class="danger"
            question={`Delete deployment “${d.name}” and its schedule?`}
            onConfirm={() => void remove()}
          >
            Delete
          </ConfirmButton>
        )}
      </PageHeader>
      <ProblemBox problem={dep.problem ?? actionProblem} onRetry={dep.problem ? dep.reload : undefined} />
      {!d && !dep.problem && <Loading what="the deployment" />}
      {d && editing && (
        <DeploymentForm
          deployment={d}
          onSaved={() => {
            setEditing(false);
            dep.reload();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {d && !editing && (
        <div class="res-grid">
          <section class="card" aria-label="Deployment">
            <h2>Runner and environment</h2>
            <dl class="kv">
              <dt>Runner</dt>
              <dd>
                <a href={`/runners/${seg(d.runner)}`}>{d.runner}</a>
              </dd>
              <dt>Environment</dt>
              <dd>
                <a href={`/environments/${seg(d.environment)}`}>{d.environment}</a>
              </dd>
              <dt>Kind</dt>
              <dd>{d.loadProfile ? 'performance (load profile)' : 'functional'}</dd>
              <dt>Baseline</dt>
              <dd data-testid="baseline">
                {d.baseline ? <BaselineText baseline={d.baseline} /> : <span class="muted">the runner’s</span>}
              </dd>
              <dt>Durability</dt>
              <dd data-testid="durability">
                {d.durability ? DURABILITY_WORDS[d.durability] : <span class="muted">the runner’s</span>}
              </dd>
              <ParallelDetails value={d} inherited />
            </dl>
            <label class="res-switch">
              <input
                type="checkbox"
                role="switch"
                checked={enabledNow}
                disabled={!can('write') || busy === 'enabled'}
                onChange={(e) => void toggleEnabled(e.currentTarget.checked)}
              />
              <span>Enabled</span>
              <span class="muted">
                {enabledNow
                  ? 'schedule, webhook and run-now start runs'
                  : 'starts no runs: schedule paused, webhook and run-now refused'}
              </span>
            </label>
          </section>
          <section class="card" aria-label="Schedule">
            <h2>Schedule</h2>
            {d.schedule ? (
              <>
                <dl class="kv">
                  <dt>Cron</dt>
                  <dd>
                    <code>{d.schedule}</code>
                  </dd>
                  <dt>Time zone</dt>
                  <dd>{d.timezone}</dd>
                  <dt>State</dt>
                  <dd>
                    <span class="badge">{d.scheduleState.status}</span>
                    {d.scheduleState.error && <span class="field-error"> {d.scheduleState.error}</span>}
                  </dd>
                </dl>
                <h3>Next fire times</h3>
                <ol class="res-fire-times" aria-label="Next fire times">
                  {(d.scheduleState.nextRunTimes ?? []).map((t) => (
                    <li key={t}>
                      <time dateTime={t}>{inZone(t, d.timezone)}</time>{' '}
                      <span class="muted">
                        {d.timezone} · {relative(t)}
                      </span>
                    </li>
                  ))}
                  {(d.scheduleState.nextRunTimes ?? []).length === 0 && (
                    <li class="muted">
                      {d.enabled
                        ? 'none reported yet (the schedule syncs with Temporal)'
                        : 'none: the deployment is disabled'}
                    </li>
                  )}
                </ol>
              </>
            ) : (
              <p class="muted">
                No schedule: runs start through the webhook or “Run now”.
                {can('write') ? ' Edit to add a cron schedule.' : ''}
              </p>
            )}
          </section>
        </div>
      )}
      {d && !editing && (
        <section class="card res-section" aria-label="Incoming webhook">
          <h2>Incoming webhook</h2>
          {secrets?.webhookToken && (
            <div class="notice" role="status">
              <strong>Webhook token — shown this once.</strong> Copy it now into your CI's secrets; Assay keeps only its
              hash.
              <div class="res-secret">
                <code data-testid="webhook-token">{secrets.webhookToken}</code>{' '}
                <CopyButton text={secrets.webhookToken} label="Copy webhook token" />
              </div>
            </div>
          )}
          {secrets?.signingSecret && (
            <div class="notice" role="status">
              <strong>Signing secret — shown this once.</strong> Receivers check <code>x-assay-signature</code> with it.
              <div class="res-secret">
                <code>{secrets.signingSecret}</code>{' '}
                <CopyButton text={secrets.signingSecret} label="Copy signing secret" />
              </div>
            </div>
          )}
          {d.webhookEnabled && d.webhookUrl ? (
            <>
              <div class="res-secret">
                <span class="field-label">Address</span> <code data-testid="webhook-url">{d.webhookUrl}</code>{' '}
                <CopyButton text={d.webhookUrl} label="Copy webhook address" />
              </div>
              <p class="muted">
                {d.webhookRequireAuth
                  ? 'Calls need the token (Authorization: Bearer) or an API key of scope run (X-API-Key).'
                  : 'Calls without credentials are accepted (webhookRequireAuth is off).'}
                {!secrets?.webhookToken && ' The token was shown once when it was issued; rotate to get a new one.'}
              </p>
              <div class="res-code-head">
                <span class="field-label">Start a run from CI</span>{' '}
                <CopyButton text={curlExample(d.webhookUrl)} label="Copy curl example" />
              </div>
              <CodeBlock label="curl example">{curlExample(d.webhookUrl)}</CodeBlock>
              {can('write') && (
                <ConfirmButton
                  class="secondary small"
                  question="Rotate the webhook? The old address and token stop working at once."
                  onConfirm={() => void rotate()}
                  disabled={busy === 'rotate'}
                >
                  Rotate address and token
                </ConfirmButton>
              )}
            </>
          ) : (
            <p class="muted">
              The incoming webhook is off.{' '}
              {can('write') && (
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => void turnOnWebhook()}
                  disabled={busy === 'webhook'}
                >
                  Turn on the webhook
                </button>
              )}
            </p>
          )}
        </section>
      )}
      {d && <RecentRuns runs={runs.data?.items} problem={runs.problem} reload={runs.reload} />}
    </>
  );
}

/** The deployment's recent runs, then the outgoing webhook deliveries of those runs. */
function RecentRuns({
  runs,
  problem,
  reload,
}: {
  runs: Run[] | undefined;
  problem: Problem | undefined;
  reload: () => void;
}) {
  const ids = (runs ?? []).map((r) => r.runId).join(',');
  const deliveries = useLoad(
    async (signal) => {
      const all: (Delivery & { runId: string })[] = [];
      for (const r of runs ?? []) {
        const page = await api<Page<Delivery>>('GET', `/v1/runs/${seg(r.runId)}/deliveries`, undefined, { signal });
        all.push(...page.items.map((x) => ({ ...x, runId: r.runId })));
      }
      return all;
    },
    [ids],
  );
  return (
    <>
      <h2>Recent runs</h2>
      <ProblemBox problem={problem} onRetry={reload} />
      {!runs && !problem && <Loading what="runs" />}
      {runs && runs.length === 0 && (
        <Empty title="No runs yet">Runs appear here when the schedule, the webhook or “Run now” starts one.</Empty>
      )}
      {runs && runs.length > 0 && (
        <table aria-label="Recent runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Trigger</th>
              <th>Status</th>
              <th>Result</th>
              <th>Started</th>
              <th class="num">Duration</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.runId}>
                <td>
                  <a href={`/runs/${seg(r.runId)}`}>
                    <code>{r.runId}</code>
                  </a>
                </td>
                <td>{r.trigger}</td>
                <td>
                  <Badge value={r.status} />
                </td>
                <td>
                  <Badge value={r.result} />
                </td>
                <td>{dateTime(r.createdAt)}</td>
                <td class="num">{duration(r.duration)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Webhook deliveries</h2>
      <ProblemBox problem={deliveries.problem} onRetry={deliveries.reload} />
      {!deliveries.data && !deliveries.problem && <Loading what="deliveries" />}
      {deliveries.data && deliveries.data.length === 0 && (
        <p class="muted">
          No deliveries for these runs. Add onComplete / onFailure entries to the deployment's webhooks to notify other
          systems.
        </p>
      )}
      {deliveries.data && deliveries.data.length > 0 && (
        <table aria-label="Webhook deliveries">
          <thead>
            <tr>
              <th>Run</th>
              <th>Event</th>
              <th>URL</th>
              <th>Status</th>
              <th class="num">Attempts</th>
              <th>Last answer</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((x) => (
              <tr key={x.id}>
                <td>
                  <a href={`/runs/${seg(x.runId)}`}>
                    <code>{x.runId.slice(-8)}</code>
                  </a>
                </td>
                <td>{x.event}</td>
                <td class="res-break">
                  {x.method} {x.url}
                </td>
                <td>
                  <Badge value={x.status} />
                </td>
                <td class="num">{x.attempts}</td>
                <td>
                  {x.lastStatusCode ?? ''} {x.lastError && <span class="field-error">{x.lastError}</span>}
                </td>
                <td>{dateTime(x.deliveredAt ?? x.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The form of a deployment: new (POST) or existing (PATCH of the fields shown). */
function DeploymentForm({
  deployment,
  onSaved,
  onCancel,
}: {
  deployment?: Deployment;
  onSaved: (d: Deployment) => void;
  onCancel?: () => void;
}) {
  const runners = useLoad((signal) => listAll<Runner>('/v1/runners', signal), []);
  const envs = useLoad((signal) => listAll<Environment>('/v1/environments', signal), []);
  const [name, setName] = useState(deployment?.name ?? '');
  const [runner, setRunner] = useState(deployment?.runner ?? '');
  const [environment, setEnvironment] = useState(deployment?.environment ?? '');
  const [schedule, setSchedule] = useState(deployment?.schedule ?? '');
  const [timezone, setTimezone] = useState(deployment?.timezone ?? 'UTC');
  const [enabled, setEnabled] = useState(deployment?.enabled ?? true);
  const [webhookEnabled, setWebhookEnabled] = useState(deployment?.webhookEnabled ?? false);
  const [requireAuth, setRequireAuth] = useState(deployment?.webhookRequireAuth ?? true);
  const [webhooks, setWebhooks] = useState(pretty(deployment?.webhooks ?? { onComplete: [], onFailure: [] }));
  const [mark, setMark] = useState<EditorMark | undefined>();
  const baseline = useBaseline(deployment?.baseline);
  const [durability, setDurability] = useState<Durability | ''>(deployment?.durability ?? '');
  const parallel = useParallel(deployment);
  const save = useAction(async () => {
    setMark(undefined);
    const read = readJson(webhooks, 'The webhooks');
    if (!read.ok) {
      setMark(read.mark);
      return;
    }
    const body: Record<string, unknown> = {
      name: name.trim(),
      runner,
      environment,
      schedule: schedule.trim() || null,
      timezone: timezone.trim() || 'UTC',
      enabled,
      webhookRequireAuth: requireAuth,
      webhooks: read.value,
    };
    if (!deployment || webhookEnabled !== deployment.webhookEnabled) body.webhookEnabled = webhookEnabled;
    withBaseline(body, deployment?.baseline, baseline.value);
    // Sent when the server's deployment has the field or the form sets it (as the baseline).
    if (deployment?.durability !== undefined || durability) body.durability = durability || null;
    // Empty inputs: null, the runner's.
    if (deployment?.concurrency !== undefined || anyParallel(parallel.text))
      Object.assign(body, parallelBody(parallel.text, 'null'));
    const saved = deployment
      ? await api<Deployment>('PATCH', `/v1/deployments/${seg(deployment.id)}`, body)
      : await api<Deployment>('POST', '/v1/deployments', body);
    keepSecrets(saved);
    onSaved(saved);
  });
  const p = save.problem;
  const hookErrors = marksUnder(p, '/webhooks', webhooks);
  return (
    <form
      class="card res-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <ProblemBox problem={runners.problem ?? envs.problem} />
      <div class="row">
        <Field label="Deployment name" error={fieldError(p, 'name')}>
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Runner" error={fieldError(p, 'runner')}>
          <select required value={runner} onChange={(e) => setRunner(e.currentTarget.value)}>
            <option value="">Choose a runner…</option>
            {runners.data?.map((r) => (
              <option key={r.name}>{r.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Environment" error={fieldError(p, 'environment')}>
          <select required value={environment} onChange={(e) => setEnvironment(e.currentTarget.value)}>
            <option value="">Choose an environment…</option>
            {envs.data?.map((x) => (
              <option key={x.name}>{x.name}</option>
            ))}
          </select>
        </Field>
      </div>
      <div class="row">
        <Field
          label="Schedule (cron)"
          hint="five fields, e.g. 0 3 * * * (03:00 daily); empty for none"
          error={fieldError(p, 'schedule')}
        >
          <input value={schedule} onInput={(e) => setSchedule(e.currentTarget.value)} placeholder="0 3 * * *" />
        </Field>
        <Field label="Time zone" hint="IANA, e.g. Europe/Berlin" error={fieldError(p, 'timezone')}>
          <input value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
        </Field>
      </div>
      <BaselineField state={baseline} problem={p} unset="not set (inherited)" />
      <Field
        label="Durability"
        hint="what a crash costs; a run may set its own (docs/durability.md)"
        error={fieldError(p, 'durability')}
      >
        <select value={durability} onChange={(e) => setDurability(e.currentTarget.value as Durability | '')}>
          <option value="">not set (inherited)</option>
          <option value="node">{DURABILITY_WORDS.node}</option>
          <option value="testCase">{DURABILITY_WORDS.testCase}</option>
        </select>
      </Field>
      <ParallelInputs state={parallel} problem={p} inherit="the runner’s" />
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
        (starts runs)
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={webhookEnabled}
          disabled={deployment?.webhookEnabled}
          onChange={(e) => setWebhookEnabled(e.currentTarget.checked)}
        />{' '}
        Incoming webhook (an address CI posts to)
      </label>
      <label class="check">
        <input type="checkbox" checked={requireAuth} onChange={(e) => setRequireAuth(e.currentTarget.checked)} />{' '}
        Webhook calls need a credential
      </label>
      <div class={`field${mark || hookErrors.marks.length ? ' field-invalid' : ''}`}>
        <span class="field-label">
          Outgoing webhooks (JSON: onComplete, onFailure lists of {'{url, method?, headers?, payload?}'})
        </span>
        <Editor
          value={webhooks}
          onChange={setWebhooks}
          language="json"
          label="Outgoing webhooks"
          marks={mark ? [mark] : hookErrors.marks}
          minHeight="6rem"
        />
        {mark && (
          <p class="field-error" role="alert">
            {mark.message} — nothing was sent.
          </p>
        )}
      </div>
      <ProblemBox problem={p} />
      <div class="row res-actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : deployment ? 'Save deployment' : 'Create deployment'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** `/deployments/new`: the form; creating goes to the deployment's page, which shows the token once. */
export function NewDeploymentPage() {
  const { route } = useLocation();
  if (!can('write'))
    return <Empty title="Creating deployments needs a write key">Sign in with a key of scope write.</Empty>;
  return (
    <>
      <PageHeader
        title="New deployment"
        sub="Pairs a runner with an environment; optionally a schedule and a webhook."
      />
      <DeploymentForm onSaved={(d) => route(`/deployments/${seg(d.id)}`)} />
    </>
  );
}
