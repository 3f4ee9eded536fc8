/**
 * `assay import curl` (docs/cli.md "Importing"; cli/commands/import-curl.ts, cli/importers/curl.ts)
 * with the built binary against a real API: real curl commands from public docs
 * (test/fixtures/curl, SOURCES.md) give the dry-run report expected of them and store nothing; a
 * real import runs (`assay run`) against a loopback server that checks what arrived — method,
 * headers, a JSON body, a multipart file part byte for byte, a binary body, Basic credentials and a
 * cookie — with no secret written into the test case; `--strict` with an unknown flag exits 2 and
 * stores nothing.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { importCurl, splitCurlCommands } from '../../../cli/importers/curl';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';

const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures/curl');

/** 512 bytes: every byte value twice (NUL, CR, LF, 0x80–0xFF: not UTF-8). */
const ALL_BYTES = Buffer.concat([0, 1].map(() => Buffer.from(Array.from({ length: 256 }, (_, i) => i))));
const CSV = Buffer.from('id,name\r\n1,Ada\r\n');

interface Arrived {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface CommandReport {
  line: number;
  node?: string;
  method?: string;
  url?: string;
  carried: string[];
  notCarried: string[];
  notes: string[];
}

/** A server on loopback that records every request and answers 200 (401 to /private without the right Basic credentials). */
async function startRecorder(): Promise<{ url: string; arrived: Arrived[]; close(): Promise<void> }> {
  const arrived: Arrived[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrived.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const basic = `Basic ${Buffer.from('ada:s3cret-pw').toString('base64')}`;
      const ok = !req.url!.startsWith('/private') || req.headers.authorization === basic;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end('{"ok": true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('assay import curl', function () {
  this.timeout(180_000);
  let app: TestApp;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  let dir: string;

  /** What the workspace holds, as a user would list it. */
  async function workspace() {
    const list = async (p: string) =>
      (await app.request('GET', `${p}?limit=200`)).body.items as Array<{ name: string }>;
    return {
      testCases: (await list('/v1/test-cases')).map((t) => t.name),
      environments: (await list('/v1/environments')).map((e) => e.name),
      authProfiles: (await list('/v1/auth-profiles')).map((p) => p.name),
      files: (await list('/v1/files')).map((f) => f.name),
    };
  }

  before(async () => {
    [app, recorder] = await Promise.all([startTestApp({ worker: true }), startRecorder()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-import-curl-'));
  });
  after(async () => {
    await Promise.all([app?.stop(), recorder?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the published commands of GitHub and curl docs (dry run): what was carried, what not; stores nothing', async () => {
    const gh = await runCli(
      ['import', 'curl', path.join(FIXTURES, 'github-rest.curl'), '--name', 'GitHub', '--dry-run', '--json'],
      { app, cwd: dir },
    );
    expect(gh.code, gh.stderr).to.equal(0);
    const ghReport = JSON.parse(gh.stdout) as { commands: CommandReport[]; environment: unknown; notCarried: number };
    expect(ghReport.commands.map((c) => [c.line, c.method, c.url])).to.deep.equal([
      [3, 'GET', '{{base}}/octocat'],
      [9, 'GET', '{{base}}/events?per_page=2&page=1'],
      [16, 'POST', '{{base}}/repos/octocat/Spoon-Knife/issues'],
    ]);
    expect(ghReport.commands[1]!.notCarried).to.deep.equal([
      'extra arguments: https://api.github.com/events (one URL per node)',
    ]);
    expect(ghReport.commands[2]!.carried).to.include('--header Authorization');
    expect(ghReport.notCarried).to.equal(1);
    // The token goes to a secret variable, base is the first command's origin.
    expect(ghReport.environment).to.deep.equal({
      name: 'GitHub',
      action: 'planned',
      variables: ['base', 'token'],
      secrets: ['token'],
    });
    expect(gh.stderr).to.include('Would import 3 curl command(s)');

    // From standard input (`-`): files are read relative to the working directory.
    const manual = await runCli(['import', 'curl', '-', '--name', 'manual', '--dry-run', '--json'], {
      app,
      cwd: FIXTURES,
      input: fs.readFileSync(path.join(FIXTURES, 'curl-manual.curl'), 'utf8'),
    });
    expect(manual.code, manual.stderr).to.equal(0);
    const report = JSON.parse(manual.stdout) as {
      commands: CommandReport[];
      files: Array<{ name: string; size: number }>;
      authProfiles: Array<{ name: string }>;
      environment: { variables: string[]; secrets: string[] };
    };
    expect(report.commands).to.have.length(14);
    const byLine = Object.fromEntries(report.commands.map((c) => [c.line, c]));
    expect(byLine[8]).to.deep.include({ method: 'GET', url: 'http://machine.domain/full/path/to/file' });
    expect(byLine[8]!.notes).to.include('the credentials in the URL were taken as -u');
    expect(byLine[11]!.notCarried).to.deep.equal(['-x my-proxy:888: not supported']);
    expect(byLine[13]!.notCarried).to.deep.equal(['-r 0-99: not supported']);
    expect(byLine[15]!.notCarried).to.deep.equal(['-T -: not supported']);
    expect(byLine[17]).to.deep.include({ method: 'POST', url: 'http://www.where.com/guest.cgi' });
    expect(byLine[20]!.carried[0]).to.equal(
      '-F file=@cooltext.txt (file part, workspace file curl/manual/cooltext.txt)',
    );
    expect(byLine[6]!.notes).to.include('-o: changes only what curl prints, nothing to carry');
    expect(byLine[28]).to.deep.include({ url: 'http://www.sillypage.com', carried: ['-b (Cookie)'] });
    expect(report.commands.filter((c) => c.notCarried.length).map((c) => c.line)).to.deep.equal([11, 13, 15]);
    expect(report.files).to.deep.equal([
      {
        name: 'curl/manual/cooltext.txt',
        path: 'cooltext.txt',
        size: fs.statSync(path.join(FIXTURES, 'cooltext.txt')).size,
        contentType: 'text/plain',
        action: 'planned',
      },
    ]);
    // name:passwd and user:passwd: two Basic profiles sharing the password variable.
    expect(report.authProfiles.map((p) => p.name)).to.deep.equal(['manual-basic', 'manual-basic-2']);
    expect(report.environment.secrets).to.deep.equal(['username', 'password', 'username2', 'cookie']);

    expect(await workspace()).to.deep.equal({ testCases: [], environments: [], authProfiles: [], files: [] });
  });

  it('imports commands as one test case that sends what curl would send, with no secret in it', async () => {
    fs.writeFileSync(path.join(dir, 'bytes.bin'), ALL_BYTES);
    fs.writeFileSync(path.join(dir, 'rows.csv'), CSV);
    const commands = path.join(dir, 'shop.curl');
    fs.writeFileSync(
      commands,
      [
        '# orders',
        `curl -X POST ${recorder.url}/orders -H 'Content-Type: application/json' \\`,
        `  -H 'Authorization: Bearer tok-12345678' --data-raw '{"item": "book", "qty": 2}'`,
        '',
        `curl -u ada:s3cret-pw -b 'sid=cookie-value-1' --compressed -L -m 5 ${recorder.url}/private`,
        `curl -F title=Report -F 'file=@bytes.bin;type=application/x-thing;filename=all.bin' ${recorder.url}/upload`,
        `curl -X PUT --data-binary @rows.csv -H 'Content-Type: text/csv' ${recorder.url}/import`,
        '',
      ].join('\n'),
    );
    const imported = await runCli(
      ['import', 'curl', 'shop.curl', '--name', 'shop', '--environment', 'shop-env', '--runner', 'shop', '--json'],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    expect(report.notCarried).to.equal(0);
    expect(report.testCase).to.deep.include({ name: 'shop', folder: 'curl', action: 'created', nodes: 4 });
    expect(report.commands[1].notes).to.include(
      '--compressed: nothing to do, Assay asks for compressed answers and decodes them itself',
    );

    const stored = (await app.request('GET', `/v1/test-cases/${report.testCase.id}`)).body;
    expect(stored.tags).to.deep.equal(['curl']);
    const [orders, priv, upload, put] = stored.flow;
    expect(orders.request).to.deep.equal({
      method: 'POST',
      url: '{{base}}/orders',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer {{token}}' },
      body: { item: 'book', qty: 2 },
      followRedirects: false,
    });
    expect(orders.assertions).to.deep.equal([
      { name: 'status is 2xx', target: 'response.status', operator: 'inRange', expected: [200, 299] },
    ]);
    expect(priv.authProfile).to.equal('shop-basic');
    expect(priv.request).to.deep.equal({
      method: 'GET',
      url: '{{base}}/private',
      headers: { Cookie: '{{cookie}}' },
      followRedirects: true,
      timeoutMs: 5000,
    });
    expect(upload.request.multipart).to.deep.equal([
      { name: 'title', value: 'Report' },
      { name: 'file', file: 'curl/shop/bytes.bin', filename: 'all.bin', contentType: 'application/x-thing' },
    ]);
    expect(put.request).to.deep.include({ method: 'PUT', file: 'curl/shop/rows.csv' });
    // No secret literal in the test case: the environment holds them, sealed.
    expect(JSON.stringify(stored)).to.not.match(/tok-12345678|s3cret-pw|cookie-value-1|ada:/);
    const env = (await app.request('GET', '/v1/environments/shop-env')).body;
    expect(env.variables).to.deep.equal({
      base: recorder.url,
      token: { secret: true, value: '***' },
      username: 'ada',
      password: { secret: true, value: '***' },
      cookie: { secret: true, value: '***' },
    });
    const profile = (await app.request('GET', '/v1/auth-profiles/shop-basic')).body;
    expect(profile).to.deep.include({ type: 'basic', config: { username: '{{username}}', password: '{{password}}' } });

    const run = await runCli(['run', '--runner', 'shop', '--env', 'shop-env', '--wait'], { app, cwd: dir });
    expect(run.code, run.stderr + run.stdout).to.equal(0);

    const at = (p: string) => recorder.arrived.filter((a) => a.url === p);
    expect(at('/orders')).to.have.length(1);
    const o = at('/orders')[0]!;
    expect(o.method).to.equal('POST');
    expect(o.headers.authorization).to.equal('Bearer tok-12345678');
    expect(o.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(o.body.toString('utf8'))).to.deep.equal({ item: 'book', qty: 2 });

    const p = at('/private')[0]!;
    expect(p.headers.authorization).to.equal(`Basic ${Buffer.from('ada:s3cret-pw').toString('base64')}`);
    expect(p.headers.cookie).to.equal('sid=cookie-value-1');

    const u = at('/upload')[0]!;
    expect(u.method).to.equal('POST');
    const form = await new Response(new Uint8Array(u.body), {
      headers: { 'content-type': u.headers['content-type']! },
    }).formData();
    expect(form.get('title')).to.equal('Report');
    const file = form.get('file') as File;
    expect(file.name).to.equal('all.bin');
    expect(file.type).to.equal('application/x-thing');
    expect(Buffer.from(await file.arrayBuffer())).to.deep.equal(ALL_BYTES);

    const put2 = at('/import')[0]!;
    expect(put2.method).to.equal('PUT');
    expect(put2.headers['content-type']).to.equal('text/csv');
    expect(put2.body).to.deep.equal(CSV);

    // Importing again changes nothing in the test case.
    const again = await runCli(
      ['import', 'curl', 'shop.curl', '--name', 'shop', '--environment', 'shop-env', '--json'],
      {
        app,
        cwd: dir,
      },
    );
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout).testCase.action).to.equal('unchanged');
  });

  it('--strict refuses a command with an unknown flag (exit 2) and stores nothing; a file that cannot be read is listed', async () => {
    const before = await workspace();
    fs.writeFileSync(
      path.join(dir, 'strict.curl'),
      `curl --proxy http://p:3128 -F 'f=@missing.bin' ${recorder.url}/x\n`,
    );
    const strict = await runCli(['import', 'curl', 'strict.curl', '--name', 'strict', '--strict', '--json'], {
      app,
      cwd: dir,
    });
    expect(strict.code).to.equal(2);
    expect(strict.stderr).to.include('--strict: 2 thing(s) could not be carried over');
    const report = JSON.parse(strict.stdout);
    expect(report.commands[0].notCarried).to.deep.equal([
      '--proxy http://p:3128: not supported',
      '-F f: the file missing.bin could not be read (ENOENT)',
    ]);
    expect(await workspace()).to.deep.equal(before);

    // Not a curl command, or no URL: nothing to import is a usage error.
    fs.writeFileSync(path.join(dir, 'none.curl'), 'wget https://x.test/\ncurl -X POST\n');
    const none = await runCli(['import', 'curl', 'none.curl', '--name', 'none'], { app, cwd: dir });
    expect(none.code).to.equal(2);
    expect(none.stderr).to.include('NOT carried: not a curl command: it should start with "curl"');
    expect(none.stderr).to.include('NOT carried: the command names no URL');
    expect(none.stderr).to.include('no command could be imported');
    expect(await workspace()).to.deep.equal(before);
  });
  it('translates each flag as the table of cli/importers/curl.ts says (no API needed)', () => {
    const files: Record<string, string> = { 'body.json': '{"a": 1}', 'lines.txt': 'a=1\nb=2\n' };
    const made = importCurl(
      splitCurlCommands(
        [
          "curl -k -L --max-redirs 99 --max-time 0.25 -G -d q=ada --data-urlencode 'note=x y' https://api.test/search",
          'curl --json \'{"n": 1}\' https://api.test/j',
          'curl --digest -u root:hunter22 api.test/d',
          'curl -d @lines.txt https://api.test/form',
          'curl --json @body.json https://api.test/jf',
          "curl -H 'X-Api-Key: $API_KEY' -H 'Accept;' https://api.test/k",
          '  # a comment between commands',
          'curl -I https://api.test/h --fail -sS',
          "curl -F 'notes=<lines.txt' -F 'meta=<body.json' https://api.test/m",
        ].join('\n'),
      ),
      {
        name: 'flags',
        baseUrl: 'https://api.test',
        readFile: (f) => (f in files ? Buffer.from(files[f]!) : { error: 'ENOENT' }),
      },
    );
    const req = made.nodes.map((n) => n.request);
    expect(req[0]).to.deep.equal({
      method: 'GET',
      url: '{{base}}/search?q=ada&note=x%20y',
      strictSSL: false,
      followRedirects: true,
      maxRedirects: 50,
      timeoutMs: 250,
    });
    expect(req[1]).to.deep.equal({
      method: 'POST',
      url: '{{base}}/j',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: { n: 1 },
      followRedirects: false,
    });
    expect(req[2]).to.deep.include({
      url: 'http://api.test/d',
      auth: { type: 'digest', username: '{{username}}', password: '{{password}}' },
    });
    expect(req[3]).to.deep.include({
      method: 'POST',
      body: 'a=1b=2',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(req[4]).to.deep.include({ file: { file: 'curl/flags/body.json', contentType: 'application/json' } });
    expect(made.files.map((f) => [f.name, f.contentType])).to.deep.equal([
      ['curl/flags/body.json', 'application/json'],
    ]);
    expect(req[5]!.headers).to.deep.equal({ 'X-Api-Key': '{{API_KEY}}', Accept: '' });
    expect(made.commands[5]!.notes).to.include(
      'the shell variable $API_KEY became {{API_KEY}}: set API_KEY in the environment',
    );
    expect(req[6]).to.deep.equal({ method: 'HEAD', url: '{{base}}/h', followRedirects: false });
    expect(made.commands[6]!.line).to.equal(8);
    // `-F "name=<file"`: the file's text as a text part (curl sends it without a file name).
    expect(req[7]!.multipart).to.deep.equal([
      { name: 'notes', value: 'a=1\nb=2\n' },
      { name: 'meta', value: '{"a": 1}' },
    ]);
    expect(made.commands[0]!.notes).to.include('--max-redirs 99: Assay follows at most 50 redirects');
    expect(made.commands.every((c) => c.notCarried.length === 0)).to.equal(true);
    expect(made.variables).to.deep.equal({
      base: 'https://api.test',
      username: { value: 'root', secret: true },
      password: { value: 'hunter22', secret: true },
    });
  });
});
