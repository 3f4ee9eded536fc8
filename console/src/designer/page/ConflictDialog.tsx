/**
 * The dialog a refused save opens (409 `test-case-changed`: someone saved the test case after this
 * page loaded it; docs/console.md "The designer"). It says who won and what differs, and offers:
 * reload theirs (my changes dropped), compare (both JSON texts side by side), overwrite (my
 * document saved without the precondition), or cancel (keep editing; nothing saved).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { pretty } from '../../resources/common';
import { dateTime } from '../../format';
import type { TestCaseDoc } from '../model/doc';
import { docChanges } from './conflict';

export function ConflictDialog({
  mine,
  theirs,
  theirsUpdatedAt,
  onReload,
  onOverwrite,
  onCancel,
}: {
  mine: TestCaseDoc;
  theirs: TestCaseDoc | undefined;
  theirsUpdatedAt: string | undefined;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [compare, setCompare] = useState(false);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const changes = theirs ? docChanges(mine, theirs) : undefined;
  const list = (label: string, ids: string[]) =>
    ids.length > 0 && (
      <li>
        {label}:{' '}
        {ids.map((id, i) => (
          <span key={id}>
            {i > 0 && ', '}
            <code>{id}</code>
          </span>
        ))}
      </li>
    );
  return (
    <dialog ref={ref} class="dz-dialog" aria-labelledby="dz-conflict-title" onCancel={onCancel}>
      <h2 id="dz-conflict-title">This test case was changed meanwhile</h2>
      <p role="alert">
        Someone saved it {theirsUpdatedAt ? `at ${dateTime(theirsUpdatedAt)}` : 'after you opened it'}: your save was
        refused (409) and nothing was overwritten.
      </p>
      {changes && (
        <ul class="dz-changes" aria-label="How theirs differs from yours">
          {changes.fields.length > 0 && <li>fields: {changes.fields.join(', ')}</li>}
          {list('nodes only in theirs', changes.added)}
          {list('nodes only in yours', changes.removed)}
          {list('nodes that differ', changes.changed)}
          {changes.fields.length + changes.added.length + changes.removed.length + changes.changed.length === 0 && (
            <li>no difference in content</li>
          )}
        </ul>
      )}
      {compare && theirs && (
        <div class="dz-compare">
          <figure>
            <figcaption>Yours</figcaption>
            <pre aria-label="Your version">{pretty(mine)}</pre>
          </figure>
          <figure>
            <figcaption>Theirs (saved)</figcaption>
            <pre aria-label="Their version">{pretty(theirs)}</pre>
          </figure>
        </div>
      )}
      <div class="row">
        <button type="button" onClick={onReload}>
          Reload theirs (discard mine)
        </button>
        {theirs && (
          <button type="button" class="secondary" aria-pressed={compare} onClick={() => setCompare(!compare)}>
            Compare
          </button>
        )}
        <button type="button" class="danger" onClick={onOverwrite}>
          Overwrite with mine
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
