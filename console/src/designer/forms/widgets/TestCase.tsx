/**
 * The Ref node's test case picker (label "Test case"): the workspace's test cases from the form's
 * context, reusable ones first (docs/reuse.md "Sub-flows"), each shown by name with its id; an id
 * the list does not hold is kept and shown as not found.
 */
import { useId } from 'preact/hooks';
import type { TestCaseControl } from '../plan';
import { FormField, describedBy, messages, type Env } from '../controls';
import { getAt } from '../values';

/** The test case select (see the module's notes). */
export function TestCasePicker({ c, env }: { c: TestCaseControl; env: Env }) {
  const id = useId();
  const value = getAt(env.node, c.path);
  const current = typeof value === 'string' ? value : '';
  const error = messages(env.errors(c.pointer));
  const reusable = env.context.testCases.filter((t) => t.reusable);
  const others = env.context.testCases.filter((t) => !t.reusable);
  const known = env.context.testCases.some((t) => t.id === current);
  const hint = 'Reusable test cases are listed first. Mode "ref" runs its current flow; "clone" copies it here.';
  return (
    <FormField id={id} label={c.label} hint={hint} error={error} required={c.required}>
      <select
        id={id}
        value={current}
        disabled={env.readOnly}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        onChange={(e) => env.set(c.path, e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
      >
        <option value="">(choose a test case)</option>
        {reusable.length > 0 && (
          <optgroup label="Reusable">
            {reusable.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.id})
              </option>
            ))}
          </optgroup>
        )}
        {others.length > 0 && (
          <optgroup label="Other test cases">
            {others.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.id})
              </option>
            ))}
          </optgroup>
        )}
        {current !== '' && !known && <option value={current}>{current} (not found)</option>}
      </select>
    </FormField>
  );
}
