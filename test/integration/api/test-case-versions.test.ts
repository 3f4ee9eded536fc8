/**
 * Concurrent edits of a test case (docs/api.md "Concurrent edits") and `POST /v1/test-cases/validate`,
 * against a real API on MariaDB and on SQLite:
 *
 * - a test case has `version` (1 when created, one more per PUT or PATCH) and GET, POST, PUT and
 *   PATCH answer `ETag: "<version>"`;
 * - PUT and PATCH with a stale `If-Match` are 409 `test-case-changed` with the stored `version` and
 *   `updatedAt`, and store nothing; `*`, a matching tag and a list holding it pass; a weak tag never
 *   matches; a malformed header is 400 `invalid-header`; without `If-Match` the last write wins;
 * - two (and five) concurrent PUTs with the same tag store exactly one;
 * - validate answers `{valid: true, flow}` with node ids and stores nothing, or the very problem a
 *   save of the same body answers (400 with pointers, 422 for a Ref to nothing and for the loop
 *   quota); it needs scope `write`.
 */
import { expect } from 'chai';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';

const flow = (url = 'http://127.0.0.1:9/users/1') => [
  {
    type: 'api',
    request: { method: 'GET', url },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
];

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`test case versions and validate (${dialect})`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let n = 0;

    before(async () => {
      app = await startTestApp({ dialect });
    });
    after(async () => {
      await app?.stop();
    });

    async function create(extra: Record<string, unknown> = {}): Promise<Reply> {
      const res = await app.request('POST', '/v1/test-cases', {
        name: `case ${++n}`,
        folder: 'v',
        flow: flow(),
        ...extra,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res;
    }
    const put = (id: string, body: unknown, ifMatch?: string) =>
      app.request('PUT', `/v1/test-cases/${id}`, body, {
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      });
    const patch = (id: string, body: unknown, ifMatch?: string) =>
      app.request('PATCH', `/v1/test-cases/${id}`, body, {
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      });
    const count = async () => (await app.request('GET', '/v1/test-cases?limit=200')).body.items.length as number;

    it('starts at version 1 and answers ETag "<version>" on POST, GET, PUT and PATCH', async () => {
      const created = await create();
      expect(created.body.version).to.equal(1);
      expect(created.headers.get('etag')).to.equal('"1"');
      const id = created.body.id as string;
      const got = await app.request('GET', `/v1/test-cases/${id}`);
      expect(got.body.version).to.equal(1);
      expect(got.headers.get('etag')).to.equal('"1"');
      const replaced = await put(id, { name: created.body.name, folder: 'v', flow: flow(), description: 'two' }, '"1"');
      expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
      expect(replaced.body.version).to.equal(2);
      expect(replaced.headers.get('etag')).to.equal('"2"');
      const patched = await patch(id, { description: 'three' }, '"2"');
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.include({ version: 3, description: 'three' });
      expect(patched.headers.get('etag')).to.equal('"3"');
      // Listed with its version too.
      const listed = (await app.request('GET', '/v1/test-cases?folder=v')).body.items.find(
        (t: { id: string }) => t.id === id,
      );
      expect(listed.version).to.equal(3);
    });

    it('refuses a PUT or PATCH with a stale If-Match with 409 test-case-changed, storing nothing', async () => {
      const created = await create({ description: 'original' });
      const id = created.body.id as string;
      const theirs = await patch(id, { description: 'theirs' }, '"1"');
      expect(theirs.status).to.equal(200);
      const stored = (await app.request('GET', `/v1/test-cases/${id}`)).body;

      const stalePut = await put(id, { name: 'mine', folder: 'v', flow: flow(), description: 'mine' }, '"1"');
      expect(stalePut.status, JSON.stringify(stalePut.body)).to.equal(409);
      expect(stalePut.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(stalePut.body).to.include({ code: 'test-case-changed', version: 2, updatedAt: stored.updatedAt });
      expect(stalePut.body.detail)
        .to.match(/reload/i)
        .and.match(/apply your change again/);
      expect(stalePut.headers.get('etag')).to.equal('"2"');

      const stalePatch = await patch(id, { description: 'mine', tags: ['mine'] }, '"1"');
      expect(stalePatch.status).to.equal(409);
      expect(stalePatch.body).to.include({ code: 'test-case-changed', version: 2 });
      // A weak tag never matches (If-Match compares strongly), even of the stored version.
      expect((await patch(id, { description: 'mine' }, 'W/"2"')).status).to.equal(409);

      const after = (await app.request('GET', `/v1/test-cases/${id}`)).body;
      expect(after).to.deep.equal(stored);
      expect(after).to.include({ name: created.body.name, description: 'theirs', version: 2 });
      expect(after.tags).to.deep.equal([]);
    });

    it('stores with If-Match *, with the current tag, and with a list holding it; without If-Match the last write wins', async () => {
      const id = (await create()).body.id as string;
      const star = await patch(id, { description: 'star' }, '*');
      expect(star.status, JSON.stringify(star.body)).to.equal(200);
      expect(star.body.version).to.equal(2);
      const listed = await patch(id, { description: 'listed' }, '"7", W/"2", "2"');
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      expect(listed.body.version).to.equal(3);
      const plain = await put(id, { name: 'no precondition', folder: 'v', flow: flow() });
      expect(plain.status, JSON.stringify(plain.body)).to.equal(200);
      expect(plain.body).to.include({ name: 'no precondition', version: 4 });
      expect(plain.headers.get('etag')).to.equal('"4"');
    });

    it('answers a malformed If-Match with 400 invalid-header naming it, and a missing test case with 404', async () => {
      const id = (await create()).body.id as string;
      for (const bad of ['3', '"3', '"3" "4"', ',']) {
        const res = await patch(id, { description: 'x' }, bad);
        expect(res.status, bad).to.equal(400);
        expect(res.body.code, bad).to.equal('invalid-header');
        expect(res.body.errors[0].field, bad).to.equal('If-Match');
      }
      expect((await app.request('GET', `/v1/test-cases/${id}`)).body.version).to.equal(1);
      const missing = await patch('tc_00000000000000000000000000', { description: 'x' }, '"1"');
      expect(missing.status).to.equal(404);
    });

    it('stores exactly one of concurrent PUTs sending the same If-Match', async () => {
      for (const writers of [2, 5]) {
        const created = await create();
        const id = created.body.id as string;
        const answers = await Promise.all(
          Array.from({ length: writers }, (_, i) =>
            put(id, { name: `writer ${writers}-${i}`, folder: 'v', flow: flow(), tags: [`w${i}`] }, '"1"'),
          ),
        );
        const statuses = answers.map((a) => a.status).sort();
        expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([
          200,
          ...Array<number>(writers - 1).fill(409),
        ]);
        const winner = answers.find((a) => a.status === 200)!;
        for (const loser of answers.filter((a) => a.status === 409)) {
          expect(loser.body).to.include({ code: 'test-case-changed', version: 2 });
        }
        const stored = (await app.request('GET', `/v1/test-cases/${id}`)).body;
        expect(stored.version).to.equal(2);
        expect(stored.name).to.equal(winner.body.name);
        expect(stored.tags).to.deep.equal(winner.body.tags);
      }
    });

    it('validate answers {valid, flow} with node ids and stores nothing', async () => {
      const before = await count();
      const res = await app.request('POST', '/v1/test-cases/validate', { name: 'draft', flow: flow() });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.valid).to.equal(true);
      expect(res.body.flow).to.have.length(1);
      expect(res.body.flow[0].id).to.be.a('string').and.not.equal('');
      expect(res.body.flow[0].request.url).to.equal(flow()[0]!.request.url);
      expect(await count()).to.equal(before);
    });

    it('validate answers the problem a save of the same body answers, with the same pointers, and stores nothing', async () => {
      const before = await count();
      const wait = { type: 'wait', ms: 1 };
      const bodies: Array<[string, Record<string, unknown>, string]> = [
        [
          'an invalid node',
          { name: 'bad', flow: [{ type: 'api', request: { method: 'FETCH', url: '' } }] },
          'validation-failed',
        ],
        ['an unknown field', { name: 'bad', flow: flow(), colour: 'red' }, 'validation-failed'],
        [
          'a Ref to nothing',
          { name: 'bad', flow: [{ type: 'ref', mode: 'ref', testCaseId: 'tc_00000000000000000000000000' }] },
          'unknown-reference',
        ],
        [
          'over the loop quota (500 × 500)',
          { name: 'bad', flow: [{ type: 'loop', count: 500, body: [{ type: 'loop', count: 500, body: [wait] }] }] },
          'loop-iterations-exceeded',
        ],
      ];
      for (const [label, body, code] of bodies) {
        const saved = await app.request('POST', '/v1/test-cases', body);
        const checked = await app.request('POST', '/v1/test-cases/validate', body);
        expect(saved.body.code, `${label}: ${JSON.stringify(saved.body)}`).to.equal(code);
        expect(checked.status, label).to.equal(saved.status);
        const { instance: _a, ...problem } = checked.body;
        const { instance: _b, ...expected } = saved.body;
        expect(problem, label).to.deep.equal(expected);
        expect(problem.errors?.length ?? 0, `${label}: names the field`).to.be.greaterThan(0);
      }
      expect(await count()).to.equal(before);
    });

    it('validate with testCaseId checks it as a replacement of that test case: a Ref back to it is a cycle', async () => {
      const target = (await create()).body.id as string;
      const body = { name: 'loops back', flow: [{ type: 'ref', mode: 'ref', testCaseId: target }] };
      expect((await app.request('POST', '/v1/test-cases/validate', body)).status).to.equal(200);
      const asReplacement = await app.request('POST', `/v1/test-cases/validate?testCaseId=${target}`, body);
      const replaced = await put(target, body);
      expect(replaced.status).to.equal(422);
      expect(asReplacement.status).to.equal(422);
      expect(asReplacement.body.code).to.equal(replaced.body.code);
      expect(asReplacement.body.errors).to.deep.equal(replaced.body.errors);
      const missing = await app.request(
        'POST',
        '/v1/test-cases/validate?testCaseId=tc_00000000000000000000000000',
        body,
      );
      expect(missing.status).to.equal(404);
    });

    it('validate needs scope write', async () => {
      for (const scope of ['read', 'run'] as const) {
        const key = await app.issueKey(scope);
        const res = await app.request('POST', '/v1/test-cases/validate', { name: 'x', flow: flow() }, { key });
        expect(res.status, scope).to.equal(403);
      }
    });
  });
}
