/**
 * Live controls of a running performance run (docs/performance.md "Steering a running test"):
 * Pause / Resume, Scale (VUs, or the arrival rate per `timeUnit` for arrival-rate executors, from
 * now to the end of the profile), Stop (after a confirmation), and the log of commands — who, what,
 * when — from the run document's `performance.control.commands`. Each button is one
 * `POST /v1/runs/{id}/control`; a refusal (400, 409) shows as a problem box. Shown to keys that may
 * start runs (scope `run`, the endpoint's).
 */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../hooks';
import { can } from '../session';
import { dateTime } from '../format';
import { ConfirmButton, ProblemBox } from '../ui/kit';

/** A recorded command (src/domain/load-control.ts `LoadCommand`). */
export interface LoadCommandView {
  seq: number;
  action: 'pause' | 'resume' | 'scale' | 'stop';
  vus?: number;
  rate?: number;
  reason?: string;
  by: string;
  at: string;
}

/** What the run document's `performance` says of live control (api/routes/runs.ts). */
export interface LoadControlView {
  state?: 'running' | 'paused' | 'stopping';
  scaleBy?: 'vus' | 'rate';
  activeVUs?: number;
  control?: { commands: LoadCommandView[] };
}

/** One command as a line: `scale to 6 VUs`, `pause — deploying the database`. */
export function commandText(c: LoadCommandView): string {
  const what =
    c.action === 'scale'
      ? c.vus !== undefined
        ? `scale to ${c.vus} VUs`
        : `scale to rate ${c.rate ?? '?'}`
      : c.action;
  return c.reason ? `${what} — ${c.reason}` : what;
}

/** The controls and the commands log; `onChanged` reloads the run after a command. */
export function LoadControls({
  runId,
  performance,
  running,
  onChanged,
}: {
  runId: string;
  performance: LoadControlView;
  running: boolean;
  onChanged: () => void;
}) {
  const state = performance.state ?? 'running';
  const scaleBy = performance.scaleBy ?? 'vus';
  const [target, setTarget] = useState('');
  const send = useAction(async (body: Record<string, unknown>) => {
    await api('POST', `/v1/runs/${encodeURIComponent(runId)}/control`, body);
    onChanged();
  });
  const commands = performance.control?.commands ?? [];
  const steerable = running && state !== 'stopping' && can('run');
  return (
    <section class="load-controls" aria-label="Load controls">
      {steerable && (
        <div class="actions" role="group" aria-label="Steer the load">
          {state === 'paused' ? (
            <button type="button" disabled={send.busy} onClick={() => void send.run({ action: 'resume' })}>
              Resume
            </button>
          ) : (
            <button type="button" disabled={send.busy} onClick={() => void send.run({ action: 'pause' })}>
              Pause
            </button>
          )}
          <form
            class="inline"
            onSubmit={(e) => {
              e.preventDefault();
              const n = Number(target);
              if (target.trim() !== '' && Number.isFinite(n)) void send.run({ action: 'scale', [scaleBy]: n });
            }}
          >
            <label>
              {scaleBy === 'vus' ? 'VUs' : 'Rate per time unit'}{' '}
              <input
                type="number"
                min={0}
                step={scaleBy === 'vus' ? 1 : 'any'}
                value={target}
                placeholder={scaleBy === 'vus' ? String(performance.activeVUs ?? '') : ''}
                onInput={(e) => setTarget((e.target as HTMLInputElement).value)}
                aria-label={scaleBy === 'vus' ? 'Scale to VUs' : 'Scale to rate'}
              />
            </label>{' '}
            <button type="submit" disabled={send.busy || target.trim() === ''}>
              Scale
            </button>
          </form>
          <ConfirmButton
            class="danger"
            question="Stop the load now? Iterations under way get their gracefulStop; every figure is kept."
            onConfirm={() => void send.run({ action: 'stop' })}
            disabled={send.busy}
          >
            Stop
          </ConfirmButton>
          <span class="muted" aria-live="polite">
            {state === 'paused' ? 'Paused: the profile clock is stopped' : ''}
          </span>
        </div>
      )}
      {running && state === 'stopping' && <p class="muted">Stopping: iterations under way are finishing.</p>}
      <ProblemBox problem={send.problem} />
      {commands.length > 0 && (
        <table class="commands" aria-label="Load commands">
          <thead>
            <tr>
              <th>#</th>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
            </tr>
          </thead>
          <tbody>
            {commands.map((c) => (
              <tr key={c.seq}>
                <td>{c.seq}</td>
                <td>{dateTime(c.at)}</td>
                <td>{c.by}</td>
                <td>{commandText(c)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
