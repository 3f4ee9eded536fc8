/**
 * The Postman importer's script modules on their own (docs/import-postman.md "Scripts: the pm
 * object", "setNextRequest"): the dispatch flow a setNextRequest collection becomes
 * (cli/importers/postman-next-request.ts), the hooks and their flags (cli/importers/postman-scripts.ts),
 * and `{{…}}` names Postman allows (src/domain/templating.ts). The behaviour itself is compared
 * with Newman in test/integration/cli/postman-sandbox.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { importPostman, type ImportedApiNode } from '../../cli/importers/postman';
import { dispatchFlow, literalNextRequests } from '../../cli/importers/postman-next-request';
import { hookCode } from '../../cli/importers/postman-scripts';
import { runsWithoutResponse } from '../../src/domain/postman-parameters';
import { fillTemplate } from '../../src/domain/templating';
import { validateFlow } from '../../src/validation/flow';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/postman/sandbox');
const load = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.postman_collection.json`), 'utf8')) as unknown;
const api = (id: string): ImportedApiNode => ({
  type: 'api',
  id,
  name: id,
  request: { method: 'GET', url: 'http://h/' },
});

describe('Postman import: scripts, cookies and setNextRequest (cli/importers/postman-scripts.ts, postman-next-request.ts)', () => {
  it('literal setNextRequest names, in both spellings and quotes', () => {
    expect(
      literalNextRequests(
        `postman.setNextRequest('Login'); pm.execution.setNextRequest("Say \\"hi\\""); pm.execution.setNextRequest(null); x.setNextRequest(\`T\`)`,
      ),
    ).to.deep.equal(['Login', 'Say "hi"', 'T']);
  });

  it('the dispatch flow: a start, a Loop of IFs keyed by node id, Postman id and name (the last of a name), and the unresolved check', () => {
    const { flow, unresolved } = dispatchFlow(
      [
        { node: api('a'), name: 'A' },
        { node: api('b'), name: 'Same', postmanId: 'pid-b' },
        { node: api('c'), name: 'Same' },
      ],
      ['A', 'pid-b', 'Nope'],
    );
    expect(unresolved).to.deep.equal(['Nope']);
    expect(validateFlow(flow)).to.deep.equal([]);
    expect(flow[0]).to.deep.include({ type: 'context', id: 'postman_start', set: { __next: '"#a"' } });
    const loop = flow[1] as {
      type: string;
      while: string;
      maxIterations: number;
      body: Array<{ condition: string; then: Array<{ id: string; set?: unknown }> }>;
    };
    expect(loop.type).to.equal('loop');
    expect(loop.maxIterations).to.equal(1000);
    expect(loop.body.map((n) => n.condition)).to.deep.equal([
      'variables.__next in ["#a", "A"]',
      'variables.__next in ["#b", "pid-b"]',
      'variables.__next in ["#c", "Same"]',
    ]);
    expect(loop.body.map((n) => n.then[0]!.set)).to.deep.equal([
      { __next: '"#b"' },
      { __next: '"#c"' },
      { __next: '""' },
    ]);
    expect(loop.body[2]!.then[1]!.id).to.equal('c');
    expect(flow[2]).to.deep.include({ type: 'if', id: 'postman_unresolved' });
  });

  it('a collection calling setNextRequest is one test case with the dispatch flow, its missing names reported', () => {
    const imported = importPostman(load('next-request-unresolved'));
    expect(imported.testCases).to.have.length(1);
    expect(imported.testCases[0]!.flow.map((n) => n.id)).to.deep.equal([
      'postman_start',
      'postman_run',
      'postman_unresolved',
    ]);
    expect(imported.warnings.map((w) => w.message).join('\n')).to.match(
      /setNextRequest: the whole collection is imported as one test case/,
    );
    expect(imported.untranslated.map((w) => w.message)).to.deep.include(
      'setNextRequest("No such request") names no request of the collection: Newman ends the iteration there, and so does the imported flow, whose last node then fails naming it',
    );
    const folders = importPostman(load('next-request'));
    expect(folders.testCases).to.have.length(1);
    expect(validateFlow(folders.testCases[0]!.flow)).to.deep.equal([]);
  });

  it('a test case whose scripts read cookies gives every request both hooks with the jar', () => {
    const imported = importPostman(load('cookies'));
    for (const node of imported.testCases[0]!.flow as ImportedApiNode[]) {
      expect(node.script!.code).to.include('async function beforeRequest()');
      expect(node.script!.code).to.include('async function afterResponse()');
      expect(node.script!.code).to.include('cookies: true');
    }
    const sugar = importPostman(load('sugar'));
    expect((sugar.testCases[0]!.flow[0] as ImportedApiNode).script!.code).not.to.include('cookies: true');
  });

  it('pre-request scripts get a test hook too (it reports their error), and scripts are async functions with the legacy globals', () => {
    const hooks = hookCode(
      'at',
      'R',
      { method: 'GET', url: 'http://h/', headers: {} },
      ['pm.variables.set("a", 1);'],
      [],
      'env',
      [],
    )!;
    expect(hooks.code).to.include('async function afterResponse()');
    expect(hooks.code).to.include(
      'async function (pm, postman, tests, responseBody, responseCode, responseHeaders, responseTime, responseCookies, environment, globals, data, iteration, request, require, _, tv4, xml2Json, cheerio, Backbone)',
    );
    expect(hooks.libs).to.deep.equal(['postman@1.0.0']);
    // Newman runs test scripts when no response arrived: the imported afterResponse asks for it.
    expect(runsWithoutResponse(hooks.code)).to.equal(true);
    const notes: Array<{ at: string; message: string }> = [];
    hookCode(
      'at',
      'R',
      { method: 'GET', url: 'http://h/', headers: {} },
      [],
      ['await pm.vault.get("k");'],
      'env',
      notes,
    );
    expect(notes.map((n) => n.message)).to.deep.equal(['test script uses pm.vault (refused when used)']);
  });

  it('only an imported Postman test hook runs without a response, not an afterResponse of Assay’s own', () => {
    expect(
      runsWithoutResponse('async function afterResponse() { $test("ok", () => $response.status === 200); }'),
    ).to.equal(false);
    expect(runsWithoutResponse('// AssayPostman.test({ withoutResponse: true })')).to.equal(false);
    expect(
      runsWithoutResponse('  await AssayPostman.test({ $request, $response, info: {}, withoutResponse: true }, ['),
    ).to.equal(true);
  });

  it('variables keep their types, disabled ones are left out, and {{…}} takes names with /, \\ and spaces', () => {
    const imported = importPostman(load('variables'));
    expect(imported.environment.variables).to.deep.equal({
      cNum: 5,
      cNumText: 5,
      cBool: true,
      cStr: 'x',
      'a/b': 'slash',
      'a\\b': 'back',
      'a b': 'space',
    });
    const dynamic = { uuid: () => 'u', now: () => 0, random: () => 0 };
    expect(
      fillTemplate('{{a/b}}|{{ a\\b }}|{{a b}}|{{ unknown name }}', imported.environment.variables, dynamic),
    ).to.equal('slash|back|space|{{ unknown name }}');
  });
});
