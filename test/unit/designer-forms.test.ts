/**
 * The designer's node forms (console/src/designer/forms): the plan made from the server's own flow
 * schemas covers every field of every node type (rendered or explicitly skipped) and refuses schema
 * keywords it does not know, so the forms stay in step with validation; and the value rules the
 * forms use (expected values, the URL's query, body modes with multipart and file bodies,
 * placeholders, JSONata checks).
 */
import { expect } from 'chai';
import jsonata from 'jsonata';
import { ASSERTION_OPERATORS, NODE_TYPES, type FlowNodeType } from '../../src/domain/types';
import { AUTH_TYPES, NODE_COMMON_PROPERTIES, NODE_FIELDS } from '../../src/validation/flow-schemas';
import {
  KNOWN_EXTRA_FIELDS,
  PlanError,
  anchorsOf,
  assignErrors,
  planField,
  planNode,
  pointerOf,
  takesExpected,
  walkControls,
  type Control,
  type FormPlan,
} from '../../console/src/designer/forms/plan';
import { humanize, labelOf } from '../../console/src/designer/forms/labels';
import {
  bodyMode,
  fileBody,
  multipartParts,
  requestBodyMode,
  expressionItems,
  expressionSpot,
  formToRows,
  formatList,
  formatLoose,
  joinUrl,
  matchItems,
  parseList,
  parseLoose,
  parseScalar,
  rowsToForm,
  rowsToMap,
  splitUrl,
  templateSegments,
  templateSpot,
} from '../../console/src/designer/forms/values';
import { checkExpression } from '../../console/src/designer/forms/check';

/** The top-level control of `plan` editing `field` (a widget that covers it included). */
function controlOf(plan: FormPlan, field: string): Control {
  const c = [...plan.common, ...plan.controls].find((x) => x.covers.includes(field));
  if (!c) throw new Error(`${plan.type}.${field} has no control`);
  return c;
}

/** The control at `path` anywhere in `plan` (inside fieldsets and the request builder). */
function at(plan: FormPlan, ...path: (string | number)[]): Control {
  const pointer = pointerOf(path);
  const c = walkControls([...plan.common, ...plan.controls]).find((x) => x.pointer === pointer && x.kind !== 'request');
  if (!c) throw new Error(`no control at ${plan.type}${pointer}`);
  return c;
}

const isExpressionShape = (s: Record<string, unknown>) =>
  s.type === 'string' && s.minLength === 1 && s.maxLength === 4000 && s.pattern === undefined;

describe('designer forms: the plan covers the flow schemas', () => {
  for (const type of NODE_TYPES) {
    it(`${type}: every field is rendered or explicitly skipped, once`, () => {
      const plan = planNode(type);
      const schemaFields = [...Object.keys(NODE_COMMON_PROPERTIES), ...Object.keys(NODE_FIELDS[type].properties)];
      const extras = [...Object.keys(KNOWN_EXTRA_FIELDS.common), ...Object.keys(KNOWN_EXTRA_FIELDS.types[type] ?? {})];
      const covered = [...plan.common, ...plan.controls].flatMap((c) => c.covers);
      const skipped = plan.skipped.map((s) => s.field);
      const all = [...covered, ...skipped];
      expect(new Set(all).size, `a field planned twice in ${all.join(', ')}`).to.equal(all.length);
      for (const f of schemaFields) expect(all, `${type}.${f}`).to.include(f);
      for (const f of all) expect([...schemaFields, ...extras], `${type}.${f} is no field`).to.include(f);
      for (const s of plan.skipped) expect(s.reason).to.be.a('string').and.not.equal('');
    });

    it(`${type}: every control has a label, and the labels shown together are distinct`, () => {
      const plan = planNode(type);
      const shown: string[] = [];
      const visit = (cs: readonly Control[]) => {
        for (const c of cs) {
          expect(c.label, `${type}${c.pointer}`).to.match(/\S/);
          if (c.kind === 'fieldset') visit(c.children);
          else if (c.kind === 'request') visit([...c.request.children.filter((x) => x.kind !== 'variant')]);
          else shown.push(c.label);
        }
      };
      visit([...plan.common, ...plan.controls]);
      const dupes = shown.filter((l, i) => shown.indexOf(l) !== i);
      expect(dupes, `${type}: labels used twice`).to.deep.equal([]);
    });

    it(`${type}: a string of the expression shape is a JSONata input, and only those`, () => {
      const plan = planNode(type);
      for (const [name, s] of Object.entries(NODE_FIELDS[type].properties)) {
        const schema = s as Record<string, unknown>;
        if (schema.type !== 'string') continue;
        const kind = at(plan, name).kind;
        if (isExpressionShape(schema)) expect(kind, `${type}.${name}`).to.equal('expression');
        else expect(kind, `${type}.${name}`).to.not.equal('expression');
      }
    });
  }

  it('the children of IF, Loop, Iteration and Parallel, and a Ref sub-flow, are skipped (the tree edits them)', () => {
    const skipped = (t: FlowNodeType) => planNode(t).skipped.map((s) => s.field);
    expect(skipped('if')).to.deep.equal(['then', 'else']);
    expect(skipped('loop')).to.deep.equal(['body']);
    expect(skipped('iteration')).to.deep.equal(['body']);
    expect(skipped('parallel')).to.deep.equal(['children']);
    expect(skipped('ref')).to.deep.equal(['flow']);
    expect(skipped('api')).to.deep.equal([]);
  });

  it('common fields come first: Name, ID, Disabled (a checkbox)', () => {
    const plan = planNode('wait');
    expect(plan.common.map((c) => c.label)).to.deep.equal(['Name', 'ID', 'Disabled']);
    expect(plan.common.map((c) => c.kind)).to.deep.equal(['text', 'text', 'boolean']);
    expect((plan.common[1] as { pattern?: string }).pattern).to.equal(NODE_COMMON_PROPERTIES.id.pattern);
  });

  it('API: one request builder holds request, server, auth profile, script and retry; tables for assertions and extract', () => {
    const plan = planNode('api');
    expect(plan.controls.map((c) => c.kind)).to.deep.equal(['request', 'assertions', 'extractions']);
    const req = controlOf(plan, 'request');
    expect(req.covers).to.deep.equal(['request', 'server', 'authProfile', 'script', 'retry']);
    if (req.kind !== 'request') throw new Error('not a request builder');
    expect(req.script?.kind).to.equal('script');
    expect(req.server).to.include({ kind: 'text', options: 'servers', label: 'Server' });
    expect(req.authProfile).to.include({ kind: 'text', options: 'authProfiles', label: 'Auth profile' });
    expect(at(plan, 'request', 'url')).to.include({ kind: 'text', template: true, label: 'URL', required: true });
    expect(at(plan, 'request', 'method')).to.include({ kind: 'text', label: 'Method', required: true });
    expect(at(plan, 'request', 'headers')).to.include({ kind: 'map', template: true, noun: 'Header' });
    expect(at(plan, 'request', 'body')).to.include({ kind: 'json', inline: false });
    expect(at(plan, 'request', 'timeoutMs')).to.include({
      kind: 'number',
      integer: true,
      minimum: 1,
      maximum: 600_000,
      label: 'Timeout (ms)',
    });
    expect(at(plan, 'request', 'followRedirects')).to.include({ kind: 'boolean', defaultValue: true });
    expect(at(plan, 'request', 'alwaysSendBody')).to.include({ kind: 'boolean', defaultValue: false });
    expect(at(plan, 'retry', 'onStatus')).to.include({ kind: 'list', numbers: true });
    expect(at(plan, 'assertions')).to.include({ kind: 'assertions', response: true, minItems: 0 });
  });

  it('request.multipart and request.file are body modes of the request builder (Body tab), never settings', () => {
    for (const type of ['api', 'poll'] as const) {
      const req = controlOf(planNode(type), 'request');
      if (req.kind !== 'request') throw new Error('not a request builder');
      expect(req.multipart, `${type}: multipart`).to.include({ pointer: '/request/multipart', kind: 'rows' });
      expect(req.file, `${type}: file`).to.include({ pointer: '/request/file', kind: 'json' });
      const generic = req.request.children.map((c) => c.pointer);
      expect(generic)
        .to.include('/request/body')
        .and.not.include('/request/multipart')
        .and.not.include('/request/file');
      // Their errors still have a place in the form (the Body tab shows them).
      const { byAnchor, unmatched } = assignErrors(anchorsOf(planNode(type)), [
        { pointer: '/request/multipart/1/file', message: 'no such file' },
        { pointer: '/request/file', message: 'no such file' },
      ]);
      expect(unmatched).to.deep.equal([]);
      expect([...byAnchor.keys()]).to.deep.equal(['/request/multipart', '/request/file']);
    }
  });

  it('request.auth is a select of the schemes, each with its own fields (from the allOf/if/then schema)', () => {
    const auth = at(planNode('api'), 'request', 'auth');
    if (auth.kind !== 'variant') throw new Error(`request.auth is ${auth.kind}`);
    expect(auth.discriminator).to.equal('type');
    expect(auth.options).to.deep.equal(AUTH_TYPES);
    expect(auth.variants.digest!.map((c) => [c.pointer, c.required])).to.deep.equal([
      ['/request/auth/username', true],
      ['/request/auth/password', true],
    ]);
    const oauth = auth.variants.oauth1!;
    expect(oauth.find((c) => c.pointer === '/request/auth/signatureMethod')).to.include({ kind: 'select' });
    expect(oauth.find((c) => c.pointer === '/request/auth/includeVersion')).to.include({ defaultValue: true });
    expect(oauth.find((c) => c.pointer === '/request/auth/consumerKey')).to.include({ template: true });
  });

  it('expressions, choices and maps of the other node types', () => {
    expect(at(planNode('if'), 'condition')).to.include({ kind: 'expression', label: 'Condition', required: true });
    expect(at(planNode('loop'), 'while')).to.include({ kind: 'expression', label: 'While' });
    expect(at(planNode('loop'), 'breakCondition')).to.include({ kind: 'expression', label: 'Break condition' });
    expect(at(planNode('loop'), 'count')).to.include({ kind: 'number', minimum: 0, label: 'Count' });
    expect(at(planNode('iteration'), 'items')).to.include({ kind: 'expression', label: 'Items' });
    expect(at(planNode('iteration'), 'dataSet')).to.include({ kind: 'text', options: 'dataSets' });
    expect(at(planNode('wait'), 'expression')).to.include({ kind: 'expression' });
    expect(at(planNode('assert'), 'assertions')).to.include({ kind: 'assertions', response: false, minItems: 1 });
    expect(at(planNode('context'), 'set')).to.include({ kind: 'map', value: 'expression', required: true });
    expect(at(planNode('ref'), 'testCaseId')).to.include({ kind: 'testCase', label: 'Test case' });
    expect(at(planNode('ref'), 'mode')).to.deep.include({ kind: 'select', options: ['ref', 'clone'] });
    expect(at(planNode('ref'), 'inputs')).to.include({ kind: 'map', value: 'expression' });
    expect(at(planNode('ref'), 'outputs')).to.include({ kind: 'map', value: 'text' });
    expect(at(planNode('script'), 'script')).to.include({ kind: 'script', required: true });
    expect(at(planNode('poll'), 'until')).to.include({ kind: 'expression', label: 'Until' });
    expect(at(planNode('poll'), 'interval')).to.include({ kind: 'scalar' });
    expect(at(planNode('callback'), 'respond', 'body')).to.include({ kind: 'json' });
    expect(at(planNode('websocket'), 'send')).to.include({ kind: 'rows', noun: 'Message' });
    expect(at(planNode('grpc'), 'proto')).to.include({ kind: 'text', multiline: true });
    expect(at(planNode('grpc'), 'protoFiles')).to.include({ kind: 'map', value: 'multiline' });
    expect(at(planNode('mockVerify'), 'count')).to.include({ kind: 'json', inline: true });
    const poll = controlOf(planNode('poll'), 'request');
    expect(poll.covers).to.deep.equal(['request', 'server', 'authProfile']);
  });

  it('an unknown schema keyword fails the plan, naming the keyword and where it is', () => {
    const where = { type: 'api' as const, path: ['x'], required: false };
    expect(() => planField(where, { type: 'string', format: 'email' })).to.throw(
      PlanError,
      /unknown schema keyword "format"/,
    );
    expect(() => planField(where, { type: 'object', properties: { a: { type: 'integer', multipleOf: 5 } } })).to.throw(
      PlanError,
      /x\.a: unknown schema keyword "multipleOf"/,
    );
    expect(() => planField(where, { type: 'array', items: { type: 'string', oneOf: [] } })).to.throw(
      PlanError,
      /oneOf/,
    );
    expect(() => planField(where, { anyOf: [{ type: 'string' }, { not: {} }] })).to.throw(PlanError, /"not"/);
    // A keyword added to a node type's real schema fails that type's plan (and so the coverage test).
    const props = NODE_FIELDS.wait.properties as Record<string, unknown>;
    props.until = { type: 'string', format: 'date-time' };
    try {
      expect(() => planNode('wait')).to.throw(PlanError, /wait\.until: unknown schema keyword "format"/);
    } finally {
      delete props.until;
    }
    expect(() => planNode('wait')).not.to.throw();
  });

  it('a shape no control edits fails the plan', () => {
    const where = { type: 'api' as const, path: ['x'], required: false };
    expect(() => planField(where, { type: 'null' })).to.throw(PlanError, /no control for type "null"/);
    expect(() => planField(where, { type: 'array' })).to.throw(PlanError, /array without items/);
    expect(() => planField(where, { type: 'object' })).to.throw(PlanError, /neither properties/);
    expect(() => planField(where, { type: 'object', additionalProperties: { type: 'boolean' } })).to.throw(
      PlanError,
      /map whose values are not text/,
    );
  });

  it('labels: words from the field name unless the table says otherwise', () => {
    expect(humanize('maxRedirects')).to.equal('Max redirects');
    expect(humanize('timeoutMs')).to.equal('Timeout (ms)');
    expect(humanize('designId')).to.equal('Design ID');
    expect(labelOf('api', ['request', 'url'])).to.equal('URL');
    expect(labelOf('grpc', ['method'])).to.equal('gRPC method');
    expect(labelOf('sse', ['method'])).to.equal('Method');
  });
});

describe('designer forms: errors go to the field they name', () => {
  const plan = planNode('api');
  const anchors = anchorsOf(plan);
  const route = (pointer: string) => {
    const { byAnchor, unmatched } = assignErrors(anchors, [{ pointer, message: 'm' }]);
    return unmatched.length ? 'top' : [...byAnchor.keys()][0];
  };

  it('to the control of the pointer, or of its nearest parent that has one', () => {
    expect(route('/request/url')).to.equal('/request/url');
    expect(route('#/request/url')).to.equal('/request/url');
    expect(route('/request/auth/username')).to.equal('/request/auth/username');
    expect(route('/request/nope')).to.equal('/request');
    expect(route('/assertions/2/expected')).to.equal('/assertions');
    expect(route('/retry/onStatus/1')).to.equal('/retry/onStatus');
    expect(route('/extract/token')).to.equal('/extract');
    expect(route('/name')).to.equal('/name');
  });

  it('errors of the node itself or of a field the form does not show are listed at the top', () => {
    expect(route('')).to.equal('top');
    expect(route('/')).to.equal('top');
    expect(route('/unknownField')).to.equal('top');
    expect(route('/requestX')).to.equal('top');
  });
});

describe('designer forms: value rules', () => {
  it('expected values: JSON text, a plain word is a string, and each value reads back as itself', () => {
    expect(parseLoose('200')).to.equal(200);
    expect(parseLoose('"abc"')).to.equal('abc');
    expect(parseLoose('[1,2]')).to.deep.equal([1, 2]);
    expect(parseLoose('abc')).to.equal('abc');
    expect(parseLoose('  ')).to.equal(undefined);
    for (const v of [200, 'abc', '200', 'true', '', ' x', [1, 'a'], { a: null }, null, false, '"q"'])
      expect(parseLoose(formatLoose(v)), JSON.stringify(v)).to.deep.equal(v);
    expect(formatLoose('abc')).to.equal('abc');
    expect(formatLoose('200')).to.equal('"200"');
  });

  it('operators without an expected value: exists, notExists and the format operators', () => {
    const none = ASSERTION_OPERATORS.filter((o) => !takesExpected(o));
    expect(none).to.deep.equal(['exists', 'notExists', 'isEmail', 'isUrl', 'isUuid', 'isIso8601', 'isJson']);
  });

  it('durations and lists', () => {
    expect(parseScalar('90')).to.equal(90);
    expect(parseScalar('1h30m')).to.equal('1h30m');
    expect(parseScalar(' ')).to.equal(undefined);
    expect(parseList('429, 5xx,, 503', true)).to.deep.equal([429, '5xx', 503]);
    expect(parseList('a, 1', false)).to.deep.equal(['a', '1']);
    expect(parseList(' , ', true)).to.equal(undefined);
    expect(formatList([429, '5xx'])).to.equal('429, 5xx');
  });

  it("the URL's query as rows and back, as written, placeholders included", () => {
    const url = '{{base}}/users?id={{user.id}}&flag&q=a%20b&t={{a&b}}#top';
    const s = splitUrl(url);
    expect(s.base).to.equal('{{base}}/users');
    expect(s.hash).to.equal('#top');
    expect(s.params).to.deep.equal([
      { name: 'id', value: '{{user.id}}' },
      { name: 'flag', value: '', bare: true },
      { name: 'q', value: 'a%20b' },
      { name: 't', value: '{{a&b}}' },
    ]);
    expect(joinUrl(s.base, s.params, s.hash)).to.equal(url);
    expect(joinUrl(s.base, [...s.params.slice(0, 1), { name: 'page', value: '2' }], '')).to.equal(
      '{{base}}/users?id={{user.id}}&page=2',
    );
    expect(joinUrl('/x', [])).to.equal('/x');
    expect(splitUrl('/x?').params).to.deep.equal([]);
    expect(splitUrl('{{base}}/a?b').params).to.deep.equal([{ name: 'b', value: '', bare: true }]);
  });

  it('body modes from the body and its Content-Type', () => {
    expect(bodyMode(undefined, {})).to.equal('none');
    expect(bodyMode({ a: 1 }, {})).to.equal('json');
    expect(bodyMode(null, {})).to.equal('json');
    expect(bodyMode('a=1', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' })).to.equal('form');
    expect(bodyMode('a=1', { 'Content-Type': 'text/plain' })).to.equal('text');
    expect(bodyMode('hello', undefined)).to.equal('text');
  });

  it('a request with multipart or file is in that mode, whatever its body; file bodies and parts read loosely', () => {
    expect(requestBodyMode({ multipart: [{ name: 'a', value: '1' }] })).to.equal('multipart');
    expect(requestBodyMode({ multipart: [] })).to.equal('multipart');
    expect(requestBodyMode({ file: 'avatar.png' })).to.equal('file');
    expect(requestBodyMode({ file: { file: 'avatar.png' } })).to.equal('file');
    expect(requestBodyMode({ body: 'x' })).to.equal('text');
    expect(requestBodyMode({})).to.equal('none');
    expect(fileBody('avatar.png')).to.deep.equal({ file: 'avatar.png' });
    expect(fileBody({ file: 'a.csv', contentType: 'text/csv' })).to.deep.equal({
      file: 'a.csv',
      contentType: 'text/csv',
    });
    expect(fileBody({ contentType: 'text/csv' })).to.equal(undefined);
    expect(fileBody(3)).to.equal(undefined);
    expect(multipartParts([{ name: 'a', value: '1' }, 'x', null, [1], { name: 'f', file: 'b.png' }])).to.deep.equal([
      { name: 'a', value: '1' },
      { name: 'f', file: 'b.png' },
    ]);
    expect(multipartParts({ name: 'a' })).to.deep.equal([]);
  });

  it('form bodies: encoded, placeholders left as written, and read back', () => {
    const rows = [
      { name: 'user name', value: 'a&b=c' },
      { name: 'token', value: '{{token}}' },
      { name: '', value: 'dropped' },
    ];
    const body = rowsToForm(rows);
    expect(body).to.equal('user+name=a%26b%3Dc&token={{token}}');
    expect(formToRows(body)).to.deep.equal(rows.slice(0, 2));
    expect(formToRows('')).to.deep.equal([]);
    expect(rowsToMap([{ name: '', value: 'x' }])).to.equal(undefined);
  });

  it('{{ opens variable completion; the name typed so far filters it', () => {
    expect(templateSpot('{{base}}/users/{{us', 19)).to.deep.equal({ from: 17, to: 19, query: 'us' });
    expect(templateSpot('x {{', 4)).to.deep.equal({ from: 4, to: 4, query: '' });
    expect(templateSpot('{{a}}/b', 7)).to.equal(null);
    expect(templateSpot('{{tok}}', 4)).to.deep.equal({ from: 2, to: 7, query: 'to' });
    expect(templateSegments('a{{ b }}c{{d}}')).to.deep.equal([
      { text: 'a' },
      { text: '{{ b }}', name: 'b' },
      { text: 'c' },
      { text: '{{d}}', name: 'd' },
    ]);
    const items = [{ name: 'token' }, { name: 'userId' }, { name: 'myToken' }];
    expect(matchItems(items, 'tok').map((i) => i.name)).to.deep.equal(['token', 'myToken']);
  });

  it('expression completion: the dotted name at the caret, not inside strings; variables as variables.<name>', () => {
    expect(expressionSpot('nodes.log = 1', 9)).to.deep.equal({ from: 0, to: 9, query: 'nodes.log' });
    expect(expressionSpot('$count(resp', 11)).to.deep.equal({ from: 7, to: 11, query: 'resp' });
    expect(expressionSpot('"abc', 4)).to.equal(null);
    expect(expressionSpot('1 + ', 4)).to.equal(null);
    const items = expressionItems(
      [
        { name: 'token', detail: 'env' },
        { name: 'nodes.login.response.body', detail: 'node' },
        { name: '$guid', detail: 'dynamic' },
      ],
      true,
    ).map((i) => i.name);
    expect(items).to.deep.equal([
      'response.status',
      'response.body',
      'response.headers',
      'variables.token',
      'nodes.login.response.body',
    ]);
  });

  it('JSONata syntax is checked with jsonata: the message and the offset where it failed', () => {
    expect(checkExpression(jsonata, 'response.status = 200')).to.equal(null);
    expect(checkExpression(jsonata, '')).to.equal(null);
    const p = checkExpression(jsonata, 'response.status = ');
    expect(p).to.not.equal(null);
    expect(p!.code).to.match(/^S0/);
    expect(p!.offset).to.be.a('number').within(0, 'response.status = '.length);
    const q = checkExpression(jsonata, '$count(nodes.list');
    expect(q!.message).to.match(/\)|end/i);
  });
});
