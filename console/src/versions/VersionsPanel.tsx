/**
 * The "Versions" panel of a versioned resource's page (docs/console.md "Versions"; the API:
 * docs/teams.md "Versions"): every save is a numbered version, listed newest first with who saved
 * it, when, and what it was restored from. Tick one version to compare it with the current one,
 * or two to compare them; a test case's flow is compared as a tree (FlowDiff.tsx), every other
 * field as a table of path, before and after. **Restore** (write scope, after a confirmation)
 * `POST …/versions/{n}/restore` makes that version current again as a new version, and hands the
 * restored resource to the page (`onRestored`), which shows it.
 *
 * The panel has the id `versions`, so `…?version=3#versions` (the run page's "version 3" link)
 * scrolls to it with version 3 ticked.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { lazy } from 'preact-iso';
import { api, problemOf, type Problem } from '../api';
import { useLoad } from '../hooks';
import { dateTime, relative } from '../format';
import { can } from '../session';
import { listAll, Loading } from '../resources/common';
import { ConfirmButton, Empty, ProblemBox } from '../ui/kit';
import type { FlowNode } from '../designer/model/doc';
import { actorText, type AuditActor } from '../team/types';
import { ChangesTable } from './changes';
import { diffValues, SERVER_FIELDS } from './diff';

/*
 * The flow tree comparison is its own chunk, loaded with the designer's model when a test case's
 * versions are compared: the other resource pages, in the main chunk, do not carry the flow schemas.
 */
const FlowDiff = lazy(() => import('./FlowDiff').then((m) => m.FlowDiff));
import './versions.css';

/** `GET …/versions` items. */
export interface VersionItem {
  version: number;
  name: string;
  savedAt: string;
  savedBy: AuditActor;
  restoredFrom: number | null;
  current: boolean;
}

/** `GET …/versions/{n}`. */
export interface VersionBody extends Omit<VersionItem, 'current'> {
  body: Record<string, unknown>;
}

/** Props of {@link VersionsPanel}. */
export interface VersionsPanelProps {
  /** The resource's address: `/v1/test-cases/{id}`, `/v1/environments/{name}`… */
  base: string;
  /** What it is, in words ("test case"), for the confirmations. */
  what: string;
  /** True for a test case: its flow is compared as a tree. */
  flow?: boolean;
  /** Changes when the resource was saved on the page (its `updatedAt`): the list is read again. */
  revision?: string | number;
  /** A version to tick at first (the address's `?version=`). */
  initial?: number;
  /** Called with the resource as the restore answered it (the new current version). */
  onRestored: (resource: Record<string, unknown>) => void;
}

/** The two versions to compare: the ticked ones, or the ticked one and the current one. */
function pair(ticked: number[], current: number | undefined): [number, number] | undefined {
  if (ticked.length === 2) {
    const [a, b] = ticked as [number, number];
    return a < b ? [a, b] : [b, a];
  }
  if (ticked.length === 1 && current !== undefined && ticked[0] !== current) {
    const a = ticked[0]!;
    return a < current ? [a, current] : [current, a];
  }
  return undefined;
}

function Comparison({ base, from, to, flow }: { base: string; from: number; to: number; flow: boolean }) {
  const both = useLoad(
    (signal) =>
      Promise.all([
        api<VersionBody>('GET', `${base}/versions/${from}`, undefined, { signal }),
        api<VersionBody>('GET', `${base}/versions/${to}`, undefined, { signal }),
      ]),
    [base, from, to],
  );
  if (both.problem) return <ProblemBox problem={both.problem} onRetry={both.reload} />;
  if (!both.data || both.loading) return <Loading what={`versions ${from} and ${to}`} />;
  const [a, b] = both.data;
  const skip = flow ? [...SERVER_FIELDS, 'flow'] : SERVER_FIELDS;
  const others = diffValues(a.body, b.body, '', skip);
  return (
    <div class="vs-compare" aria-label={`Version ${from} compared with version ${to}`} role="region">
      <h3>
        Version {from} → version {to}
      </h3>
      {flow && (
        <FlowDiff
          before={(a.body.flow as FlowNode[] | undefined) ?? []}
          after={(b.body.flow as FlowNode[] | undefined) ?? []}
          label={`Flow changes from version ${from} to ${to}`}
        />
      )}
      <h4>{flow ? 'Other fields' : 'Fields'}</h4>
      <ChangesTable changes={others} label={`Field changes from version ${from} to ${to}`} />
    </div>
  );
}

export function VersionsPanel({ base, what, flow = false, revision, initial, onRestored }: VersionsPanelProps) {
  const list = useLoad((signal) => listAll<VersionItem>(`${base}/versions`, signal), [base, revision]);
  const [ticked, setTicked] = useState<number[]>(initial !== undefined ? [initial] : []);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<number>();
  const [note, setNote] = useState('');
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (initial !== undefined && location.hash === '#versions') ref.current?.scrollIntoView({ block: 'start' });
  }, []);
  const items = list.data;
  const current = items?.find((v) => v.current)?.version ?? items?.[0]?.version;
  const compared = pair(ticked, current);
  const writable = can('write');

  const tick = (n: number, on: boolean) =>
    setTicked((t) => (on ? [...t.filter((x) => x !== n), n].slice(-2) : t.filter((x) => x !== n)));

  const restore = async (n: number) => {
    setProblem(undefined);
    setNote('');
    setBusy(n);
    try {
      const resource = await api<Record<string, unknown>>('POST', `${base}/versions/${n}/restore`);
      onRestored(resource);
      setTicked([]);
      setNote(`Version ${n} restored: it is the current version now.`);
      list.reload();
    } catch (err) {
      setProblem(problemOf(err, 'Could not restore'));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section class="card vs-panel" id="versions" aria-label="Versions" ref={ref}>
      <h2>Versions</h2>
      <p class="muted">
        Every save is kept as a version. Tick one to compare it with the current version, or two to compare them.
        {writable ? ' Restore makes an older version current again (as a new version).' : ''}
      </p>
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      <ProblemBox problem={problem} />
      <p aria-live="polite" class="vs-note">
        {note}
      </p>
      {!items && !list.problem && <Loading what="the versions" />}
      {items?.length === 0 && <Empty title="No versions yet">The next save is version 1.</Empty>}
      {items && items.length > 0 && (
        <table aria-label="Versions" class="vs-table">
          <thead>
            <tr>
              <th>Compare</th>
              <th class="num">Version</th>
              <th>Saved by</th>
              <th>Saved</th>
              <th>Note</th>
              {writable && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((v) => (
              <tr key={v.version} class={ticked.includes(v.version) ? 'vs-ticked' : undefined}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare version ${v.version}`}
                    checked={ticked.includes(v.version)}
                    onChange={(e) => tick(v.version, e.currentTarget.checked)}
                  />
                </td>
                <td class="num">{v.version}</td>
                <td>{actorText(v.savedBy)}</td>
                <td title={dateTime(v.savedAt)}>
                  {dateTime(v.savedAt)} <span class="muted">({relative(v.savedAt)})</span>
                </td>
                <td>
                  {v.current && <span class="badge badge-passed">current</span>}{' '}
                  {v.restoredFrom !== null && v.restoredFrom !== undefined && (
                    <span class="muted">restored from version {v.restoredFrom}</span>
                  )}
                </td>
                {writable && (
                  <td>
                    {!v.current && (
                      <ConfirmButton
                        class="secondary small"
                        aria-label={`Restore version ${v.version}`}
                        disabled={busy !== undefined}
                        question={`Restore version ${v.version} of this ${what}? It becomes the current version (saved as a new version); unsaved changes on this page are dropped.`}
                        onConfirm={() => void restore(v.version)}
                      >
                        {busy === v.version ? 'Restoring…' : 'Restore'}
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {compared && <Comparison base={base} from={compared[0]} to={compared[1]} flow={flow} />}
      {ticked.length === 1 && ticked[0] === current && (
        <p class="muted">This is the current version: tick another one to compare.</p>
      )}
    </section>
  );
}
