/**
 * Following a run until it ends (`assay run --wait`, `assay wait`; docs/cli.md "Waiting"):
 *
 * - polls `GET /v1/runs/{runId}` (every `pollMs`; by default every 0.2 s for the first 10 s, so a
 *   short run is reported as soon as it ends, then every second; the document comes from the
 *   stored row, so polling is cheap: docs/api.md "Watch");
 * - on a terminal (stderr is a TTY and `CI` is unset): a progress bar with the test cases done, the
 *   percentage and the ETA from the run's `estimatedCompletion` (cli-progress);
 * - otherwise: a plain line whenever the progress changes, and at least every `heartbeatMs`
 *   (default 15 s) so CI logs show the run is alive: `[12:00:01] run_… running 3/10 (30%), ETA 12:00:40`;
 * - ^C: on a terminal it asks whether to cancel the run (y: cancel it and wait for its end; anything
 *   else: keep waiting; a second ^C while asked stops waiting and leaves the run going, exit 3);
 *   without a terminal SIGINT/SIGTERM cancel the run (a CI job that is cancelled cancels its run)
 *   unless `detachOnInterrupt`;
 * - gives up `graceMs` (60 s) after the run's own timeout would have ended it (exit 3).
 */
import readline from 'node:readline';
import { SingleBar } from 'cli-progress';
import type { RunDocument } from './reports/types';
import type { AssayClient } from './client';
import type { CliContext } from './context';
import { CliError, EXIT } from './errors';

export interface FollowOptions {
  /** Fixed wait between polls, ms; default: 200 for the first 10 s of waiting, then 1000. */
  pollMs?: number;
  heartbeatMs?: number;
  graceMs?: number;
  detachOnInterrupt?: boolean;
}

/** How following ended: the run's last document, or why the CLI stopped waiting. */
export type FollowOutcome =
  { kind: 'ended'; run: RunDocument } | { kind: 'detached'; run: RunDocument; reason: string };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function clock(iso: string | undefined): string {
  if (!iso) return '?';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '?' : d.toISOString().slice(11, 19);
}

function remaining(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '--';
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  if (!Number.isFinite(s)) return '--';
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

/** One plain progress line (non-TTY): `[hh:mm:ss] run_… running 3/10 test cases (30%), ETA 12:00:40 (in 39s)`. */
export function progressLine(run: RunDocument, now = new Date()): string {
  const stamp = now.toISOString().slice(11, 19);
  if (run.status === 'queued') return `[${stamp}] ${run.runId} queued`;
  const p = run.progress;
  const counts = p ? ` ${p.completed}/${p.total} test cases (${Math.round(p.percentage)}%)` : '';
  const eta = run.estimatedCompletion
    ? `, ETA ${clock(run.estimatedCompletion)} (in ${remaining(run.estimatedCompletion, now.getTime())})`
    : '';
  return `[${stamp}] ${run.runId} ${run.status}${counts}${eta}`;
}

function isFinal(run: RunDocument): boolean {
  return run.status === 'completed' || run.status === 'failed';
}

/** Asks `question` on the terminal; answers the line typed (or null when ^C is pressed again). */
function ask(ctx: CliContext, question: string): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({
      input: ctx.io.stdin,
      output: ctx.io.stderr as NodeJS.WritableStream,
      terminal: true,
    });
    let settled = false;
    rl.on('SIGINT', () => {
      settled = true;
      rl.close();
      resolve(null);
    });
    rl.on('close', () => {
      if (!settled) resolve('');
    });
    rl.question(question, (answer) => {
      settled = true;
      rl.close();
      resolve(answer);
    });
  });
}

/**
 * Polls the run until it is `completed` or `failed`, showing progress on stderr.
 * @throws CliError (exit 3) when the service stays unreachable; ApiProblem for a refused poll.
 */
export async function followRun(
  ctx: CliContext,
  client: AssayClient,
  first: RunDocument,
  options: FollowOptions = {},
): Promise<FollowOutcome> {
  const followStarted = Date.now();
  const nextPollMs = () => options.pollMs ?? (Date.now() - followStarted < 10_000 ? 200 : 1000);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const graceMs = options.graceMs ?? 60_000;
  const runId = first.runId;
  const tty = ctx.interactive;
  let run = first;
  const timeoutS = first.timeout ?? 1800;
  const giveUpAt = Date.parse(first.createdAt) + timeoutS * 1000 + graceMs;

  let bar: SingleBar | undefined;
  let lastLine = '';
  let lastLineAt = 0;
  const show = () => {
    if (tty) {
      const p = run.progress;
      const total = Math.max(1, p?.total ?? first.summary?.total ?? 1);
      const payload = {
        status: run.status,
        etaText: remaining(run.estimatedCompletion),
        done: p?.completed ?? 0,
        cases: p?.total ?? '?',
      };
      if (!bar) {
        bar = new SingleBar({
          format: ` {bar} {percentage}% | {done}/{cases} test cases | ETA {etaText} | {status}`,
          hideCursor: true,
          stream: ctx.io.stderr as NodeJS.WritableStream,
          clearOnComplete: false,
          barsize: 30,
        });
        bar.start(total, p?.completed ?? 0, payload);
      } else {
        bar.setTotal(total);
        bar.update(p?.completed ?? 0, payload);
      }
      return;
    }
    const key = `${run.status} ${run.progress?.completed ?? ''}/${run.progress?.total ?? ''}`;
    const now = Date.now();
    if (key !== lastLine || now - lastLineAt >= heartbeatMs) {
      ctx.note(progressLine(run));
      lastLine = key;
      lastLineAt = now;
    }
  };

  const state: { interrupt: 'none' | 'asking' | 'cancel' | 'detach' } = { interrupt: 'none' };
  let cancelSent = false;
  const unsubscribe = ctx.io.onSignal((signal) => {
    if (state.interrupt === 'asking') return;
    if (tty && signal === 'SIGINT' && state.interrupt === 'none') {
      state.interrupt = 'asking';
      return;
    }
    state.interrupt = options.detachOnInterrupt || state.interrupt === 'cancel' ? 'detach' : 'cancel';
  });

  const cancel = async () => {
    if (cancelSent) return;
    cancelSent = true;
    ctx.note(`${tty ? '\n' : ''}Cancelling ${runId}…`);
    try {
      await client.request('POST', `/v1/runs/${runId}/cancel`);
    } catch (err) {
      if ((err as { status?: number }).status !== 409) throw err;
    }
  };

  try {
    for (;;) {
      if (isFinal(run)) {
        if (bar) {
          const total = run.summary?.total ?? run.progress?.total;
          if (run.status === 'completed')
            bar.update(total ?? 1, { status: run.status, etaText: '0s', done: total ?? '?', cases: total ?? '?' });
          else bar.update({ status: run.status, etaText: '--' });
          bar.stop();
        } else if (!tty) show();
        return { kind: 'ended', run };
      }
      show();
      if (state.interrupt === 'asking') {
        bar?.stop();
        bar = undefined;
        const answer = await ask(ctx, `Cancel run ${runId}? [y/N] `);
        if (answer === null) state.interrupt = 'detach';
        else if (/^y(es)?$/i.test(answer.trim())) state.interrupt = 'cancel';
        else state.interrupt = 'none';
      }
      if (state.interrupt === 'cancel') await cancel();
      if (state.interrupt === 'detach') {
        bar?.stop();
        return { kind: 'detached', run, reason: `stopped waiting; the run goes on: assay wait ${runId}` };
      }
      if (Date.now() > giveUpAt) {
        bar?.stop();
        return {
          kind: 'detached',
          run,
          reason: `gave up waiting ${Math.round(graceMs / 1000)} s after the run's timeout (${timeoutS} s) should have ended it`,
        };
      }
      await sleep(nextPollMs());
      try {
        run = await client.get<RunDocument>(`/v1/runs/${runId}`);
      } catch (err) {
        if (err instanceof CliError && err.exitCode === EXIT.incomplete && Date.now() < giveUpAt) {
          // The API restarting or briefly unreachable: keep waiting, say so once per heartbeat.
          if (Date.now() - lastLineAt >= heartbeatMs) {
            ctx.note(`[${new Date().toISOString().slice(11, 19)}] ${err.message}; retrying`);
            lastLineAt = Date.now();
          }
          continue;
        }
        throw err;
      }
    }
  } finally {
    unsubscribe();
    bar?.stop();
  }
}
