/**
 * The sandbox's library loader (src/sandbox/library-loader.ts) on its own, in a bare isolated-vm
 * context: Assay's predefined libraries from the built files, libraries the host has
 * (`localLibrary`), libraries fetched from a loopback server through the address policy, the
 * in-memory cache by URL and its bound, each library run once per context, and the error each
 * wrong entry gives.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ivm from 'isolated-vm';
import { publicOnlyPolicy, type AddressPolicy } from '../../src/net/address-policy';
import { CodeCache } from '../../src/sandbox/code-cache';
import {
  LibraryError,
  LibraryLoader,
  REMEMBERED_LIBRARIES,
  type LibraryLoaderOptions,
  type LibraryTarget,
} from '../../src/sandbox/library-loader';
import { testEgressPolicy } from '../helpers/app';

/** A UMD-style library defining `name` and counting how often its top level ran. */
const umd = (name: string) =>
  `(function (g) { g.${name} = { runs: ((g.${name} && g.${name}.runs) || 0) + 1 }; })(globalThis);`;

describe('sandbox library loader', function () {
  this.timeout(60_000);
  let isolate: ivm.Isolate;
  let server: http.Server;
  let base: string;
  const hits = new Map<string, number>();
  const policies: AddressPolicy[] = [];

  before(async () => {
    isolate = new ivm.Isolate({ memoryLimit: 32 });
    server = http.createServer((req, res) => {
      hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
      if (req.url === '/served.js') res.end(umd('Served'));
      else if (req.url === '/big.js') res.end(`/*${'x'.repeat(4096)}*/`);
      else if (req.url === '/module.js') res.end('export const x = 1;');
      else res.writeHead(404).end('not here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    if (isolate && !isolate.isDisposed) isolate.dispose();
    await new Promise((resolve) => server?.close(resolve));
    for (const policy of policies) await policy.close();
  });

  async function target(): Promise<LibraryTarget> {
    return { isolate, context: await isolate.createContext(), loaded: new Set() };
  }
  function loader(options: Partial<LibraryLoaderOptions> = {}): LibraryLoader {
    const policy = options.policy ?? testEgressPolicy();
    policies.push(policy);
    return new LibraryLoader({
      compiler: new CodeCache(),
      policy,
      runTimeoutMs: 1000,
      libraryTimeoutMs: 2000,
      maxLibraryBytes: 1024,
      ...options,
    });
  }
  async function libraryError(promise: Promise<void>): Promise<string> {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(LibraryError);
    return (err as Error).message;
  }

  it('loads a predefined library by name or by its /libs/ URL on any host, from the built files', async () => {
    const asked: string[] = [];
    const libs = loader({ localLibrary: async (url) => void asked.push(url) });
    const t = await target();
    await libs.load(t, ['dayjs@1.11.12', 'http://elsewhere.example/libs/numeral@2.0.6.js']);
    expect(await t.context.eval('[typeof dayjs, typeof numeral].join()')).to.equal('function,function');
    expect([...t.loaded]).to.deep.equal(['dayjs@1.11.12.js', 'numeral@2.0.6.js']);
    expect(asked).to.deep.equal([]);
  });

  it('takes a library the host has (localLibrary) without the network, asks the host once per URL and runs it once per context', async () => {
    const asked: string[] = [];
    const url = 'https://libs.example/greeter.js';
    const libs = loader({ localLibrary: async (u) => (asked.push(u), u === url ? umd('Greeter') : undefined) });
    const first = await target();
    await libs.load(first, [url]);
    await libs.load(first, [url]);
    expect(await first.context.eval('Greeter.runs')).to.equal(1);
    const second = await target();
    await libs.load(second, [url]);
    expect(await second.context.eval('Greeter.runs')).to.equal(1);
    expect(asked).to.deep.equal([url]);
  });

  it('fetches a library the host lacks through the address policy (kind library), once per URL', async () => {
    const libs = loader({ localLibrary: async () => undefined });
    for (let i = 0; i < 2; i++) {
      const t = await target();
      await libs.load(t, [`${base}/served.js`]);
      expect(await t.context.eval('Served.runs')).to.equal(1);
    }
    expect(hits.get('/served.js')).to.equal(1);
  });

  it(`keeps the last ${REMEMBERED_LIBRARIES} libraries by URL: the oldest is asked for again`, async () => {
    const asked: string[] = [];
    const libs = loader({ localLibrary: async (u) => (asked.push(u), umd('Numbered')) });
    const t = await target();
    const urls = Array.from({ length: REMEMBERED_LIBRARIES + 1 }, (_, i) => `https://libs.example/n${i}.js`);
    await libs.load(t, urls);
    expect(asked).to.have.length(REMEMBERED_LIBRARIES + 1);
    const again = await target();
    await libs.load(again, [urls[1]!, urls[0]!]);
    expect(asked.slice(REMEMBERED_LIBRARIES + 1)).to.deep.equal([urls[0]]);
  });

  it('each wrong entry is a LibraryError naming it', async () => {
    const libs = loader({
      localLibrary: async (u) =>
        u.endsWith('/esm.js') ? 'export default 1;' : u.endsWith('/throws.js') ? 'throw new Error("boom")' : undefined,
    });
    const t = await target();
    expect(await libraryError(libs.load(t, ['not-a-library']))).to.equal(
      '"not-a-library" is neither a library URL nor the name of a predefined library (see GET /v1/libraries)',
    );
    expect(await libraryError(libs.load(t, ['ftp://libs.example/a.js']))).to.equal(
      'Library ftp://libs.example/a.js: only http and https URLs can be loaded',
    );
    expect(await libraryError(libs.load(t, ['https://libs.example/esm.js']))).to.match(
      /^Library https:\/\/libs\.example\/esm\.js is an ES module \(it uses import\/export\)/,
    );
    expect(await libraryError(libs.load(t, ['https://libs.example/throws.js']))).to.equal(
      'Library https://libs.example/throws.js failed while loading: boom',
    );
    expect(await libraryError(libs.load(t, [`${base}/missing.js`]))).to.equal(
      `Library ${base}/missing.js answered HTTP 404`,
    );
    expect(await libraryError(libs.load(t, [`${base}/big.js`]))).to.equal(
      `Library ${base}/big.js is larger than 1024 bytes`,
    );
    expect(await libraryError(libs.load(t, [`${base}/module.js`]))).to.match(/is an ES module/);
    expect(t.loaded.size).to.equal(0);
  });

  it("a host that fails to answer, or an address the policy refuses, is the library's error", async () => {
    const failing = loader({ localLibrary: async () => Promise.reject(new Error('store unavailable')) });
    expect(await libraryError(failing.load(await target(), ['https://libs.example/a.js']))).to.equal(
      'Library https://libs.example/a.js: store unavailable',
    );
    const strict = loader({ policy: publicOnlyPolicy() });
    const message = await libraryError(strict.load(await target(), [`${base}/served.js`]));
    expect(message).to.match(new RegExp(`^Library ${base.replace(/[.]/g, '\\.')}/served\\.js could not be fetched: `));
  });
});
