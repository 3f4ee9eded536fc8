/**
 * The script sandbox (isolated-vm) on its own, against real HTTP servers on loopback: every
 * built-in and predefined library called for real at its pinned version, the Web APIs a bare
 * context lacks, custom UMD libraries, the ESM and wrong-name errors, each way a script can go
 * wrong (throw, syntax, endless loops, endless allocation, reaching for `process`) and the error
 * each reports (whole message, bounded, at the user's line and column), and that the sandbox stays
 * healthy and runs and test cases stay apart afterwards.
 */
import { expect } from 'chai';
import { Sandbox, type ScriptInput, type ScriptResult } from '../../../src/sandbox/sandbox';
import { startTarget, type Target } from '../../helpers/target';
import { testEgressPolicy } from '../../helpers/app';

describe('script sandbox', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let target: Target;
  let run = 0;

  before(async () => {
    target = await startTarget();
    sandbox = new Sandbox({
      timeoutMs: 1500,
      memoryLimitMb: 32,
      maxFetchBytes: 64 * 1024,
      fetchTimeoutMs: 1000,
      policy: testEgressPolicy(),
    });
  });
  after(async () => {
    await sandbox?.dispose();
    await target?.close();
  });

  type Extra = Partial<ScriptInput> & { libs?: string[] };
  function exec(code: string, extra: Extra = {}): Promise<ScriptResult> {
    const { libs, ...rest } = extra;
    return sandbox.execute({
      runId: extra.runId ?? `run-${++run}`,
      script: { code, libs: libs ?? [] },
      variables: { base: target.url },
      label: 'n1',
      ...rest,
    });
  }
  async function value(code: string, extra: Extra = {}): Promise<unknown> {
    const r = await exec(`async function generateValue() { ${code} }`, { hook: 'generateValue', ...extra });
    expect(r.ok, JSON.stringify(r.error)).to.equal(true);
    return r.value;
  }

  describe('built-in libraries, always present at the pinned versions', () => {
    it('_ is lodash 4.17.21', async () => {
      expect(
        await value(`return [_.VERSION, _.chunk([1, 2, 3, 4, 5], 2), _.get({ a: { b: 7 } }, 'a.b')]`),
      ).to.deep.equal(['4.17.21', [[1, 2], [3, 4], [5]], 7]);
    });
    it('faker is @faker-js/faker 9.8.0 with the English locale', async () => {
      const [name, email, uuid, locale] = (await value(
        `return [faker.person.firstName(), faker.internet.email(), faker.string.uuid(), faker.rawDefinitions.metadata.code]`,
      )) as string[];
      expect(name).to.be.a('string').and.not.equal('');
      expect(email).to.match(/@/);
      expect(uuid).to.match(/^[0-9a-f-]{36}$/);
      expect(locale).to.equal('en');
    });
    it('z is zod 4.1.12, URL checks included', async () => {
      expect(
        await value(
          `return [z.url().safeParse('https://example.com/a').success, z.url().safeParse('not a url').success, z.object({ id: z.number() }).safeParse({ id: 'x' }).success]`,
        ),
      ).to.deep.equal([true, false, false]);
    });
    it('ky 1.7.3 works over the bridged fetch', async () => {
      expect(
        await value(
          `return ky.post($context.get('base') + '/echo', { json: { a: 1 }, headers: { 'x-ky': 'yes' } }).json()`,
        ),
      ).to.deep.include({ method: 'POST', body: { a: 1 } });
      expect(await value(`return ky.get($context.get('base') + '/users/2').json()`)).to.deep.include({ name: 'Grace' });
    });
    it('luxon 3.7.2 with luxon.DateTime', async () => {
      expect(
        await value(
          `return [luxon.VERSION, luxon.DateTime.fromISO('2026-02-28T10:00:00Z', { zone: 'utc' }).plus({ days: 1 }).toISODate()]`,
        ),
      ).to.deep.equal(['3.7.2', '2026-03-01']);
    });
  });

  describe('predefined libraries, loaded when listed in libs', () => {
    const lib = (name: string) => `http://assay.example/libs/${name}.js`;
    it('CryptoJS 4.2.0: hashes, HMAC, and AES with a passphrase (needs crypto.getRandomValues)', async () => {
      const out = (await value(
        `const c = CryptoJS.AES.encrypt('secret', 'pass').toString(); return [CryptoJS.SHA256('abc').toString(), CryptoJS.HmacSHA256('m', 'k').toString().length, CryptoJS.AES.decrypt(c, 'pass').toString(CryptoJS.enc.Utf8)]`,
        { libs: [lib('crypto-js@4.2.0')] },
      )) as string[];
      expect(out).to.deep.equal(['ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 64, 'secret']);
    });
    it('dayjs 1.11.12, moment 2.30.1, validator 13.12.0, numeral 2.0.6', async () => {
      const out = await value(
        `return [dayjs('2026-11-21').add(1, 'day').format('YYYY-MM-DD'), moment.version, moment('2026-11-21').format('dddd'), validator.version, validator.isEmail('a@b.co'), numeral.version, numeral(1234.5).format('0,0.00')]`,
        { libs: [lib('dayjs@1.11.12'), lib('moment@2.30.1'), 'validator@13.12.0', lib('numeral@2.0.6')] },
      );
      expect(out).to.deep.equal(['2026-11-22', '2.30.1', 'Saturday', '13.12.0', true, '2.0.6', '1,234.50']);
    });
    it('axios 1.7.4 works over the bridged fetch', async () => {
      const out = (await value(
        `const r = await axios.post($context.get('base') + '/echo?x=1', { b: 2 }); return [axios.VERSION, r.status, r.data.body, r.data.query]`,
        { libs: [lib('axios@1.7.4')] },
      )) as unknown[];
      expect(out).to.deep.equal(['1.7.4', 200, { b: 2 }, { x: '1' }]);
    });
    it('turf 7.x', async () => {
      const km = (await value(`return turf.distance(turf.point([0, 0]), turf.point([0, 1]), { units: 'kilometers' })`, {
        libs: [lib('turf@7.2.0')],
      })) as number;
      expect(km).to.be.closeTo(111.19, 0.01);
    });
  });

  describe('Web APIs provided to the context', () => {
    it('fetch with Request, Response, Headers; URL; TextEncoder; timers; crypto; atob/btoa', async () => {
      const out = await value(`
        const res = await fetch(new Request($context.get('base') + '/echo?q=1', { method: 'PUT', body: 'hi', headers: new Headers({ 'X-A': 'b' }) }));
        const body = await res.json();
        const u = new URL('/p?x=1#h', 'https://example.com');
        const waited = await new Promise((r) => setTimeout(() => r('later'), 20));
        return [res.status, res.ok, res.headers.get('content-type'), body.method, body.body, body.headers['x-a'], u.href, u.searchParams.get('x'),
                new TextEncoder().encode('é').length, new TextDecoder().decode(new Uint8Array([104, 105])), waited,
                crypto.getRandomValues(new Uint8Array(8)).length, crypto.randomUUID().length, atob(btoa('ok'))];`);
      expect(out).to.deep.equal([
        200,
        true,
        'application/json',
        'PUT',
        'hi',
        'b',
        'https://example.com/p?x=1#h',
        '1',
        2,
        'hi',
        'later',
        8,
        36,
        'ok',
      ]);
    });
    it('caps fetch: responses over the size limit and slow answers fail the fetch', async () => {
      const big = await exec(`await fetch($context.get('base') + '/big?kb=200')`);
      expect(big.ok).to.equal(false);
      expect(big.error!.message).to.contain('larger than 65536 bytes');
      const slow = await exec(`await fetch($context.get('base') + '/slow?ms=3000')`);
      expect(slow.ok).to.equal(false);
      expect(slow.error!.message).to.match(/fetch failed/);
    });
    it('a sandbox given no address policy refuses loopback for fetch and libraries (its default policy refuses every non-public address)', async () => {
      const strict = new Sandbox({ timeoutMs: 1500, memoryLimitMb: 32 });
      try {
        const hitsBefore = target.hits.get('/echo') ?? 0;
        const libHitsBefore = target.hits.get('/libs/greeter.umd.js') ?? 0;
        const fetched = await strict.execute({
          runId: 'strict',
          script: { code: `await fetch(${JSON.stringify(`${target.url}/echo`)})` },
          variables: {},
          label: 'n1',
        });
        expect(fetched.ok).to.equal(false);
        expect(fetched.error!.message)
          .to.contain('The address policy refuses')
          .and.contain('ASSAY_EGRESS_PRIVATE_FOR_SCRIPTS');
        const lib = await strict.execute({
          runId: 'strict',
          script: { code: '1', libs: [`${target.url}/libs/greeter.umd.js`] },
          variables: {},
          label: 'n2',
        });
        expect(lib.error?.kind).to.equal('library');
        expect(lib.error!.message)
          .to.contain('The address policy refuses')
          .and.contain('ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES');
        expect(target.hits.get('/echo') ?? 0).to.equal(hitsBefore);
        expect(target.hits.get('/libs/greeter.umd.js') ?? 0).to.equal(libHitsBefore);
      } finally {
        await strict.dispose();
      }
    });
    it('has no require, no process, no file system', async () => {
      for (const [code, missing] of [
        ['process.env', 'process'],
        ["require('fs')", 'require'],
        ['Buffer.from("x")', 'Buffer'],
      ]) {
        const r = await exec(code!);
        expect(r.ok).to.equal(false);
        expect(r.error).to.deep.include({
          kind: 'error',
          message: `ReferenceError: ${missing} is not defined`,
          line: 1,
        });
      }
    });
  });

  describe('hooks and objects', () => {
    it('beforeRequest changes $request; afterResponse reads $response and sets variables; $log and console lines are kept', async () => {
      const runId = 'hooks';
      const before = await exec(
        `async function beforeRequest() { $request.headers['X-Sig'] = 'abc'; $request.url += '?signed=1'; $log('signed', { by: 'me' }); }`,
        { runId, hook: 'beforeRequest', request: { method: 'GET', url: 'http://x/y', headers: {} } },
      );
      expect(before.ok).to.equal(true);
      expect(before.request).to.deep.equal({ method: 'GET', url: 'http://x/y?signed=1', headers: { 'X-Sig': 'abc' } });
      expect(before.logs).to.deep.equal([{ level: 'info', message: 'signed {"by":"me"}' }]);
      const after = await exec(
        `async function afterResponse() { $context.set('token', $response.body.token); $context.unset('base'); console.warn('status', $response.status); }`,
        {
          runId,
          hook: 'afterResponse',
          response: { status: 201, headers: {}, body: { token: 't-1' }, time: 3 },
        },
      );
      expect(after.variables).to.deep.equal({ token: 't-1' });
      expect(after.logs).to.deep.equal([{ level: 'warn', message: 'status 201' }]);
    });
    it('generateValue returns a value; a script without it says so', async () => {
      expect(await value(`return faker.number.int({ min: 5, max: 5 })`)).to.equal(5);
      const none = await exec(`const x = 1;`, { hook: 'generateValue' });
      expect(none.error!.message).to.contain('defines no generateValue');
    });
  });

  describe('custom libraries', () => {
    it('loads an IIFE/UMD library from a URL and the script uses its global', async () => {
      expect(await value(`return Greeter.greet('Ada')`, { libs: [`${target.url}/libs/greeter.umd.js`] })).to.equal(
        'hello, Ada!',
      );
      const hits = target.hits.get('/libs/greeter.umd.js');
      await value(`return Greeter.version`, { libs: [`${target.url}/libs/greeter.umd.js`] });
      expect(target.hits.get('/libs/greeter.umd.js'), 'fetched once, then cached').to.equal(hits);
    });
    it('a wrong global name gives a ReferenceError in the error', async () => {
      const r = await exec(`Greeter2.greet('x')`, { libs: [`${target.url}/libs/greeter.umd.js`] });
      expect(r.error).to.deep.include({ kind: 'error', message: 'ReferenceError: Greeter2 is not defined' });
    });
    it('an ES module gives a clear error that points to the bundler', async () => {
      const r = await exec(`1`, { libs: [`${target.url}/libs/greeter.esm.js`] });
      expect(r.error!.kind).to.equal('library');
      expect(r.error!.message).to.contain('is an ES module').and.to.contain('/api/bundle');
    });
    it('an unreachable or missing library fails the step with its URL', async () => {
      const r = await exec(`1`, { libs: [`${target.url}/libs/none.js`] });
      expect(r.error).to.deep.include({
        kind: 'library',
        message: `Library ${target.url}/libs/none.js answered HTTP 404`,
      });
    });
  });

  describe('failures fail the step with message and line, and leave the sandbox healthy', () => {
    async function healthy(): Promise<void> {
      expect(await value(`return _.sum([1, 2, 3])`)).to.equal(6);
    }
    it('a throw', async () => {
      const r = await exec(`\nconst user = null;\nuser.name.trim();`);
      expect(r.error).to.deep.include({
        kind: 'error',
        message: "TypeError: Cannot read properties of null (reading 'name')",
        line: 3,
      });
      await healthy();
    });
    it('a syntax error', async () => {
      const r = await exec(`const a = ;`);
      expect(r.error!.kind).to.equal('syntax');
      expect(r.error!.message).to.contain('Unexpected token');
      expect(r.error!.line).to.equal(1);
      await healthy();
    });
    it('a loop that never ends', async () => {
      const r = await exec(`while (true) {}`);
      expect(r.error).to.deep.equal({ kind: 'timeout', message: 'The script did not finish within 1500 ms' });
      await healthy();
    });
    it('an await that never ends', async () => {
      const r = await exec(`await new Promise(() => {})`);
      expect(r.error!.kind).to.equal('timeout');
      await healthy();
    });
    it('allocation without end', async () => {
      const r = await exec(`const keep = []; for (;;) keep.push(new Array(100000).fill('x'));`);
      expect(r.error).to.deep.equal({ kind: 'memory', message: 'The script exceeded its memory limit of 32 MB' });
      await healthy();
    });
  });

  describe("error messages: the whole message, bounded, at the user's line and column", () => {
    it("a ZodError thrown by the built-in zod keeps its issues and points at the user's frame, below zod's and lodash's", async () => {
      const r = await exec(
        `async function afterResponse() {\n  const User = z.object({ name: z.string(), id: z.number() });\n  _.map([$response.body], (b) => User.parse(b));\n}`,
        {
          hook: 'afterResponse',
          response: { status: 200, headers: {}, body: { name: 5, id: 'x' }, time: 1 },
          label: 'n1.afterResponse',
        },
      );
      expect(r.ok).to.equal(false);
      expect(r.error).to.include({ kind: 'error', line: 3, column: 39 }); // `parse` in `User.parse(b)`
      expect(r.error!.message).to.match(/^ZodError: \[/);
      const issues = JSON.parse(r.error!.message.slice('ZodError: '.length)) as Array<{
        path: string[];
        message: string;
      }>;
      expect(issues.map((i) => [i.path.join('.'), i.message])).to.deep.equal([
        ['name', 'Invalid input: expected string, received number'],
        ['id', 'Invalid input: expected number, received string'],
      ]);
    });
    it("an error from an awaited library call (ky) points at the user's await", async () => {
      const r = await exec(
        `async function generateValue() {\n\n  return await ky.get($context.get('base') + '/status/404').json();\n}`,
        { hook: 'generateValue' },
      );
      expect(r.error).to.include({ kind: 'error', line: 3, column: 10 }); // the `await`
      expect(r.error!.message).to.match(/^HTTPError: Request failed with status code 404/);
    });
    it("a multi-line message, its cause and an AggregateError's errors are kept whole", async () => {
      const r = await exec(`\nthrow new Error('first line\\nsecond line', { cause: new TypeError('the cause') });`);
      expect(r.error).to.deep.equal({
        kind: 'error',
        message: 'Error: first line\nsecond line\nCaused by: TypeError: the cause',
        line: 2,
        column: 7,
      });
      // The inner errors of an AggregateError are listed, even when the script deleted the global.
      const all = await exec(
        `const e = new AggregateError([new Error('a'), new TypeError('b')], 'two checks failed');\ndelete globalThis.AggregateError;\nthrow e;`,
      );
      expect(all.error).to.deep.equal({
        kind: 'error',
        message: 'AggregateError: two checks failed\n  Error: a\n  TypeError: b',
        line: 1,
        column: 11,
      });
    });
    it('a message longer than 4096 characters is cut with a visible marker', async () => {
      const r = await exec(`throw new RangeError('x'.repeat(10000))`);
      expect(r.error!.message).to.equal(
        `RangeError: ${'x'.repeat(4096 - 'RangeError: '.length)}… [cut: ${10012 - 4096} more characters]`,
      );
      expect(r.error!.line).to.equal(1);
    });
    it('values that are not Errors keep what they say: strings, objects, Error-like objects, null', async () => {
      const thrown = async (code: string) => (await exec(code)).error;
      expect(await thrown(`throw 'token missing'`)).to.deep.equal({
        kind: 'error',
        message: 'Uncaught "token missing"',
      });
      expect(await thrown(`throw { a: 1, b: [2] }`)).to.deep.equal({
        kind: 'error',
        message: 'Uncaught {"a":1,"b":[2]}',
      });
      expect(await thrown(`throw { name: 'LoginFailed', message: 'no token\\nin the answer' }`)).to.deep.equal({
        kind: 'error',
        message: 'LoginFailed: no token\nin the answer',
      });
      expect(await thrown(`throw null`)).to.deep.equal({ kind: 'error', message: 'Uncaught null' });
      expect(await thrown(`throw new Proxy({}, { get() { throw new Error('trap'); } })`)).to.deep.equal({
        kind: 'error',
        message: 'Uncaught exception (its value could not be read)',
      });
      await exec(`1`); // the sandbox is fine afterwards
    });
    it('an Error subclass keeps its own name; lines logged before the throw are kept', async () => {
      const r = await exec(
        `$log('step 1');\nclass LoginError extends Error { constructor(m) { super(m); this.name = 'LoginError'; } }\nconsole.warn('step 2');\nthrow new LoginError('bad password');`,
      );
      expect(r.error).to.deep.equal({ kind: 'error', message: 'LoginError: bad password', line: 4, column: 7 });
      expect(r.logs).to.deep.equal([
        { level: 'info', message: 'step 1' },
        { level: 'warn', message: 'step 2' },
      ]);
    });
    it('the line is the frame of this script, not of an earlier script of the test case whose label ends alike', async () => {
      const testCase = { id: 'tc-frames', name: 'frames' };
      const runId = 'frames';
      await exec(`globalThis.check = (v) => {\n\n  if (!v) throw new Error('falsy');\n};`, {
        runId,
        testCase,
        label: 'xn1',
      });
      const r = await exec(`\n\ncheck(0);`, { runId, testCase, label: 'n1' });
      expect(r.error).to.deep.equal({ kind: 'error', message: 'Error: falsy', line: 3, column: 1 });
    });
  });

  describe('isolation', () => {
    it("runs never see each other's globals; scripts of one run do not share their variables", async () => {
      await exec(`globalThis.leak = 'from run A'; var local = 1;`, { runId: 'A' });
      const other = await value(`return typeof leak`, { runId: 'B' });
      expect(other).to.equal('undefined');
      expect(await value(`return typeof local`, { runId: 'A' })).to.equal('undefined');
    });
    describe('per test case: libraries and globals of one test case are never seen by another', () => {
      const moment = 'http://assay.example/libs/moment@2.30.1.js';
      const tc = (id: string) => ({ id, name: `case ${id}` });
      it('a library the first test case lists is not defined in the second, nor when the first comes back', async () => {
        const runId = 'libs-per-test-case';
        expect(
          await value(`globalThis.mark = 'tc1'; return moment('2026-11-21').format('dddd')`, {
            runId,
            testCase: tc('1'),
            libs: [moment],
          }),
        ).to.equal('Saturday');
        const second = await exec(`moment()`, { runId, testCase: tc('2') });
        expect(second.error).to.deep.include({
          kind: 'error',
          message: 'ReferenceError: moment is not defined',
          line: 1,
        });
        expect(
          await value(`return [typeof moment, typeof mark, typeof _, typeof z]`, { runId, testCase: tc('2') }),
        ).to.deep.equal(['undefined', 'undefined', 'function', 'object']);
        expect(await value(`return [typeof moment, typeof mark]`, { runId, testCase: tc('1') })).to.deep.equal([
          'undefined',
          'undefined',
        ]);
      });
      it('within one test case, a library an earlier script loaded stays visible to its later scripts', async () => {
        const runId = 'libs-within-test-case';
        await exec(`1`, { runId, testCase: tc('1'), libs: [moment] });
        expect(await value(`return moment.version`, { runId, testCase: tc('1') })).to.equal('2.30.1');
      });
      it("a run keeps one context: its next test case releases the earlier one; the run's end releases the last", async () => {
        const own = new Sandbox({ timeoutMs: 1500, memoryLimitMb: 32 });
        try {
          const run1 = (testCase: { id: string; name: string }) =>
            own.execute({ runId: 'r1', testCase, script: { code: '1' }, variables: {}, label: 'n1' });
          await run1(tc('1'));
          await own.execute({ runId: 'r2', testCase: tc('1'), script: { code: '1' }, variables: {}, label: 'n1' });
          expect([own.activeRuns, own.activeContexts]).to.deep.equal([2, 2]);
          await run1(tc('2'));
          await run1(tc('3'));
          expect([own.activeRuns, own.activeContexts]).to.deep.equal([2, 2]);
          await own.releaseRun('r1');
          expect([own.activeRuns, own.activeContexts]).to.deep.equal([1, 1]);
        } finally {
          await own.dispose();
        }
      });
      it('a lost context (released, as by a worker restart or the idle sweep) changes nothing for a script that lists its libraries', async () => {
        const runId = 'lost-context';
        const code = `return [moment('2026-11-21').add(1, 'day').format('YYYY-MM-DD'), typeof mark]`;
        expect(await value(`globalThis.mark = 1; ${code}`, { runId, testCase: tc('1'), libs: [moment] })).to.deep.equal(
          ['2026-11-22', 'number'],
        );
        await sandbox.releaseRun(runId);
        expect(await value(code, { runId, testCase: tc('1'), libs: [moment] })).to.deep.equal([
          '2026-11-22',
          'undefined',
        ]);
      });
    });
    it("releases a run's context when asked", async () => {
      await exec(`1`, { runId: 'released' });
      const before = sandbox.activeRuns;
      await sandbox.releaseRun('released');
      expect(sandbox.activeRuns).to.equal(before - 1);
    });
  });
});
