/**
 * The pure parts of mock state (docs/mocks.md "State"): RFC 7396 merge patch, record ids, the
 * run's scope header the interpreter adds to the workspace's mock URLs, and `{{$runId}}`.
 */
import { expect } from 'chai';
import { mergePatch, recordIdOf } from '../../src/mock/state';
import { withMockScope } from '../../src/flow/api-node';
import { fillTemplate } from '../../src/domain/templating';
import type { ResolvedRequest } from '../../src/domain/types';

const WS = 'ws_01JD3Z8Q0W5T3V2X1Y0Z9A8B7C';
const scope = { workspaceId: WS, scope: 'run_01JD3Z8Q0W5T3V2X1Y0Z9A8B7D' };
const request = (url: string, headers: Record<string, string> = {}): ResolvedRequest => ({
  method: 'GET',
  url,
  headers,
  timeoutMs: 1000,
  followRedirects: true,
  maxResponseBytes: 1000,
});

describe('mock state (pure parts)', () => {
  it('applies RFC 7396 merge patches (the RFC’s appendix A cases)', () => {
    const cases: Array<[unknown, unknown, unknown]> = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases)
      expect(mergePatch(target, patch), JSON.stringify([target, patch])).to.deep.equal(result);
  });

  it('takes strings of 1–200 characters and safe integers as record ids', () => {
    expect(recordIdOf(7)).to.equal('7');
    expect(recordIdOf('abc')).to.equal('abc');
    for (const bad of ['', 'x'.repeat(201), 1.5, 2 ** 60, null, {}, true]) expect(recordIdOf(bad)).to.equal(undefined);
  });

  it("adds the run's scope header to the workspace's mock URLs only, unless the node sets it", () => {
    const added = withMockScope(request(`http://127.0.0.1:8082/mock/${WS}/users/1?x=1`), scope);
    expect(added.headers).to.deep.equal({ 'x-assay-mock-scope': scope.scope });
    const kept = withMockScope(request(`http://mocks/mock/${WS}/users`, { 'X-Assay-Mock-Scope': 'mine' }), scope);
    expect(kept.headers).to.deep.equal({ 'X-Assay-Mock-Scope': 'mine' });
    for (const url of [
      `http://127.0.0.1:8082/mock/ws_01JD3Z8Q0W5T3V2X1Y0Z9A8B7X/users`,
      `http://api.example.com/v1/users?next=/mock/${WS}/users`,
      `http://api.example.com/proxy/mock/${WS}/users`,
      `http://api.example.com/mock/${WS}`,
    ])
      expect(withMockScope(request(url), scope).headers, url).to.deep.equal({});
    // Plans without a mock scope: the request as it was.
    const plain = request(`http://127.0.0.1:8082/mock/${WS}/users`);
    expect(withMockScope(plain, undefined)).to.equal(plain);
  });

  it('fills {{$runId}} when the run has a mock scope, and leaves it as written otherwise', () => {
    const dynamic = { uuid: () => 'u', now: () => 0, random: () => 0 };
    expect(fillTemplate('/mock/ws/~{{$runId}}/users', {}, { ...dynamic, runId: 'run_1' })).to.equal(
      '/mock/ws/~run_1/users',
    );
    expect(fillTemplate('/~{{$runId}}/', {}, dynamic)).to.equal('/~{{$runId}}/');
  });
});
