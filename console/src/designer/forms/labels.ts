/**
 * The labels of the node forms' controls (what browser tests and screen readers find them by), and
 * the assertion operators as the forms show them (node types: model/summary.ts `typeLabel`). Pure:
 * no DOM, no Preact; compiled by the root tsconfig too (test/unit/designer-forms.test.ts).
 *
 * A field's label is, in order: `LABELS["<type>.<path>"]`, `LABELS["<path>"]`, `LABELS["<name>"]`,
 * else its name in words (`maxRedirects` → "Max redirects", `timeoutMs` → "Timeout (ms)").
 */
import type { AssertionOperator, FlowNodeType } from '../../../../src/domain/types';

/** Labels that words alone would get wrong, keyed by `<type>.<dotted path>`, `<dotted path>` or field name. */
export const LABELS: Readonly<Record<string, string>> = {
  id: 'ID',
  name: 'Name',
  disabled: 'Disabled',
  url: 'URL',
  method: 'Method',
  headers: 'Headers',
  body: 'Body',
  'request.auth': 'Signing',
  'request.auth.type': 'Signing scheme',
  'request.strictSSL': 'Check TLS certificates (strict SSL)',
  'request.disableUrlEncoding': 'Send the URL as written (no URL encoding)',
  'request.followRedirects': 'Follow redirects',
  'request.followOriginalHttpMethod': 'Keep the method on 301/302/303 redirects',
  'request.followAuthorizationHeader': 'Keep Authorization on redirects to another host',
  'request.alwaysSendBody': 'Send the body with GET and HEAD too',
  'request.refererOnRedirect': 'Send Referer on redirects',
  authProfile: 'Auth profile',
  server: 'Server',
  script: 'Script',
  'script.code': 'Script code',
  'script.libs': 'Libraries',
  retry: 'Retry',
  'retry.attempts': 'Attempts',
  'retry.onStatus': 'Retry on statuses',
  'retry.onNetworkError': 'Retry on network errors',
  'retry.backoff': 'Backoff factor',
  assertions: 'Assertions',
  extract: 'Extractions',
  condition: 'Condition',
  while: 'While',
  breakCondition: 'Break condition',
  'loop.count': 'Count',
  items: 'Items',
  dataSet: 'Data set',
  as: 'Item name',
  variable: 'Variable',
  'wait.ms': 'Wait (ms)',
  'wait.expression': 'Wait expression (ms)',
  set: 'Variables to set',
  concurrency: 'Concurrency',
  skipIf: 'Skip if',
  continueOnFailure: 'Continue on failure',
  testCaseId: 'Test case',
  mode: 'Mode',
  inputs: 'Inputs',
  outputs: 'Outputs',
  until: 'Until',
  interval: 'Interval',
  maxInterval: 'Max interval',
  jitter: 'Jitter',
  match: 'Match',
  'signature.scheme': 'Signature scheme',
  'signature.secret': 'Signature secret',
  'signature.header': 'Signature header',
  'respond.status': 'Response status',
  'respond.headers': 'Response headers',
  'respond.body': 'Response body',
  subprotocols: 'Subprotocols',
  send: 'Messages to send',
  'send.data': 'Data',
  'send.delayMs': 'Delay (ms)',
  target: 'Target',
  proto: 'Proto source',
  protoFiles: 'Proto imports',
  service: 'Service',
  'grpc.method': 'gRPC method',
  'sse.method': 'Method',
  message: 'Message',
  metadata: 'Metadata',
  where: 'Where',
  'mockVerify.method': 'Method',
  'mockVerify.count': 'Count',
  designId: 'Design ID',
  scope: 'Scope',
};

/** The assertion operators in words (the select's option text; the value stays the operator). */
export const OPERATOR_LABELS: Readonly<Record<AssertionOperator, string>> = {
  equals: 'equals',
  notEquals: 'does not equal',
  exists: 'exists',
  notExists: 'does not exist',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: '>',
  greaterThanOrEqual: '≥',
  lessThan: '<',
  lessThanOrEqual: '≤',
  inRange: 'in range [min, max]',
  oneOf: 'one of [ … ]',
  matches: 'matches regex',
  matchesSchema: 'matches JSON Schema',
  isType: 'is of type',
  isEmail: 'is an email address',
  isUrl: 'is a URL',
  isUuid: 'is a UUID',
  isIso8601: 'is an ISO 8601 date',
  isJson: 'is JSON text',
};

const WORDS: Readonly<Record<string, string>> = { ms: '(ms)', url: 'URL', id: 'ID', ssl: 'SSL', http: 'HTTP' };

/** `maxRedirects` → "Max redirects", `timeoutMs` → "Timeout (ms)", `designId` → "Design ID". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The label of the field at `path` (property names; array indexes left out) of a `type` node. */
export function labelOf(type: FlowNodeType, path: readonly (string | number)[]): string {
  const names = path.filter((p): p is string => typeof p === 'string');
  const dotted = names.join('.');
  const name = names[names.length - 1] ?? '';
  return LABELS[`${type}.${dotted}`] ?? LABELS[dotted] ?? LABELS[name] ?? humanize(name);
}
