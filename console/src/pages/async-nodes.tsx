/**
 * The run page's parts for the nodes that wait for the world outside (docs/async.md): a Callback
 * node's callbacks, a Poll node's attempts, a WebSocket or SSE node's messages, a gRPC node's
 * status; and the live line of a running run whose node is waiting ("waiting for callback cb_…
 * since 12:01:05, until 13:01:05"), read from `GET /v1/runs/{runId}/live`.
 */
import type { NodeResult, RunWaiting, StreamMessage } from '../types';
import { dateTime, duration, show } from '../format';

/** `12:01:05` (local time) of an ISO timestamp, with the date in front when it is not today. */
export function timeOfDay(iso: string | undefined, now = new Date()): string {
  if (!iso) return '—';
  const full = dateTime(iso);
  const d = new Date(iso);
  const sameDay =
    d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? full.slice(11) : full;
}

/** One line about what a running run's node waits for (RunLiveState `waiting`). */
export function WaitingLine({ waiting }: { waiting: RunWaiting }) {
  const what =
    waiting.kind === 'callback'
      ? `waiting for callback ${waiting.callbackId ?? ''}`.trimEnd()
      : `polling: attempt ${(waiting.attempt ?? 0) + 1}${waiting.maxAttempts ? `/${waiting.maxAttempts}` : ''} at ${timeOfDay(waiting.nextAttemptAt)}`;
  return (
    <p class="waiting" data-waiting={waiting.kind} style={{ margin: '0.4rem 0 0' }}>
      <strong>{waiting.nodeId}</strong>: {what} · since {timeOfDay(waiting.since)}, until {timeOfDay(waiting.until)}
      {waiting.match && (
        <>
          {' '}
          ({waiting.kind === 'poll' ? 'until' : 'matches'} <code>{waiting.match}</code>)
        </>
      )}
    </p>
  );
}

/** A message's data on one line, cut for a table cell. */
function messageText(m: StreamMessage): string {
  const text = typeof m.data === 'string' ? m.data : JSON.stringify(m.data);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function Messages({ label, messages }: { label: string; messages: StreamMessage[] }) {
  if (!messages.length) return null;
  return (
    <table class="assertions" aria-label={label}>
      <thead>
        <tr>
          <th>At</th>
          <th>Event</th>
          <th>Data</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((m, i) => (
          <tr key={i}>
            <td>{duration(m.atMs)}</td>
            <td>{m.event ?? ''}</td>
            <td class="mono">{messageText(m)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a Callback, Poll, WebSocket, SSE, gRPC or mockVerify node's result adds to the common parts (nothing for other types). */
export function AsyncNodeDetails({ node }: { node: NodeResult }) {
  const name = node.name ?? node.id;
  if (node.type === 'poll' && node.attempts?.length) {
    const met = node.attempts.some((a) => a.conditionMet);
    return (
      <details class="poll-attempts" open={node.status === 'failed'}>
        <summary>
          {node.attempts[node.attempts.length - 1]!.attempt} attempts · condition {met ? 'met' : 'not met'}
        </summary>
        <table class="assertions" aria-label={`Attempts of ${name}`}>
          <thead>
            <tr>
              <th>Attempt</th>
              <th>Status</th>
              <th>Time</th>
              <th>Condition</th>
              <th>Then waited</th>
              <th>Asked</th>
            </tr>
          </thead>
          <tbody>
            {node.attempts.map((a) => (
              <tr key={a.attempt}>
                <td>{a.attempt}</td>
                <td>{a.error ? <span class="field-error">{a.error}</span> : (a.status ?? '—')}</td>
                <td>{duration(a.timeMs)}</td>
                <td>{a.conditionMet ? '✓ met' : '—'}</td>
                <td>{a.delayMs === undefined ? '' : duration(a.delayMs)}</td>
                <td>{a.plannedDelayMs === undefined ? '' : duration(a.plannedDelayMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    );
  }
  if (node.callback) {
    const c = node.callback;
    return (
      <div class="async-node">
        <dl class="kv">
          <dt>Callback</dt>
          <dd class="mono">{c.id}</dd>
          <dt>Received</dt>
          <dd>
            {c.received} of {c.expected}
            {c.unmatched ? ` · ${c.unmatched} did not match` : ''}
          </dd>
          <dt>Waited</dt>
          <dd>
            since {timeOfDay(c.since)}, until {timeOfDay(c.until)}
          </dd>
        </dl>
        {c.callbacks.length > 0 && (
          <table class="assertions" aria-label={`Callbacks of ${name}`}>
            <thead>
              <tr>
                <th>Received</th>
                <th>Request</th>
                <th>Body</th>
              </tr>
            </thead>
            <tbody>
              {c.callbacks.map((cb, i) => (
                <tr key={i}>
                  <td>{timeOfDay(cb.receivedAt)}</td>
                  <td class="mono">
                    {cb.method} {cb.path || '/'}
                  </td>
                  <td>
                    <pre>{cb.body === undefined ? '' : show(cb.body)}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    );
  }
  if (node.stream) {
    const s = node.stream;
    const shown = s.first.length + s.last.length;
    return (
      <div class="async-node">
        <dl class="kv">
          <dt>Messages</dt>
          <dd>
            {s.count} · stopped by {s.stoppedBy}
            {s.status !== undefined ? ` · handshake ${s.status}` : ''}
            {s.connectMs !== undefined ? ` · connected in ${duration(s.connectMs)}` : ''}
          </dd>
          {s.closed && (
            <>
              <dt>Closed</dt>
              <dd>
                {s.closed.code ?? '—'}
                {s.closed.reason ? ` ${s.closed.reason}` : ''}
              </dd>
            </>
          )}
        </dl>
        {shown > 0 && (
          <details>
            <summary>
              {s.last.length ? `First ${s.first.length} and last ${s.last.length} messages` : `Messages`}
            </summary>
            <Messages label={`First messages of ${name}`} messages={s.first} />
            {s.last.length > 0 && (
              <>
                {s.count > shown && <div class="muted">{s.count - shown} messages not kept</div>}
                <Messages label={`Last messages of ${name}`} messages={s.last} />
              </>
            )}
          </details>
        )}
      </div>
    );
  }
  if (node.mockVerify) {
    const v = node.mockVerify;
    return (
      <div class="async-node mock-verify">
        <dl class="kv">
          <dt>Mock journal</dt>
          <dd>
            <span class={node.status === 'failed' ? 'field-error' : ''}>
              {v.count} found, expected {v.expected}
            </span>
            {v.candidates > v.count ? ` · ${v.candidates - v.count} matched all but where` : ''}
            {v.truncated ? ' · only the oldest 5,000 requests looked at' : ''}
          </dd>
          <dt>Matching</dt>
          <dd class="mono">{v.matching}</dd>
          <dt>Scope</dt>
          <dd>{v.scope === 'run' ? "this run's" : v.scope === 'shared' ? 'shared (no scope)' : 'any'}</dd>
          {v.violations.length > 0 && (
            <>
              <dt>Violations</dt>
              <dd class="field-error">{v.violations.map((x) => `${x.in} ${x.field}: ${x.message}`).join('; ')}</dd>
            </>
          )}
        </dl>
        {v.requests.length > 0 && (
          <details>
            <summary>{v.requests.length < v.count ? `First ${v.requests.length} requests` : 'Requests'}</summary>
            <table class="assertions" aria-label={`Requests found by ${name}`}>
              <thead>
                <tr>
                  <th>Received</th>
                  <th>Request</th>
                  <th>Status</th>
                  <th>Body</th>
                </tr>
              </thead>
              <tbody>
                {v.requests.map((r) => (
                  <tr key={r.id}>
                    <td>{timeOfDay(r.receivedAt)}</td>
                    <td class="mono">
                      {r.method} {r.path}
                    </td>
                    <td>{r.status === 0 ? (r.fault ?? 'fault') : r.status}</td>
                    <td>
                      <pre>{r.body === undefined ? '' : show(r.body)}</pre>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        )}
      </div>
    );
  }
  if (node.grpc) {
    const g = node.grpc;
    return (
      <dl class="kv async-node">
        <dt>gRPC status</dt>
        <dd>
          <span class={g.code === 0 ? '' : 'field-error'}>
            {g.status} ({g.code})
          </span>
          {g.details ? ` · ${g.details}` : ''}
        </dd>
        <dt>Messages</dt>
        <dd>
          {g.messages} · {duration(g.timeMs)}
        </dd>
      </dl>
    );
  }
  return null;
}
