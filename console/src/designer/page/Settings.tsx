/**
 * The test case's own fields in the designer (docs/console.md "The designer"): name, folder, tags,
 * description, the auth profile its API nodes inherit, whether other test cases may reference it
 * (Ref nodes), its data sets (./DataSets.tsx: cards, tables of rows, CSV; "Edit all as JSON" shows
 * the whole list in a code editor labelled "Data sets") and its hooks (a code editor labelled
 * "Hooks"). Each change is one `onSet(key, value)`, which the page turns into an undoable command;
 * the API's field errors are shown at their field.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Problem } from '../../api';
import { Field, fieldError } from '../../ui/kit';
import { Editor } from '../../ui/editor';
import { SCRIPT_COMPLETIONS } from '../../ui/editor-types';
import { marksUnder, pretty, readJson } from '../../resources/common';
import type { TestCaseDoc } from '../model/doc';
import { DataSetsEditor } from './DataSets';

/** Sets one field of the document (`undefined` removes an optional one). */
export type SetDocField = <K extends keyof TestCaseDoc>(key: K, value: TestCaseDoc[K] | undefined) => void;

/** The data sets' JSON text, kept while it does not parse (the document keeps the last valid value). */
function useJsonText(value: unknown): [string, (t: string) => void] {
  const [text, setText] = useState(() => pretty(value));
  useEffect(() => {
    const parsed = readJson(text, 'x');
    if (!parsed.ok || JSON.stringify(parsed.value) !== JSON.stringify(value)) setText(pretty(value));
    // Only a change from outside (undo, a JSON edit, a reload) replaces the text.
  }, [value]);
  return [text, setText];
}

export function TestCaseSettings({
  doc,
  onSet,
  problem,
  readOnly,
  authProfiles,
}: {
  doc: TestCaseDoc;
  onSet: SetDocField;
  problem: Problem | undefined;
  readOnly: boolean;
  authProfiles: string[];
}) {
  const [tags, setTags] = useState(doc.tags.join(', '));
  useEffect(() => {
    if (
      tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
        .join(',') !== doc.tags.join(',')
    )
      setTags(doc.tags.join(', '));
  }, [doc.tags]);
  const [dataSets, setDataSets] = useJsonText(doc.dataSets);
  const [allJson, setAllJson] = useState(false);
  const dsRead = readJson(dataSets, 'The data sets');
  const dsErrors = marksUnder(problem, '/dataSets', dataSets);
  const profiles = [
    ...new Set([...authProfiles, ...(doc.authProfile && doc.authProfile !== 'none' ? [doc.authProfile] : [])]),
  ];
  return (
    <div class="dz-settings">
      <div class="row">
        <Field label="Test case name" error={fieldError(problem, 'name')}>
          <input required value={doc.name} readOnly={readOnly} onInput={(e) => onSet('name', e.currentTarget.value)} />
        </Field>
        <Field label="Folder" hint="e.g. users/admin; empty for the top level" error={fieldError(problem, 'folder')}>
          <input value={doc.folder} readOnly={readOnly} onInput={(e) => onSet('folder', e.currentTarget.value)} />
        </Field>
        <Field label="Tags" hint="comma-separated" error={fieldError(problem, 'tags')}>
          <input
            value={tags}
            readOnly={readOnly}
            onInput={(e) => {
              setTags(e.currentTarget.value);
              onSet(
                'tags',
                e.currentTarget.value
                  .split(',')
                  .map((t) => t.trim())
                  .filter(Boolean),
              );
            }}
          />
        </Field>
      </div>
      <Field label="Description" error={fieldError(problem, 'description')}>
        <textarea
          rows={2}
          value={doc.description}
          readOnly={readOnly}
          onInput={(e) => onSet('description', e.currentTarget.value)}
        />
      </Field>
      <div class="row">
        <Field
          label="Auth profile"
          hint="What its API nodes are sent with unless a node says otherwise (docs/auth.md)"
          error={fieldError(problem, 'authProfile')}
        >
          <select
            value={doc.authProfile ?? ''}
            disabled={readOnly}
            onChange={(e) => onSet('authProfile', e.currentTarget.value === '' ? null : e.currentTarget.value)}
          >
            <option value="">inherit (folder, runner)</option>
            <option value="none">none</option>
            {profiles.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </Field>
        <label class="dz-check">
          <input
            type="checkbox"
            checked={doc.reusable}
            disabled={readOnly}
            onChange={(e) => onSet('reusable', e.currentTarget.checked)}
          />{' '}
          Reusable (other test cases may run it as a Ref node)
        </label>
      </div>
      <div class="field dz-ds-field">
        <div class="dz-ds-field-head">
          <span class="field-label">Data sets (rows for Iteration nodes; docs/flows.md "Data sets")</span>
          <button
            type="button"
            class="secondary small"
            aria-pressed={allJson}
            onClick={() => {
              // Entering the JSON view starts from the document, not from a text left unparsed earlier.
              if (!allJson) setDataSets(pretty(doc.dataSets));
              setAllJson(!allJson);
            }}
          >
            Edit all as JSON
          </button>
        </div>
        {allJson ? (
          <div class={dsErrors.marks.length || !dsRead.ok ? 'field-invalid' : undefined}>
            <Editor
              value={dataSets}
              language="json"
              label="Data sets"
              readOnly={readOnly}
              marks={!dsRead.ok ? [dsRead.mark] : dsErrors.marks}
              minHeight="3rem"
              onChange={(t) => {
                setDataSets(t);
                const parsed = readJson(t, 'The data sets');
                if (parsed.ok && Array.isArray(parsed.value))
                  onSet('dataSets', parsed.value as TestCaseDoc['dataSets']);
              }}
            />
            {!dsRead.ok && <span class="field-error">{dsRead.message}: the last valid data sets are kept.</span>}
            {dsErrors.errors.length > 0 && (
              <ul class="dz-ds-errors" role="alert">
                {dsErrors.errors.map((e, i) => (
                  <li key={i}>
                    <code>{e.pointer?.replace(/^#/, '')}</code>: {e.detail}
                  </li>
                ))}
              </ul>
            )}
          </div>
        ) : (
          <DataSetsEditor
            dataSets={doc.dataSets}
            readOnly={readOnly}
            errors={dsErrors.errors}
            onChange={(next) => onSet('dataSets', next)}
          />
        )}
      </div>
      <div class="field">
        <span class="field-label">
          Hooks (JavaScript run around each of its API nodes; docs/flows.md "Hooks at three levels")
        </span>
        <Editor
          value={doc.hooks?.code ?? ''}
          language="javascript"
          label="Hooks"
          completions={SCRIPT_COMPLETIONS}
          readOnly={readOnly}
          minHeight="3rem"
          onChange={(code) => onSet('hooks', code.trim() ? { ...(doc.hooks ?? {}), code } : undefined)}
        />
      </div>
    </div>
  );
}
