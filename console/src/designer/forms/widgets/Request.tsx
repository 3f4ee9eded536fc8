/**
 * The request builder of API and Poll nodes, as Postman, Bruno and Hoppscotch lay it out: Method
 * (the known methods or a custom token), URL (`{{variables}}` highlighted and completed), Send
 * (when the caller can send), the node's Server, then tabs: Params (the URL's query as a table,
 * both ways in step), Headers, Body (none, JSON, form URL-encoded, raw text: docs/flows.md — a JSON
 * value is sent as `application/json`, a string as it is; Multipart: `request.multipart`, parts of
 * text and workspace files; File: `request.file`, a workspace file as the whole body), Auth (the
 * node's auth profile and the inline `request.auth` signing), Settings (timeout, redirects, TLS,
 * URL encoding, retry) and, on API nodes, Scripts (the hooks).
 */
import { useId, useRef, useState } from 'preact/hooks';
import { problemOf, uploadFile } from '../../../api';
import { explainUploadProblem } from '../../../resources/files';
import { HTTP_METHODS } from '../../../../../src/domain/types';
import { Tabs, type TabSpec } from '../../../ui/Tabs';
import type { Control, RequestControl } from '../plan';
import {
  CodeField,
  FormField,
  KeyValueTable,
  TemplateInput,
  describedBy,
  jsonProblem,
  messages,
  templateValues,
  useSynced,
  useSyncedRows,
  type Env,
} from '../controls';
import {
  FORM_TYPE,
  fileBody,
  fileNameFor,
  formToRows,
  getAt,
  joinUrl,
  mapToRows,
  multipartParts,
  requestBodyMode,
  rowsToForm,
  rowsToMap,
  sameJson,
  splitUrl,
  type BodyMode,
  type KeyValue,
  type MultipartPart,
  type QueryParam,
} from '../values';

const BODY_LABELS: Record<BodyMode, string> = {
  none: 'None',
  json: 'JSON',
  form: 'Form (URL-encoded)',
  text: 'Raw text',
  multipart: 'Multipart',
  file: 'File',
};

/** Methods that drop their body unless `alwaysSendBody` (docs/flows.md "Request settings"). */
const BODYLESS = ['GET', 'HEAD', 'COPY', 'PURGE', 'UNLOCK'];

type Request = Record<string, unknown>;

/** The request builder (see the module's notes). */
export function RequestWidget({ c, env }: { c: RequestControl; env: Env }) {
  const request = (getAt(env.node, ['request']) ?? {}) as Request;
  const child = (name: string): Control | undefined => c.request.children.find((x) => x.path[1] === name);
  const setRequest = (patch: Request) => {
    const next: Request = { ...request, ...patch };
    for (const k of Object.keys(patch)) if (patch[k] === undefined) delete next[k];
    env.set(['request'], next);
  };
  const url = typeof request.url === 'string' ? request.url : '';
  const headersCount = mapToRows(request.headers).length;
  const paramsCount = splitUrl(url).params.length;
  const mode = requestBodyMode(request);
  const errs = (prefix: string) => env.errorsUnder(prefix).length;
  const settings = c.request.children.filter(
    (x) => !['method', 'url', 'headers', 'body', 'auth', 'multipart', 'file'].includes(String(x.path[1])),
  );
  const bodyErrors = errs('/request/body') + errs('/request/multipart') + errs('/request/file');
  const settingsErrors = settings.reduce((n, x) => n + errs(x.pointer), 0) + (c.retry ? errs(c.retry.pointer) : 0);
  const authErrors = errs('/request/auth') + (c.authProfile ? errs(c.authProfile.pointer) : 0);
  const auth = child('auth');
  const headers = child('headers');

  const tabs: TabSpec[] = [
    {
      id: 'params',
      label: 'Params',
      badge: paramsCount || undefined,
      panel: () => <ParamsTab url={url} env={env} onUrl={(u) => env.set(['request', 'url'], u)} />,
    },
    {
      id: 'headers',
      label: 'Headers',
      badge: errs('/request/headers') || headersCount || undefined,
      alert: errs('/request/headers') > 0,
      panel: () => (headers ? env.render(headers) : null),
    },
    {
      id: 'body',
      label: 'Body',
      badge: bodyErrors || (mode === 'none' ? undefined : BODY_LABELS[mode]),
      alert: bodyErrors > 0,
      panel: () => <BodyTab request={request} mode={mode} env={env} setRequest={setRequest} />,
    },
    {
      id: 'auth',
      label: 'Auth',
      badge: authErrors || undefined,
      alert: authErrors > 0,
      panel: () => (
        <>
          {c.authProfile && env.render(c.authProfile)}
          {auth && env.render(auth)}
        </>
      ),
    },
    {
      id: 'settings',
      label: 'Settings',
      badge: settingsErrors || undefined,
      alert: settingsErrors > 0,
      panel: () => (
        <>
          {settings.map((x) => env.render(x))}
          {c.retry && env.render(c.retry)}
        </>
      ),
    },
  ];
  if (c.script) {
    const script = c.script;
    const scriptErrors = errs(script.pointer);
    tabs.push({
      id: 'scripts',
      label: 'Scripts',
      badge: scriptErrors || undefined,
      alert: scriptErrors > 0,
      panel: () => env.render(script),
    });
  }

  return (
    <section class="dzf-request" aria-label="Request">
      {messages(env.errors('/request')) && (
        <p class="field-error" role="alert">
          {messages(env.errors('/request'))}
        </p>
      )}
      <RequestLine request={request} env={env} />
      {c.server && env.render(c.server)}
      <Tabs label="Request" tabs={tabs} class="dzf-tabs" />
    </section>
  );
}

/** Method, URL and Send. */
function RequestLine({ request, env }: { request: Request; env: Env }) {
  const id = useId();
  const method = typeof request.method === 'string' ? request.method : '';
  const known = (HTTP_METHODS as readonly string[]).includes(method.toUpperCase());
  const [other, setOther] = useState(!known && method !== '');
  const custom = other || (!known && method !== '');
  const url = typeof request.url === 'string' ? request.url : '';
  const methodError = messages(env.errors('/request/method'));
  const urlError = messages(env.errors('/request/url'));
  const onSend = env.context.onSend;
  return (
    <div class="dzf-line">
      <FormField id={`${id}-m`} label="Method" error={methodError} required class="dzf-method">
        <select
          id={`${id}-m`}
          value={custom ? '' : method.toUpperCase()}
          disabled={env.readOnly}
          aria-invalid={methodError ? true : undefined}
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v === '') setOther(true);
            else {
              setOther(false);
              env.set(['request', 'method'], v);
            }
          }}
        >
          {HTTP_METHODS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
          <option value="">Other…</option>
        </select>
      </FormField>
      {custom && (
        <FormField id={`${id}-c`} label="Custom method" class="dzf-custom-method">
          <input
            id={`${id}-c`}
            class="mono"
            value={known ? '' : method}
            readOnly={env.readOnly}
            placeholder="PURGE"
            spellcheck={false}
            onInput={(e) => env.set(['request', 'method'], e.currentTarget.value.toUpperCase())}
          />
        </FormField>
      )}
      <FormField id={`${id}-u`} label="URL" error={urlError} required class="dzf-url">
        <TemplateInput
          id={`${id}-u`}
          value={url}
          onValue={(u) => env.set(['request', 'url'], u)}
          variables={env.context.variables}
          readOnly={env.readOnly}
          invalid={!!urlError}
          describedBy={describedBy(`${id}-u`, urlError, undefined)}
          placeholder="{{base}}/users/{{id}}"
        />
      </FormField>
      {onSend && (
        <button type="button" class="dzf-send" onClick={onSend} title="Send this request now">
          Send
        </button>
      )}
    </div>
  );
}

/** The URL's query as a table; edits rewrite the URL, edits of the URL rewrite the table. */
function ParamsTab({ url, env, onUrl }: { url: string; env: Env; onUrl: (url: string) => void }) {
  const uid = useId();
  const { rows, setRows } = useSyncedRows(
    url,
    (u) => splitUrl(u).params,
    (r, u) => {
      const s = splitUrl(u);
      return joinUrl(s.base, r.filter(filled) as QueryParam[], s.hash) === u;
    },
  );
  return (
    <KeyValueTable
      noun="Query parameter"
      rows={rows}
      readOnly={env.readOnly}
      caption="The query of the URL, as written ({{variables}} and %-escapes stay as they are)."
      onRows={(next) => {
        setRows(next);
        const s = splitUrl(url);
        onUrl(joinUrl(s.base, (next as QueryParam[]).filter(filled), s.hash));
      }}
      valueInput={templateValues(uid, env)}
    />
  );
}

const filled = (r: KeyValue) => r.name !== '' || r.value !== '';

/** Headers without a form Content-Type (leaving the form mode). */
function withoutFormType(headers: unknown): Record<string, string> | undefined {
  const rows = mapToRows(headers).filter(
    (r) => !(r.name.toLowerCase() === 'content-type' && r.value.toLowerCase().startsWith(FORM_TYPE)),
  );
  return rowsToMap(rows);
}

/** Headers with the form Content-Type (entering the form mode). */
function withFormType(headers: unknown): Record<string, string> {
  const rows = mapToRows(headers).filter((r) => r.name.toLowerCase() !== 'content-type');
  return { ...rowsToMap(rows), 'Content-Type': FORM_TYPE };
}

/** The body's mode and editor; switching modes converts the body when it can (one change). */
function BodyTab({
  request,
  mode,
  env,
  setRequest,
}: {
  request: Request;
  mode: BodyMode;
  env: Env;
  setRequest: (patch: Request) => void;
}) {
  const id = useId();
  const [refused, setRefused] = useState<string>();
  const body = request.body;
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
  const dropped = mode !== 'none' && BODYLESS.includes(method) && request.alwaysSendBody !== true;
  const error = messages(env.errors('/request/body'));

  const switchTo = (next: BodyMode) => {
    setRefused(undefined);
    if (next === mode) return;
    // One change of the whole request: the body of the new mode, the other modes' fields removed.
    const leaving: Request = {
      body: undefined,
      multipart: undefined,
      file: undefined,
      ...(mode === 'form' ? { headers: withoutFormType(request.headers) } : {}),
    };
    const textParts = multipartParts(request.multipart).filter((p) => p.file === undefined);
    const fields: KeyValue[] =
      mode === 'form'
        ? formToRows(String(body))
        : mode === 'multipart'
          ? textParts.map((p) => ({ name: p.name, value: p.value ?? '' }))
          : [];
    if (next === 'none') return setRequest(leaving);
    if (next === 'json') {
      if (mode === 'form' || mode === 'multipart') return setRequest({ ...leaving, body: rowsToMap(fields) ?? {} });
      if (typeof body === 'string' && body.trim() !== '') {
        const p = jsonProblem(body);
        if (p) return setRefused(`The text is not JSON (${p.message}): fix it as raw text first.`);
        return setRequest({ ...leaving, body: JSON.parse(body) as unknown });
      }
      return setRequest({ ...leaving, body: {} });
    }
    if (next === 'form') {
      const flat =
        mode === 'multipart'
          ? rowsToForm(fields)
          : body && typeof body === 'object' && !Array.isArray(body)
            ? rowsToForm(mapToRows(body))
            : typeof body === 'string'
              ? body
              : '';
      return setRequest({ ...leaving, body: flat, headers: withFormType(request.headers) });
    }
    if (next === 'multipart') {
      const fromBody =
        mode === 'form' || mode === 'multipart'
          ? fields
          : body && typeof body === 'object' && !Array.isArray(body)
            ? mapToRows(body)
            : [];
      const parts: MultipartPart[] = fromBody.length
        ? fromBody.map((r) => ({ name: r.name, value: r.value }))
        : [{ name: '', value: '' }];
      return setRequest({ ...leaving, multipart: parts });
    }
    if (next === 'file') {
      const first = env.context.files[0];
      return setRequest({ ...leaving, file: { file: first?.name ?? '' } });
    }
    // raw text
    const text =
      typeof body === 'string'
        ? body
        : mode === 'json'
          ? JSON.stringify(body, null, 2)
          : mode === 'form' || mode === 'multipart'
            ? rowsToForm(fields)
            : '';
    return setRequest({ ...leaving, body: text });
  };

  return (
    <div class="dzf-body">
      <div class="dzf-radios" role="radiogroup" aria-label="Body type">
        {(Object.keys(BODY_LABELS) as BodyMode[]).map((m) => (
          <label key={m} class="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === m}
              disabled={env.readOnly}
              onChange={() => switchTo(m)}
            />
            {BODY_LABELS[m]}
          </label>
        ))}
      </div>
      {refused && (
        <p class="field-error" role="alert">
          {refused}
        </p>
      )}
      {dropped && (
        <p class="notice">
          A {method} request is sent without its body unless “Send the body with GET and HEAD too” is on (Settings).
        </p>
      )}
      {mode === 'json' && <JsonBody body={body} env={env} error={error} />}
      {mode === 'text' && <TextBody body={String(body)} env={env} error={error} />}
      {mode === 'form' && <FormBody body={String(body)} env={env} error={error} />}
      {mode === 'multipart' && (
        <MultipartBody
          parts={multipartParts(request.multipart)}
          env={env}
          error={messages(env.errors('/request/multipart'))}
        />
      )}
      {mode === 'file' && <FileBody value={request.file} env={env} error={messages(env.errors('/request/file'))} />}
      {mode === 'none' && <p class="muted">No body is sent.</p>}
      <p class="field-hint dzf-hint">
        {mode === 'json'
          ? 'Sent as application/json; {{variables}} in its strings are filled when sent.'
          : mode === 'form'
            ? 'Sent as application/x-www-form-urlencoded (the Content-Type header says so); {{variables}} are filled when sent.'
            : mode === 'text'
              ? 'Sent as it is, as text/plain unless a Content-Type header says otherwise.'
              : mode === 'multipart'
                ? 'Sent as multipart/form-data: text parts as written ({{variables}} filled), file parts with the workspace file’s bytes, its name and its content type unless given here.'
                : mode === 'file'
                  ? 'The workspace file’s bytes are the whole body, sent with the content type given here, else the request’s Content-Type header, else the file’s own.'
                  : 'Files to send are uploaded on the Files page (or here, with Upload…).'}
      </p>
    </div>
  );
}

function JsonBody({ body, env, error }: { body: unknown; env: Env; error?: string }) {
  const s = useSynced(
    body,
    (v) => JSON.stringify(v, null, 2),
    (t, v) => !jsonProblem(t) && t.trim() !== '' && sameJson(JSON.parse(t) as unknown, v),
  );
  const problem = jsonProblem(s.text);
  const shown = error ?? problem?.message;
  return (
    <div class={shown ? 'field-invalid' : undefined}>
      <CodeField
        gen={s.gen}
        text={s.text}
        onText={(t) => {
          s.setText(t);
          if (t.trim() !== '' && !jsonProblem(t)) env.set(['request', 'body'], JSON.parse(t) as unknown);
        }}
        language="json"
        label="JSON body"
        readOnly={env.readOnly}
        marks={problem ? [problem.mark] : undefined}
        minHeight="8rem"
      />
      {shown && (
        <p class="field-error" role="alert">
          {shown}
          {problem && !error && ' — the node keeps its last valid body until it parses.'}
        </p>
      )}
    </div>
  );
}

function TextBody({ body, env, error }: { body: string; env: Env; error?: string }) {
  const s = useSynced(
    body,
    (t) => t,
    (t, v) => t === v,
  );
  return (
    <div class={error ? 'field-invalid' : undefined}>
      <CodeField
        gen={s.gen}
        text={s.text}
        onText={(t) => {
          s.setText(t);
          env.set(['request', 'body'], t);
        }}
        language="text"
        label="Text body"
        readOnly={env.readOnly}
      />
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function FormBody({ body, env, error }: { body: string; env: Env; error?: string }) {
  const uid = useId();
  const { rows, setRows } = useSyncedRows(body, formToRows, (r, v) => rowsToForm(r) === v);
  return (
    <>
      <KeyValueTable
        noun="Form field"
        rows={rows}
        readOnly={env.readOnly}
        onRows={(next) => {
          setRows(next);
          env.set(['request', 'body'], rowsToForm(next));
        }}
        valueInput={templateValues(uid, env)}
      />
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * A workspace file chosen by name: a select of `GET /v1/files` (a name not among them is kept and
 * said so), and "Upload…": a file from disk uploaded as a workspace file (api.ts `uploadFile`, its
 * name made from the file's), then chosen. A refused upload shows its problem (size limit, quota).
 */
function FilePicker({
  id,
  label,
  value,
  env,
  onFile,
  invalid,
}: {
  id: string;
  label: string;
  value: string;
  env: Env;
  onFile: (name: string) => void;
  invalid?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const files = env.context.files;
  const known = files.some((f) => f.name === value);
  const upload = async (file: File) => {
    setBusy(true);
    setProblem(undefined);
    try {
      const stored = await uploadFile(fileNameFor(file.name), file, file.type || undefined);
      onFile(stored.name);
      env.context.reloadFiles?.();
    } catch (err) {
      const p = explainUploadProblem(problemOf(err, 'Upload failed'), file);
      setProblem(p.detail ? `${p.title}: ${p.detail}` : p.title);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="dzf-file-pick">
      <select
        id={id}
        aria-label={label}
        value={value}
        disabled={env.readOnly}
        aria-invalid={invalid ? true : undefined}
        onChange={(e) => onFile(e.currentTarget.value)}
      >
        <option value="" disabled>
          {files.length ? 'Choose a file…' : 'No workspace files yet'}
        </option>
        {value !== '' && !known && <option value={value}>{value} (not among the workspace files)</option>}
        {files.map((f) => (
          <option key={f.name} value={f.name}>
            {f.name}
          </option>
        ))}
      </select>
      {!env.readOnly && (
        <>
          <button type="button" class="secondary small" disabled={busy} onClick={() => input.current?.click()}>
            {busy ? 'Uploading…' : 'Upload…'}
          </button>
          <input
            ref={input}
            type="file"
            hidden
            aria-label={`Upload a file for ${label}`}
            onChange={(e) => {
              const f = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (f) void upload(f);
            }}
          />
        </>
      )}
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

/** `o` without its optional `filename` and `contentType` when blank (a blank one is not stored). */
function compact<T extends { filename?: string; contentType?: string }>(o: T): T {
  const out = { ...o };
  if (!out.filename) delete out.filename;
  if (!out.contentType) delete out.contentType;
  return out;
}

/**
 * `request.multipart` as rows: name, Text/File, the value or the workspace file with (file parts
 * only, as the schema allows) the file name and content type sent; add, remove, move up and down. Every edit writes the whole
 * list (one change).
 */
function MultipartBody({ parts, env, error }: { parts: MultipartPart[]; env: Env; error?: string }) {
  const uid = useId();
  const set = (next: MultipartPart[]) => env.set(['request', 'multipart'], next);
  const patch = (i: number, p: Partial<MultipartPart>) =>
    set(parts.map((x, k) => (k === i ? compact({ ...x, ...p }) : x)));
  const move = (i: number, by: number) => {
    const next = [...parts];
    const [p] = next.splice(i, 1);
    next.splice(i + by, 0, p!);
    set(next);
  };
  const fileOf = (name: string | undefined) => env.context.files.find((f) => f.name === name);
  return (
    <div class={error ? 'field-invalid' : undefined}>
      <table class="dzf-parts" aria-label="Multipart parts">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Value, or file (name sent, type)</th>
            <th>
              <span class="dzf-sr">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {parts.map((p, i) => {
            const n = i + 1;
            const isFile = p.file !== undefined;
            const rowErrors = messages(env.errorsUnder(`/request/multipart/${i}`));
            return (
              <tr key={i} class={rowErrors ? 'field-invalid' : undefined}>
                <td>
                  <input
                    aria-label={`Part ${n} name`}
                    class="mono"
                    value={p.name}
                    readOnly={env.readOnly}
                    spellcheck={false}
                    onInput={(e) => patch(i, { name: e.currentTarget.value })}
                  />
                </td>
                <td>
                  <select
                    aria-label={`Part ${n} kind`}
                    value={isFile ? 'file' : 'text'}
                    disabled={env.readOnly}
                    onChange={(e) =>
                      e.currentTarget.value === 'file'
                        ? set(
                            parts.map((x, k) =>
                              k === i ? { name: x.name, file: env.context.files[0]?.name ?? '' } : x,
                            ),
                          )
                        : set(parts.map((x, k) => (k === i ? { name: x.name, value: '' } : x)))
                    }
                  >
                    <option value="text">Text</option>
                    <option value="file">File</option>
                  </select>
                </td>
                <td>
                  {isFile ? (
                    <>
                      <FilePicker
                        id={`${uid}-f${i}`}
                        label={`Part ${n} file`}
                        value={p.file ?? ''}
                        env={env}
                        onFile={(file) => patch(i, { file })}
                        invalid={!!rowErrors}
                      />
                      <div class="dzf-part-file">
                        <input
                          aria-label={`Part ${n} file name`}
                          title="The file name sent (default: the last segment of the workspace file's name)"
                          class="mono"
                          value={p.filename ?? ''}
                          placeholder={`File name: ${(p.file ?? '').split('/').pop() ?? ''}`}
                          readOnly={env.readOnly}
                          spellcheck={false}
                          onInput={(e) => patch(i, { filename: e.currentTarget.value })}
                        />
                        <input
                          aria-label={`Part ${n} content type`}
                          title="The part's Content-Type (default: the workspace file's)"
                          class="mono"
                          value={p.contentType ?? ''}
                          placeholder={`Type: ${fileOf(p.file)?.contentType ?? 'the file’s'}`}
                          readOnly={env.readOnly}
                          spellcheck={false}
                          onInput={(e) => patch(i, { contentType: e.currentTarget.value })}
                        />
                      </div>
                    </>
                  ) : (
                    <TemplateInput
                      id={`${uid}-v${i}`}
                      value={p.value ?? ''}
                      onValue={(value) => set(parts.map((x, k) => (k === i ? { ...x, value } : x)))}
                      variables={env.context.variables}
                      readOnly={env.readOnly}
                      label={`Part ${n} value`}
                    />
                  )}
                </td>
                <td class="dzf-part-actions">
                  {!env.readOnly && (
                    <>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Move part ${n} up`}
                        disabled={i === 0}
                        onClick={() => move(i, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Move part ${n} down`}
                        disabled={i === parts.length - 1}
                        onClick={() => move(i, 1)}
                      >
                        ↓
                      </button>
                      <button
                        type="button"
                        class="secondary small"
                        aria-label={`Remove part ${n}`}
                        onClick={() => set(parts.filter((_, k) => k !== i))}
                      >
                        ✕
                      </button>
                    </>
                  )}
                  {rowErrors && (
                    <p class="field-error" role="alert">
                      {rowErrors}
                    </p>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {!env.readOnly && (
        <button type="button" class="secondary small" onClick={() => set([...parts, { name: '', value: '' }])}>
          Add part
        </button>
      )}
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** `request.file`: the workspace file sent as the whole body, and the content type it is sent with. */
function FileBody({ value, env, error }: { value: unknown; env: Env; error?: string }) {
  const id = useId();
  const current = fileBody(value) ?? { file: '' };
  const stored = env.context.files.find((f) => f.name === current.file);
  const set = (next: { file: string; contentType?: string }) => env.set(['request', 'file'], compact(next));
  return (
    <div class="dzf-file-body">
      <FormField id={`${id}-f`} label="Body file" error={error} required>
        <FilePicker
          id={`${id}-f`}
          label="Body file"
          value={current.file}
          env={env}
          onFile={(file) => set({ ...current, file })}
          invalid={!!error}
        />
      </FormField>
      <FormField
        id={`${id}-t`}
        label="Body content type"
        hint="Default: the request's Content-Type header, else the file's own type."
      >
        <input
          id={`${id}-t`}
          class="mono"
          value={current.contentType ?? ''}
          placeholder={stored?.contentType ?? 'application/octet-stream'}
          readOnly={env.readOnly}
          spellcheck={false}
          onInput={(e) => set({ ...current, contentType: e.currentTarget.value })}
        />
      </FormField>
    </div>
  );
}
