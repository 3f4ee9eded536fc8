/**
 * "From a form" on `/designs/new`: an API design (docs/mocks.md "Designs") built from form fields
 * rather than typed JSON. Method, path, name and one response (status, code, and a body given as a
 * table of fields typed like environment variables, or as JSON for bodies a table cannot express),
 * sent as `POST /v1/designs`; the API's field errors (`errors[].field`: `path`,
 * `responses[0].status`…) are shown at their field, anything else in a problem box.
 */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../hooks';
import { Field, ProblemBox, fieldError } from '../ui/kit';
import { pretty, readJson, typedValue } from './common';
import { HTTP_METHODS } from '../../../src/domain/types';
import type { Design } from './design-types';

/** One row of the body table: a top-level field's name and its value as typed. */
export interface BodyRow {
  name: string;
  value: string;
}

/** The form's state, all text as typed. */
export interface DesignFormState {
  method: string;
  path: string;
  name: string;
  status: string;
  code: string;
  rows: BodyRow[];
  /** True: the body is `json` (the "Body as JSON instead" toggle); false: the `rows`. */
  bodyAsJson: boolean;
  json: string;
}

/** What the form shows first: GET, status 200, code 1 (the first code of a status), one empty field row. */
export const EMPTY_DESIGN_FORM: DesignFormState = {
  method: 'GET',
  path: '',
  name: '',
  status: '200',
  code: '1',
  rows: [{ name: '', value: '' }],
  bodyAsJson: false,
  json: '',
};

/**
 * A body field's value as typed, the environments page's rule (`typedValue`: `true`/`false` →
 * boolean, a plain decimal number → number, else the text) plus `null` → null.
 */
export function bodyValue(text: string): string | number | boolean | null {
  return text === 'null' ? null : typedValue(text);
}

/** A client-side refusal, before anything is sent: the form field at fault and why. */
export interface FormRefusal {
  /** `body` (the table or the JSON text) or `field-<n>` (row n, 1-based). */
  at: string;
  message: string;
}

/**
 * The body the table's rows make: an object of the named rows' typed values (rows with neither
 * name nor value are skipped), or `undefined` when no row is named (the response has no body).
 * Refuses a row with a value but no name, and two rows of one name.
 */
export function rowsToBody(
  rows: BodyRow[],
): { ok: true; data?: Record<string, unknown> } | ({ ok: false } & FormRefusal) {
  const data: Record<string, unknown> = {};
  for (const [i, r] of rows.entries()) {
    const name = r.name.trim();
    if (!name && !r.value) continue;
    if (!name) return { ok: false, at: `field-${i + 1}`, message: `Field ${i + 1} has a value but no name.` };
    if (Object.hasOwn(data, name))
      return { ok: false, at: `field-${i + 1}`, message: `Two fields are named “${name}”.` };
    data[name] = bodyValue(r.value);
  }
  return Object.keys(data).length ? { ok: true, data } : { ok: true };
}

/** A number field's text as sent: a number when it reads as one, else the text (the API names the field). */
function numberOrText(text: string): number | string {
  const t = text.trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
}

/**
 * The `POST /v1/designs` body of the form: `{method, path, name?, responses: [{status, code, data?}]}`,
 * `name` left out when empty, `data` left out when the body is empty. Refuses (nothing to send) a
 * bad body table ({@link rowsToBody}) or body JSON that does not parse.
 */
export function designFromForm(
  f: DesignFormState,
): { ok: true; body: Record<string, unknown> } | ({ ok: false } & FormRefusal) {
  let data: unknown;
  if (f.bodyAsJson) {
    if (f.json.trim()) {
      const read = readJson(f.json, 'The body');
      if (!read.ok) return { ok: false, at: 'body', message: read.message };
      data = read.value;
    }
  } else {
    const rows = rowsToBody(f.rows);
    if (!rows.ok) return rows;
    data = rows.data;
  }
  const response: Record<string, unknown> = { status: numberOrText(f.status), code: numberOrText(f.code) };
  if (data !== undefined) response.data = data;
  const body: Record<string, unknown> = { method: f.method, path: f.path, responses: [response] };
  if (f.name.trim()) body.name = f.name.trim();
  return { ok: true, body };
}

/** The fields of the API's errors this form shows in place (the rest go to the problem box). */
const PLACED = ['method', 'path', 'name', 'responses[0].status', 'responses[0].code', 'responses[0].data'];

/** The card "From a form": `onCreated` gets the created design (the page then opens it). */
export function DesignForm({ onCreated }: { onCreated: (d: Design) => void }) {
  const [f, setF] = useState<DesignFormState>(EMPTY_DESIGN_FORM);
  const [refusal, setRefusal] = useState<FormRefusal | undefined>();
  const set = (patch: Partial<DesignFormState>) => setF((prev) => ({ ...prev, ...patch }));
  const setRow = (i: number, patch: Partial<BodyRow>) =>
    setF((prev) => ({ ...prev, rows: prev.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));
  const create = useAction(async () => {
    setRefusal(undefined);
    const made = designFromForm(f);
    if (!made.ok) {
      setRefusal(made);
      return;
    }
    onCreated(await api<Design>('POST', '/v1/designs', made.body));
  });
  const p = create.problem;
  const err = (field: string) => fieldError(p, field);
  const placed = (field: string | undefined) =>
    field !== undefined && PLACED.some((x) => field === x || field.startsWith(`${x}.`) || field.startsWith(`${x}[`));
  const rest = p && { ...p, errors: p.errors?.filter((e) => !placed(e.field)) };
  const bodyError = (refusal?.at === 'body' ? refusal.message : undefined) ?? err('responses[0].data');
  const toggleJson = (on: boolean) => {
    setRefusal(undefined);
    // Carry the table over into the JSON the first time, so switching does not lose what was typed.
    if (on && !f.json.trim()) {
      const rows = rowsToBody(f.rows);
      set({ bodyAsJson: true, json: rows.ok && rows.data ? pretty(rows.data) : '' });
    } else set({ bodyAsJson: on });
  };
  return (
    <form
      class="card res-form"
      aria-label="From a form"
      // The API checks every field and names the one at fault (shown at it): no second, browser-side set of rules.
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void create.run();
      }}
    >
      <h2>From a form</h2>
      <p class="muted">
        A method and path with one response; add more responses later with PUT, or write the whole design as JSON below.
        In the path, <code>{'{userId}'}</code> matches one whole segment.
      </p>
      <div class="row">
        <Field label="Method" error={err('method')}>
          <select value={f.method} onChange={(e) => set({ method: e.currentTarget.value })}>
            {HTTP_METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Path" error={err('path')}>
          <input value={f.path} placeholder="/users/{userId}" onInput={(e) => set({ path: e.currentTarget.value })} />
        </Field>
        <Field label="Name" error={err('name')}>
          <input value={f.name} placeholder="Get a user" onInput={(e) => set({ name: e.currentTarget.value })} />
        </Field>
      </div>
      <h3>Response</h3>
      <p class="muted">
        Status: the HTTP status, 100–599. Code: a number telling responses of one status apart (<code>?_code_=1</code>{' '}
        picks this one).
      </p>
      <div class="row">
        <Field label="Status" error={err('responses[0].status')}>
          <input
            type="number"
            min={100}
            max={599}
            value={f.status}
            onInput={(e) => set({ status: e.currentTarget.value })}
          />
        </Field>
        <Field label="Code" error={err('responses[0].code')}>
          <input type="number" min={1} value={f.code} onInput={(e) => set({ code: e.currentTarget.value })} />
        </Field>
      </div>
      <div class={`field res-design-body${bodyError ? ' field-invalid' : ''}`}>
        <span class="field-label" id="design-form-body">
          Body
        </span>
        <label class="check">
          <input type="checkbox" checked={f.bodyAsJson} onChange={(e) => toggleJson(e.currentTarget.checked)} /> Body as
          JSON instead
        </label>
        {f.bodyAsJson ? (
          <textarea
            rows={8}
            aria-label="Body (JSON)"
            value={f.json}
            placeholder='{"id": 1, "tags": ["a"], "address": {"city": "Paris"}}'
            onInput={(e) => set({ json: e.currentTarget.value })}
          />
        ) : (
          <BodyTable rows={f.rows} refusal={refusal} onRow={setRow} onRows={(rows) => set({ rows })} />
        )}
        <span class="field-hint">
          {f.bodyAsJson
            ? 'Any JSON value; empty: no body.'
            : 'A JSON object, one field per row; values typed as on the environments page: numbers, true/false, null, else text. No named field: no body.'}
        </span>
        {bodyError && (
          <span class="field-error" role="alert">
            {bodyError}
            {refusal?.at === 'body' && ' — nothing was sent.'}
          </span>
        )}
      </div>
      <ProblemBox problem={rest} />
      <button type="submit" disabled={create.busy}>
        {create.busy ? 'Creating…' : 'Create from form'}
      </button>
    </form>
  );
}

/** The body's fields as rows: name, value, the type the value is sent as, and a remove button. */
function BodyTable({
  rows,
  refusal,
  onRow,
  onRows,
}: {
  rows: BodyRow[];
  refusal: FormRefusal | undefined;
  onRow: (i: number, patch: Partial<BodyRow>) => void;
  onRows: (rows: BodyRow[]) => void;
}) {
  return (
    <>
      {rows.length > 0 && (
        <table class="res-vars" aria-labelledby="design-form-body">
          <thead>
            <tr>
              <th>Field</th>
              <th>Value</th>
              <th>Type</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const n = i + 1;
              const wrong = refusal?.at === `field-${n}` ? refusal.message : undefined;
              const v = bodyValue(r.value);
              return (
                <tr key={i} class={wrong ? 'field-invalid' : undefined}>
                  <td>
                    <input
                      aria-label={`Field ${n} name`}
                      aria-invalid={wrong ? true : undefined}
                      value={r.name}
                      placeholder="id"
                      onInput={(e) => onRow(i, { name: e.currentTarget.value })}
                    />
                    {wrong && (
                      <span class="field-error" role="alert">
                        {wrong} — nothing was sent.
                      </span>
                    )}
                  </td>
                  <td class="res-value">
                    <input
                      aria-label={`Field ${n} value`}
                      value={r.value}
                      onInput={(e) => onRow(i, { value: e.currentTarget.value })}
                    />
                  </td>
                  <td class="muted" data-testid={`field-${n}-type`}>
                    {v === null ? 'null' : typeof v}
                  </td>
                  <td>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Remove field ${n}`}
                      onClick={() => onRows(rows.filter((_, j) => j !== i))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div>
        <button type="button" class="secondary small" onClick={() => onRows([...rows, { name: '', value: '' }])}>
          Add field
        </button>
      </div>
    </>
  );
}
