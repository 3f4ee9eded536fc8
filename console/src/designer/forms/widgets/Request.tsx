/**
 * The request builder of API and Poll nodes, as Postman, Bruno and Hoppscotch lay it out: Method
 * (the known methods or a custom token), URL (`{{variables}}` highlighted and completed), Send
 * (when the caller can send), the node's Server, then tabs: Params (the URL's query as a table,
 * both ways in step), Headers, Body (none, JSON, form URL-encoded, raw text: docs/flows.md — a JSON
 * value is sent as `application/json`, a string as it is), Auth (the node's auth profile and the
 * inline `request.auth` signing), Settings (timeout, redirects, TLS, URL encoding, retry) and, on
 * API nodes, Scripts (the hooks).
 */
import { useId, useState } from 'preact/hooks';
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
  bodyMode,
  formToRows,
  getAt,
  joinUrl,
  mapToRows,
  rowsToForm,
  rowsToMap,
  sameJson,
  splitUrl,
  type BodyMode,
  type KeyValue,
  type QueryParam,
} from '../values';

const BODY_LABELS: Record<BodyMode, string> = {
  none: 'None',
  json: 'JSON',
  form: 'Form (URL-encoded)',
  text: 'Raw text',
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
  const mode = bodyMode(request.body, request.headers);
  const errs = (prefix: string) => env.errorsUnder(prefix).length;
  const settings = c.request.children.filter(
    (x) => !['method', 'url', 'headers', 'body', 'auth'].includes(String(x.path[1])),
  );
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
      badge: errs('/request/body') || (mode === 'none' ? undefined : BODY_LABELS[mode]),
      alert: errs('/request/body') > 0,
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
    const leavingForm = mode === 'form' ? { headers: withoutFormType(request.headers) } : {};
    if (next === 'none') return setRequest({ body: undefined, ...leavingForm });
    if (next === 'json') {
      if (mode === 'form') return setRequest({ body: rowsToMap(formToRows(String(body))) ?? {}, ...leavingForm });
      if (typeof body === 'string' && body.trim() !== '') {
        const p = jsonProblem(body);
        if (p) return setRefused(`The text is not JSON (${p.message}): fix it as raw text first.`);
        return setRequest({ body: JSON.parse(body) as unknown });
      }
      return setRequest({ body: {} });
    }
    if (next === 'form') {
      const flat =
        body && typeof body === 'object' && !Array.isArray(body)
          ? rowsToForm(mapToRows(body))
          : typeof body === 'string'
            ? body
            : '';
      return setRequest({ body: flat, headers: withFormType(request.headers) });
    }
    // raw text
    const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body, null, 2);
    return setRequest({ body: text, ...leavingForm });
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
      {mode === 'none' && <p class="muted">No body is sent.</p>}
      <p class="field-hint dzf-hint">
        {mode === 'json'
          ? 'Sent as application/json; {{variables}} in its strings are filled when sent.'
          : mode === 'form'
            ? 'Sent as application/x-www-form-urlencoded (the Content-Type header says so); {{variables}} are filled when sent.'
            : mode === 'text'
              ? 'Sent as it is, as text/plain unless a Content-Type header says otherwise.'
              : 'Multipart (file) bodies are not supported by API nodes.'}
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
