/**
 * The HAR → test case conversion (cli/importers/har.ts, har-multipart.ts; docs/cli.md
 * "Importing"): one API node per kept entry with the recorded status, the filters, `{{base}}`,
 * headers dropped, credentials as secret variables (never literals), bodies (JSON, text, form,
 * multipart with and without the files), redirect chains, the 500-request cut, bad input, and the
 * public fixtures (test/fixtures/har/SOURCES.md) making flows Assay's own validation accepts.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import {
  HarFormatError,
  MAX_HAR_REQUESTS,
  parseHar,
  testCaseFromHar,
  workspaceFileName,
  type Har,
  type HarEntry,
} from '../../cli/importers/har';
import { multipartBoundary, parseMultipartText } from '../../cli/importers/har-multipart';
import { validateFlow } from '../../src/validation/flow';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/har');

type Json = Record<string, any>;

/** An entry: method, URL, status, and request/response extras. */
function entry(method: string, url: string, status: number, request: Json = {}, response: Json = {}): HarEntry {
  return {
    request: { method, url, headers: [], queryString: [], cookies: [], ...request },
    response: { status, headers: [], content: { mimeType: 'application/json' }, redirectURL: '', ...response },
  } as HarEntry;
}
const har = (...entries: HarEntry[]): Har => ({ log: { creator: { name: 'Test', version: '1' }, entries } });
const h = (name: string, value: string) => ({ name, value });

describe('HAR import (cli/importers/har.ts)', () => {
  it('makes one API node per entry, in order, named METHOD path, asserting the recorded status; the first origin is {{base}}', () => {
    const plan = testCaseFromHar(
      har(
        entry('GET', 'https://api.example.com/items?limit=2#top', 200),
        entry('post', 'https://api.example.com/items', 201),
        entry('GET', 'https://cdn.example.net/v1/info', 404),
      ),
      { name: 'Shop', folder: 'recorded' },
    );
    const tc = plan.testCase;
    expect(tc).to.include({ name: 'Shop', folder: 'recorded' });
    expect(tc.tags).to.deep.equal(['har']);
    expect(tc.flow.map((n) => [n.id, n.name, n.request.method, n.request.url])).to.deep.equal([
      ['e1', 'GET /items', 'GET', '{{base}}/items?limit=2'],
      ['e2', 'POST /items', 'POST', '{{base}}/items'],
      ['e3', 'GET /v1/info', 'GET', 'https://cdn.example.net/v1/info'],
    ]);
    expect(tc.flow.map((n) => n.assertions)).to.deep.equal([
      [{ target: 'response.status', operator: 'equals', expected: 200 }],
      [{ target: 'response.status', operator: 'equals', expected: 201 }],
      [{ target: 'response.status', operator: 'equals', expected: 404 }],
    ]);
    expect(plan.base).to.equal('https://api.example.com');
    expect(plan.creator).to.equal('Test 1');
    expect(plan.counts).to.deep.include({ entries: 3, imported: 3, notCarried: 0 });
    expect(validateFlow(tc.flow)).to.deep.equal([]);
  });

  it('adds queryString to a URL recorded without its query', () => {
    const plan = testCaseFromHar(
      har(entry('GET', 'http://127.0.0.1:8080/search', 200, { queryString: [h('q', 'a b'), h('page', '2')] })),
      { name: 't' },
    );
    expect(plan.testCase.flow[0]!.request.url).to.equal('{{base}}/search?q=a+b&page=2');
  });

  it('drops pseudo, client-set and browser-only headers, keeps the rest and those --keep-header names', () => {
    const headers = [
      h(':authority', 'api.example.com'),
      h(':method', 'GET'),
      h('Host', 'api.example.com'),
      h('Content-Length', '0'),
      h('Connection', 'keep-alive'),
      h('Accept-Encoding', 'gzip, br, zstd'),
      h('sec-fetch-mode', 'cors'),
      h('sec-ch-ua', '"Chromium"'),
      h('User-Agent', 'Mozilla/5.0'),
      h('DNT', '1'),
      h('priority', 'u=1, i'),
      h('Accept', 'application/json'),
      h('X-Request-Id', 'abc'),
      h('Accept', 'text/plain'),
    ];
    const plain = testCaseFromHar(har(entry('GET', 'https://api.example.com/x', 200, { headers })), { name: 't' });
    expect(plain.testCase.flow[0]!.request.headers).to.deep.equal({
      Accept: 'application/json, text/plain',
      'X-Request-Id': 'abc',
    });
    expect(plain.entries[0]!.dropped).to.deep.equal([
      ':authority',
      ':method',
      'host',
      'content-length',
      'connection',
      'accept-encoding',
      'sec-fetch-mode',
      'sec-ch-ua',
      'user-agent',
      'dnt',
      'priority',
    ]);
    const kept = testCaseFromHar(har(entry('GET', 'https://api.example.com/x', 200, { headers })), {
      name: 't',
      keepHeaders: ['USER-AGENT'],
    });
    expect(kept.testCase.flow[0]!.request.headers).to.have.property('User-Agent', 'Mozilla/5.0');
  });

  it('never keeps credentials as literals: one secret variable per distinct value, the header refers to it', () => {
    const plan = testCaseFromHar(
      har(
        entry('GET', 'https://api.example.com/a', 200, {
          headers: [h('Authorization', 'Bearer one'), h('Cookie', 'sid=1'), h('X-Api-Key', 'k1')],
        }),
        entry('GET', 'https://api.example.com/b', 200, {
          headers: [h('authorization', 'Bearer one'), h('X-Auth-Token', 'at1')],
        }),
        entry('GET', 'https://api.example.com/c', 200, {
          headers: [h('Authorization', 'Bearer two'), h('Proxy-Authorization', 'Basic cHg=')],
          cookies: [h('sid', '2'), h('theme', 'dark')],
        }),
      ),
      { name: 't' },
    );
    const [a, b, c] = plan.testCase.flow;
    expect(a!.request.headers).to.deep.equal({
      Authorization: '{{authorization}}',
      Cookie: '{{cookie}}',
      'X-Api-Key': '{{x_api_key}}',
    });
    expect(b!.request.headers).to.deep.equal({
      authorization: '{{authorization}}',
      'X-Auth-Token': '{{x_auth_token}}',
    });
    expect(c!.request.headers).to.deep.equal({
      Authorization: '{{authorization_2}}',
      'Proxy-Authorization': '{{proxy_authorization}}',
      Cookie: '{{cookie_2}}',
    });
    expect(plan.secrets.map((s) => [s.name, s.header, s.value, s.entries])).to.deep.equal([
      ['authorization', 'authorization', 'Bearer one', [1, 2]],
      ['cookie', 'cookie', 'sid=1', [1]],
      ['x_api_key', 'x-api-key', 'k1', [1]],
      ['x_auth_token', 'x-auth-token', 'at1', [2]],
      ['authorization_2', 'authorization', 'Bearer two', [3]],
      ['proxy_authorization', 'proxy-authorization', 'Basic cHg=', [3]],
      ['cookie_2', 'cookie', 'sid=2; theme=dark', [3]],
    ]);
    const stored = JSON.stringify(plan.testCase) + JSON.stringify(plan.entries);
    for (const literal of ['Bearer one', 'Bearer two', 'sid=1', 'sid=2', 'k1', 'at1', 'cHg='])
      expect(stored).to.not.include(literal);
  });

  it('parses a JSON body, keeps other text with its media type, encodes form params, and keeps a GET body', () => {
    const plan = testCaseFromHar(
      har(
        entry('POST', 'https://api.example.com/j', 201, {
          headers: [h('Content-Type', 'application/json')],
          postData: { mimeType: 'application/json', text: '{"name":"Lamp","tags":[1]}' },
        }),
        entry('POST', 'https://api.example.com/t', 200, {
          postData: { mimeType: 'text/plain;charset=UTF-8', text: 'hello' },
        }),
        entry('POST', 'https://api.example.com/f', 200, {
          postData: { mimeType: 'application/x-www-form-urlencoded', text: 'a=1&b=two' },
        }),
        entry('POST', 'https://api.example.com/p', 200, {
          postData: { mimeType: 'application/x-www-form-urlencoded', params: [h('a', '1 2'), h('b', 'x&y')] },
        }),
        entry('POST', 'https://api.example.com/s', 200, {
          postData: { mimeType: 'application/json', text: '"just text"' },
        }),
        entry('POST', 'https://api.example.com/bad', 200, {
          postData: { mimeType: 'application/json', text: '{nope' },
        }),
        entry('GET', 'https://api.example.com/g', 200, { postData: { mimeType: 'application/json', text: '[1]' } }),
      ),
      { name: 't' },
    );
    const req = plan.testCase.flow.map((n) => n.request);
    expect(req[0]).to.deep.include({
      body: { name: 'Lamp', tags: [1] },
      headers: { 'Content-Type': 'application/json' },
    });
    expect(req[1]).to.deep.include({ body: 'hello', headers: { 'Content-Type': 'text/plain;charset=UTF-8' } });
    expect(req[2]).to.deep.include({
      body: 'a=1&b=two',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(req[3]).to.deep.include({
      body: 'a=1+2&b=x%26y',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(req[4]!.body).to.equal('"just text"');
    expect(req[5]!.body).to.equal('{nope');
    expect(plan.entries[5]!.carried).to.include('body as text (its JSON does not parse)');
    expect(req[6]).to.deep.include({ body: [1], alwaysSendBody: true });
    expect(validateFlow(plan.testCase.flow)).to.deep.equal([]);
  });

  it('reports multipart file parts as not carried (a HAR has no file bytes), and makes workspace file parts when the files are at hand', () => {
    const multipart = entry('POST', 'https://api.example.com/upload', 201, {
      headers: [h('Content-Type', 'multipart/form-data; boundary=xyz')],
      postData: {
        mimeType: 'multipart/form-data; boundary=xyz',
        params: [
          h('title', 'Report'),
          { name: 'doc', fileName: 'report final.pdf', contentType: 'application/pdf', value: '' },
        ],
      },
    });
    const without = testCaseFromHar(har(multipart), { name: 't' });
    expect(without.testCase.flow[0]!.request.multipart).to.deep.equal([{ name: 'title', value: 'Report' }]);
    expect(without.testCase.flow[0]!.request.headers).to.equal(undefined);
    expect(without.entries[0]!.notCarried).to.deep.equal([
      'multipart part "doc": file report final.pdf: a HAR holds no file bytes (pass --files-dir with the file)',
    ]);
    expect(without.counts.notCarried).to.equal(1);
    expect(without.uploads).to.deep.equal([]);

    const missing = testCaseFromHar(har(multipart), { name: 't', fileAvailable: () => false });
    expect(missing.entries[0]!.notCarried).to.deep.equal([
      'multipart part "doc": file report final.pdf is not in --files-dir',
    ]);

    const withFiles = testCaseFromHar(har(multipart), { name: 't', fileAvailable: (f) => f === 'report final.pdf' });
    expect(withFiles.testCase.flow[0]!.request.multipart).to.deep.equal([
      { name: 'title', value: 'Report' },
      { name: 'doc', file: 'report_final.pdf', filename: 'report final.pdf', contentType: 'application/pdf' },
    ]);
    expect(withFiles.uploads).to.deep.equal([
      { fileName: 'report final.pdf', file: 'report_final.pdf', contentType: 'application/pdf', entries: [1] },
    ]);
    expect(withFiles.counts.notCarried).to.equal(0);
    expect(validateFlow(withFiles.testCase.flow)).to.deep.equal([]);
  });

  it('reads the parts of a recorded multipart text (as Chrome writes it)', () => {
    const text =
      '------WebKitFormBoundaryQ\r\nContent-Disposition: form-data; name="title"\r\n\r\nHello\r\n' +
      '------WebKitFormBoundaryQ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n\r\n' +
      '------WebKitFormBoundaryQ--\r\n';
    expect(multipartBoundary('multipart/form-data; boundary=----WebKitFormBoundaryQ')).to.equal(
      '----WebKitFormBoundaryQ',
    );
    expect(multipartBoundary('application/json')).to.equal(undefined);
    expect(parseMultipartText(text, '----WebKitFormBoundaryQ')).to.deep.equal([
      { name: 'title', value: 'Hello' },
      { name: 'file', fileName: 'a.csv', contentType: 'text/csv' },
    ]);
    expect(parseMultipartText('no parts here', 'x')).to.equal(null);
    const plan = testCaseFromHar(
      har(
        entry('POST', 'https://api.example.com/u', 200, {
          postData: { mimeType: 'multipart/form-data; boundary=----WebKitFormBoundaryQ', text },
        }),
        entry('POST', 'https://api.example.com/u', 200, {
          postData: { mimeType: 'multipart/form-data; boundary=zzz', text: 'garbage' },
        }),
      ),
      { name: 't', fileAvailable: () => true },
    );
    expect(plan.testCase.flow[0]!.request.multipart).to.deep.equal([
      { name: 'title', value: 'Hello' },
      { name: 'file', file: 'a.csv', filename: 'a.csv', contentType: 'text/csv' },
    ]);
    expect(plan.testCase.flow[1]!.request).to.not.have.any.keys('body', 'multipart');
    expect(plan.entries[1]!.notCarried).to.deep.equal(['multipart body: its parts could not be read']);
  });

  it('keeps the first request of a recorded redirect chain with followRedirects, asserting the last status', () => {
    const plan = testCaseFromHar(
      har(
        entry('GET', 'https://app.example.com/login', 302, {}, { redirectURL: '/sso?x=1' }),
        entry('GET', 'https://app.example.com/other', 200),
        entry(
          'GET',
          'https://app.example.com/sso?x=1',
          301,
          {},
          { headers: [h('Location', 'https://app.example.com/home')] },
        ),
        entry('GET', 'https://app.example.com/home', 200),
        entry('POST', 'https://app.example.com/gone', 303, {}, { redirectURL: 'https://elsewhere.example.com/' }),
      ),
      { name: 't' },
    );
    expect(plan.entries.map((e) => [e.entry, e.outcome, e.redirectOf])).to.deep.equal([
      [1, 'imported', undefined],
      [2, 'imported', undefined],
      [3, 'redirect', 1],
      [4, 'redirect', 1],
      [5, 'imported', undefined],
    ]);
    const [login, , gone] = plan.testCase.flow;
    expect(login!.request.followRedirects).to.equal(true);
    expect(login!.assertions).to.deep.equal([{ target: 'response.status', operator: 'equals', expected: 200 }]);
    expect(plan.entries[0]!.carried).to.include(
      'redirects the browser followed (entries 3, 4): followRedirects, asserting the last status',
    );
    // A redirect whose target was not recorded is not followed: the recorded 303 is what is checked.
    expect(gone!.request.followRedirects).to.equal(false);
    expect(gone!.assertions![0]!.expected).to.equal(303);
    expect(plan.counts).to.deep.include({ imported: 3, redirects: 2 });
  });

  it('--include-host and --exclude-static leave entries out (by MIME type or extension); a redirect follows its head', () => {
    const plan = testCaseFromHar(
      har(
        entry('GET', 'https://api.example.com/a', 200),
        entry('GET', 'https://api.example.com/logo', 200, {}, { content: { mimeType: 'image/png' } }),
        entry('GET', 'https://api.example.com/app.js?v=3', 200, {}, { content: { mimeType: 'x-unknown' } }),
        entry('GET', 'https://api.example.com/site.css', 200, {}, { content: { mimeType: 'text/css' } }),
        entry('GET', 'https://api.example.com/f.woff2', 200, {}, { content: { mimeType: 'font/woff2' } }),
        entry('GET', 'https://api.example.com/v.mp4', 206, {}, { content: { mimeType: 'video/mp4' } }),
        entry('GET', 'https://ads.example.net/pixel', 200),
        entry('GET', 'https://api.example.com:8443/b', 200),
        entry('GET', 'https://api.example.com/old.png', 302, {}, { redirectURL: 'https://api.example.com/new.png' }),
        entry('GET', 'https://api.example.com/new.png', 200, {}, { content: { mimeType: 'image/png' } }),
      ),
      { name: 't', includeHosts: ['API.example.com'], excludeStatic: true },
    );
    expect(plan.entries.map((e) => e.outcome)).to.deep.equal([
      'imported',
      'static',
      'static',
      'static',
      'static',
      'static',
      'host',
      'imported',
      'static',
      'static',
    ]);
    expect(plan.counts).to.deep.include({ imported: 2, static: 7, otherHosts: 1, redirects: 0, notCarried: 0 });
    // host:port matches only that port.
    const port = testCaseFromHar(
      har(entry('GET', 'https://api.example.com/a', 200), entry('GET', 'https://api.example.com:8443/b', 200)),
      { name: 't', includeHosts: ['api.example.com:8443'] },
    );
    expect(port.entries.map((e) => e.outcome)).to.deep.equal(['host', 'imported']);
    expect(port.base).to.equal('https://api.example.com:8443');
  });

  it(`cuts the entries beyond ${MAX_HAR_REQUESTS} kept requests and reports them as not carried`, () => {
    const entries = Array.from({ length: MAX_HAR_REQUESTS + 3 }, (_, i) =>
      entry('GET', `https://api.example.com/r/${i}`, 200),
    );
    const plan = testCaseFromHar(har(...entries), { name: 't' });
    expect(plan.testCase.flow).to.have.length(MAX_HAR_REQUESTS);
    expect(plan.counts).to.deep.include({ imported: MAX_HAR_REQUESTS, cut: 3, notCarried: 3 });
    expect(plan.entries.at(-1)!.notCarried).to.deep.equal([
      `cut: a test case holds at most ${MAX_HAR_REQUESTS} requests`,
    ]);
    expect(validateFlow(plan.testCase.flow)).to.deep.equal([]);
  });

  it('skips what cannot be a request and reports a missing response', () => {
    const plan = testCaseFromHar(
      har(
        entry('GET', 'wss://api.example.com/socket', 101),
        entry('CONNECT', 'https://api.example.com:443', 200),
        entry('GET', 'not a url', 200),
        entry('GET', 'https://api.example.com/failed', 0),
        { request: { method: 'GET', url: 'https://api.example.com/no-response' } },
        entry('GET', 'https://api.example.com/h', 200, { headers: [h('Accept;charset=UTF-8', 'text/csv')] }),
      ),
      { name: 't' },
    );
    expect(plan.entries.map((e) => [e.outcome, e.notCarried])).to.deep.equal([
      ['skipped', ['not an http(s) request (wss)']],
      ['skipped', ['method CONNECT: not a method an API node sends']],
      ['skipped', ['the URL "not a url" does not parse']],
      ['imported', ['status assertion: no response was recorded']],
      ['imported', ['status assertion: no response was recorded']],
      ['imported', ['header "Accept;charset=UTF-8": not a valid header name']],
    ]);
    expect(plan.testCase.flow[0]!.assertions).to.equal(undefined);
    expect(plan.base).to.equal('https://api.example.com');
    expect(plan.counts).to.deep.include({ skipped: 3, notCarried: 6 });
  });

  it('refuses what is not a HAR, naming what is wrong', () => {
    expect(() => parseHar('{')).to.throw(HarFormatError, /^not JSON: /);
    expect(() => parseHar('[]')).to.throw(HarFormatError, 'not a HAR: no "log" object');
    expect(() => parseHar('{"log":{"entries":{}}}')).to.throw(
      HarFormatError,
      'not a HAR: "log.entries" is not an array',
    );
    expect(parseHar('\uFEFF{"log":{"entries":[]}}').log.entries).to.deep.equal([]);
  });

  it('makes workspace file names of recorded file names', () => {
    expect(workspaceFileName('C:\\Users\\me\\photo 1.jpg')).to.equal('photo_1.jpg');
    expect(workspaceFileName('a/b/data.csv')).to.equal('data.csv');
    expect(workspaceFileName('..')).to.equal(null);
    expect(workspaceFileName('')).to.equal(null);
  });

  describe('public fixtures (test/fixtures/har/SOURCES.md)', () => {
    const load = (name: string) => parseHar(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

    it('Chrome (mitmproxy): 3 entries, its Cookie a secret, the failed request without a status assertion', () => {
      const plan = testCaseFromHar(load('mitmproxy-chrome.har'), { name: 'chrome' });
      expect(plan.creator).to.equal('WebInspector 537.36');
      expect(plan.counts).to.deep.equal({
        entries: 3,
        imported: 3,
        redirects: 0,
        static: 0,
        otherHosts: 0,
        cut: 0,
        skipped: 0,
        notCarried: 1,
      });
      expect(plan.base).to.equal('https://mitmproxy.org');
      expect(plan.secrets.map((s) => [s.name, s.entries])).to.deep.equal([['cookie', [3]]]);
      const text = JSON.stringify(plan.testCase);
      expect(text).to.not.include(plan.secrets[0]!.value);
      expect(text).to.not.match(/sec-fetch|user-agent|:authority/i);
      expect(validateFlow(plan.testCase.flow)).to.deep.equal([]);
    });

    it('Firefox (mitmproxy): 14 entries, 9 of them static, 1 on another host', () => {
      const plan = testCaseFromHar(load('mitmproxy-firefox.har'), {
        name: 'firefox',
        excludeStatic: true,
        includeHosts: ['mitmproxy.org'],
      });
      expect(plan.counts).to.deep.include({ entries: 14, imported: 4, static: 9, otherHosts: 1, notCarried: 0 });
      expect(plan.testCase.flow.map((n) => `${n.name} ${n.assertions![0]!.expected}`)).to.deep.equal([
        'GET / 304',
        'GET /github-btn.html 304',
        'GET /github-btn.html 304',
        'GET /data/github-stats.json 304',
      ]);
      expect(validateFlow(plan.testCase.flow)).to.deep.equal([]);
    });

    it('har-to-k6 multipart: 5 requests, 2 file parts not carried without the files', () => {
      const plan = testCaseFromHar(load('har-to-k6-multipart-formdata.har'), { name: 'k6' });
      expect(plan.counts).to.deep.include({ entries: 5, imported: 5, notCarried: 5 });
      const files = plan.entries.flatMap((e) => e.notCarried.filter((n) => n.startsWith('multipart part')));
      expect(files).to.have.length(2);
      expect(validateFlow(plan.testCase.flow)).to.deep.equal([]);
    });
  });
});
