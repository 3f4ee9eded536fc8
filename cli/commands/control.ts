/**
 * Live control of a running performance run (docs/cli.md, docs/performance.md "Steering a running
 * test"), as subcommands of `assay run`:
 *
 * - `assay run pause RUN_ID [--reason TEXT]`, `assay run resume RUN_ID`, `assay run stop RUN_ID`
 * - `assay run scale RUN_ID --vus N | --rate N` (VU executors: `--vus`; arrival-rate executors:
 *   `--rate`, iterations per the profile's `timeUnit`), held from now to the end of the profile
 *
 * Each is one `POST /v1/runs/{id}/control` (the API key needs scope `write`); it prints the run's
 * control state in one line on stdout (`paused`, `running`, `stopping`, the scaled target) and the
 * command's number on stderr. Exit codes (cli/errors.ts, as for every API answer): 0 applied; 2 a bad
 * flag or a refusal (400 naming the field, 404, 409 `run-not-controllable`); 3 not reached (503, network).
 */
import type { Command } from 'commander';
import type { Registrar } from '../context';
import { EXIT, UsageError } from '../errors';

/** The API's answer (api/routes/runs.ts). */
interface Controlled {
  runId: string;
  control: { seq: number; paused: boolean; stopped: boolean; vus?: number; rate?: number };
}

/** One line saying the control state: `paused`, `running (vus 6)`, `stopping`. */
export function describeControl(control: Controlled['control']): string {
  const state = control.stopped ? 'stopping' : control.paused ? 'paused' : 'running';
  const target = [
    control.vus !== undefined ? `vus ${control.vus}` : '',
    control.rate !== undefined ? `rate ${control.rate}` : '',
  ].filter(Boolean);
  return target.length ? `${state} (${target.join(', ')})` : state;
}

function count(flag: string, integer: boolean) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)) || value.trim() === '')
      throw new UsageError(`${flag} must be ${integer ? 'a whole number' : 'a number'} of 0 or more, not "${value}"`);
    return n;
  };
}

/** Adds `pause`, `resume`, `stop` and `scale` under the `run` command (registered before). */
export const registerControlCommands: Registrar = (program, ctx, done) => {
  const run = program.commands.find((c) => c.name() === 'run')!;
  const send = async (runId: string, body: Record<string, unknown>) => {
    const answer = await ctx
      .client()
      .request<Controlled>('POST', `/v1/runs/${encodeURIComponent(runId)}/control`, { body });
    ctx.print(describeControl(answer.control));
    ctx.note(`Run ${answer.runId}: command ${answer.control.seq} (${String(body.action)}) applied`);
    return EXIT.ok;
  };
  const simple = {
    pause: 'pause a running performance run: VUs finish their iteration and wait, the profile clock stops',
    resume: 'resume a paused performance run where its profile stopped',
    stop: 'stop a running performance run early: iterations under way get gracefulStop, every figure is kept',
  } as const;
  for (const [action, description] of Object.entries(simple)) {
    const cmd: Command = run
      .command(action)
      .description(`${description} (POST /v1/runs/{id}/control)`)
      .argument('<runId>', 'the run (run_…)')
      .option('--reason <text>', 'shown with the command in the run (at most 200 characters)');
    cmd.action(
      done(async () => {
        const { reason } = cmd.opts<{ reason?: string }>();
        return send(cmd.args[0]!, { action, ...(reason !== undefined ? { reason } : {}) });
      }),
    );
  }
  const scale: Command = run
    .command('scale')
    .description(
      'scale a running performance run from now to the end of its profile: --vus (VU executors) or --rate (arrival-rate executors, iterations per timeUnit) (POST /v1/runs/{id}/control)',
    )
    .argument('<runId>', 'the run (run_…)')
    .option('--vus <n>', 'VUs, all shards together', count('--vus', true))
    .option('--rate <n>', "iterations per the profile's timeUnit, all shards together", count('--rate', false))
    .option('--reason <text>', 'shown with the command in the run (at most 200 characters)');
  scale.action(
    done(async () => {
      const { vus, rate, reason } = scale.opts<{ vus?: number; rate?: number; reason?: string }>();
      if ((vus === undefined) === (rate === undefined)) throw new UsageError('scale takes one of --vus or --rate');
      return send(scale.args[0]!, {
        action: 'scale',
        ...(vus !== undefined ? { vus } : {}),
        ...(rate !== undefined ? { rate } : {}),
        ...(reason !== undefined ? { reason } : {}),
      });
    }),
  );
};
