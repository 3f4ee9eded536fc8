/**
 * The test case's own fields in the designer (docs/console.md "The designer"): name, folder, tags,
 * description, the auth profile its API nodes inherit, whether other test cases may reference it
 * (Ref nodes), the test cases it depends on (`dependsOn`: ids, chosen by name from the workspace's;
 * docs/parallel.md "Dependencies"), its data sets (./DataSets.tsx: cards, tables of rows, CSV; "Edit all as JSON" shows
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
  testCases = [],
  selfId,
}: {
  doc: TestCaseDoc;
  onSet: SetDocField;
  problem: Problem | undefined;
  readOnly: boolean;
  authProfiles: string[];
  /** The workspace's test cases, the choices of "Depends on". */
  testCases?: TestCaseChoice[];
  /** This test case's id (not offered: a test case cannot depend on itself); undefined while new. */
  selfId?: string;
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
      <DependsOn
        value={doc.dependsOn ?? []}
        testCases={testCases}
        selfId={selfId}
        readOnly={readOnly}
        error={fieldError(problem, 'dependsOn')}
        onChange={(ids) => onSet('dependsOn', ids)}
      />
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

/** A test case "Depends on" offers: its id, name and folder ('' at the top level). */
export interface TestCaseChoice {
  id: string;
  name: string;
  folder?: string;
}

/**
 * "Depends on": the chosen test cases by name (in folder), each with a remove button, and a list to
 * add one of the workspace's others. Ids the workspace no longer has show as ids, marked unknown
 * (saving them is refused with the API's `unknown-reference`, shown here).
 */
function DependsOn({
  value,
  testCases,
  selfId,
  readOnly,
  error,
  onChange,
}: {
  value: string[];
  testCases: TestCaseChoice[];
  selfId: string | undefined;
  readOnly: boolean;
  error: string | undefined;
  onChange: (ids: string[]) => void;
}) {
  const byId = new Map(testCases.map((t) => [t.id, t]));
  const label = (t: TestCaseChoice) => (t.folder ? `${t.folder}/${t.name}` : t.name);
  const choices = testCases
    .filter((t) => t.id !== selfId && !value.includes(t.id))
    .sort((a, b) => label(a).localeCompare(label(b)));
  return (
    <div class={`field${error ? ' field-invalid' : ''}`} role="group" aria-labelledby="dz-depends-on">
      <span class="field-label" id="dz-depends-on">
        Depends on
      </span>
      <ul class="dz-depends" aria-label="Depends on">
        {value.length === 0 && <li class="muted">nothing: it starts whenever a slot is free</li>}
        {value.map((id) => {
          const t = byId.get(id);
          return (
            <li key={id} class="badge res-tag" data-id={id}>
              {t ? label(t) : <code>{id}</code>}
              {!t && testCases.length > 0 && <span class="field-error"> unknown</span>}
              {!readOnly && (
                <button
                  type="button"
                  class="dz-depends-remove"
                  aria-label={`Remove dependency ${t ? label(t) : id}`}
                  onClick={() => onChange(value.filter((x) => x !== id))}
                >
                  ×
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {!readOnly && (
        <select
          aria-label="Add a dependency"
          value=""
          disabled={choices.length === 0}
          onChange={(e) => {
            const id = e.currentTarget.value;
            if (id) onChange([...value, id]);
            e.currentTarget.value = '';
          }}
        >
          <option value="">{choices.length ? 'Add a test case it waits for…' : 'no other test case'}</option>
          {choices.map((t) => (
            <option key={t.id} value={t.id}>
              {label(t)}
            </option>
          ))}
        </select>
      )}
      {error ? (
        <span class="field-error" role="alert">
          {error}
        </span>
      ) : (
        <span class="field-hint">
          test cases that must pass first in the same run; when one fails or is skipped this one is skipped
          (docs/parallel.md "Dependencies")
        </span>
      )}
    </div>
  );
}
