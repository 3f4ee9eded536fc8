/**
 * The files `assay import postman` reads (cli/importers/postman-formats.ts): encodings, Collection
 * v1, environment and globals exports, iteration data as `newman run -d` parses it; and how the
 * importer lays iteration data and globals out (cli/importers/postman.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { importPostman, ITERATION_DATA_SET, type ImportedNode } from '../../cli/importers/postman';
import { findConstructs } from '../../cli/importers/postman-constructs';
import {
  collectionAsV2,
  decodeText,
  isV1Collection,
  parseCsvRows,
  parseIterationData,
  parseJsonBytes,
  readVariableFile,
} from '../../cli/importers/postman-formats';
import { evaluateExpression } from '../../src/domain/expressions';

const FORMATS = path.resolve(__dirname, '../../../test/fixtures/postman/formats');
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

describe('Postman import: file formats (cli/importers/postman-formats)', () => {
  describe('text encodings', () => {
    const text = '{"name":"ünï cödé"}';
    it('reads UTF-8 with and without a byte order mark', () => {
      expect(decodeText(Buffer.from(text))).to.deep.equal({ text, encoding: 'utf-8', bom: false });
      expect(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]))).to.deep.equal({
        text,
        encoding: 'utf-8',
        bom: true,
      });
    });

    it('reads UTF-16 LE and BE with a byte order mark', () => {
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const be = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)]);
      expect(decodeText(le)).to.deep.equal({ text, encoding: 'utf-16le', bom: true });
      expect(decodeText(be)).to.deep.equal({ text, encoding: 'utf-16be', bom: true });
    });

    it('reads UTF-16 without a byte order mark when the text starts with ASCII', () => {
      expect(decodeText(Buffer.from(text, 'utf16le'))).to.deep.equal({ text, encoding: 'utf-16le', bom: false });
      expect(decodeText(utf16be(text))).to.deep.equal({ text, encoding: 'utf-16be', bom: false });
    });

    it('falls back to Latin-1 when the bytes are not UTF-8', () => {
      expect(decodeText(Buffer.from('{"a":"caf\u00e9"}', 'latin1'))).to.deep.equal({
        text: '{"a":"café"}',
        encoding: 'latin1',
        bom: false,
      });
    });

    it('parses JSON in any of them, surrounding whitespace allowed', () => {
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('\n {"a": 1}\n', 'utf16le')]);
      expect(parseJsonBytes(bytes)).to.deep.equal({ a: 1 });
      expect(() => parseJsonBytes(Buffer.from('{"a": '))).to.throw(SyntaxError);
    });

    it('reads the UTF-16 fixtures', () => {
      const env = parseJsonBytes(fs.readFileSync(path.join(FORMATS, 'utf16le.postman_environment.json')));
      const globals = parseJsonBytes(fs.readFileSync(path.join(FORMATS, 'utf16be.postman_globals.json')));
      expect(readVariableFile(env, 'environment').variables['ünï cödé']).to.equal('ü-value');
      expect(readVariableFile(globals, 'globals').variables.onlyGlobal).to.equal('g');
    });
  });

  describe('Collection v1', () => {
    const v1 = JSON.parse(fs.readFileSync(path.join(FORMATS, 'v1.postman_collection.json'), 'utf8')) as unknown;

    it('is told apart as Newman tells it (name, order, requests)', () => {
      expect(isV1Collection(v1)).to.equal(true);
      expect(isV1Collection({ info: { name: 'x' }, item: [] })).to.equal(false);
      expect(isV1Collection({ name: 'x', requests: [] })).to.equal(false);
    });

    it('is converted to v2.1 by postman-collection-transformer: folders first, requests, scripts, auth helper', () => {
      const { collection, convertedFrom } = collectionAsV2(v1);
      expect(convertedFrom).to.equal('v1');
      const c = collection as {
        info: { schema: string; name: string };
        item: Array<{ name: string; item?: Array<{ name: string; request: { auth?: { type: string } } }> }>;
        variable: Array<{ key: string; value: string }>;
      };
      expect(c.info.schema).to.match(/v2\.1\.0/);
      expect(c.info.name).to.equal('Assay formats: v1');
      expect(c.item.map((i) => i.name)).to.deep.equal(['Main', 'Root get']);
      expect(c.item[0]!.item!.map((i) => i.name)).to.deep.equal([
        'Raw JSON post',
        'Form post',
        'Basic auth helper',
        'Path variable',
      ]);
      expect(c.item[0]!.item![2]!.request.auth!.type).to.equal('basic');
      expect(c.variable).to.deep.equal([{ key: 'client', value: 'assay' }]);
      // A v2 collection is left as it is.
      const v2 = { info: { name: 'x' }, item: [] };
      expect(collectionAsV2(v2)).to.deep.equal({ collection: v2 });
    });

    it('imports: the report says v1; requests, scripts and variables as in the v2.1 it converts to', () => {
      const imported = importPostman(v1);
      expect(imported.format).to.equal('v1');
      expect(imported.requests).to.equal(5);
      expect(imported.testCases.map((t) => t.name)).to.deep.equal(['Main', 'Assay formats: v1']);
      expect(imported.environment.variables).to.deep.equal({ client: 'assay' });
      const root = imported.testCases[1]!.flow[0] as Extract<ImportedNode, { type: 'api' }>;
      expect(root.request).to.deep.include({ method: 'GET', url: '{{baseUrl}}/get?from=v1&stamp={{stamp}}' });
      expect(root.request.headers).to.deep.equal({ 'X-Client': '{{client}}' });
      expect(root.script!.code).to.include('postman.setEnvironmentVariable("stamp"');
    });

    it('says which formats it reads when the file is none of them', () => {
      expect(() => importPostman({ name: 'x' })).to.throw(/not a Postman collection \(v1, v2\.0 or v2\.1\)/);
    });

    it('reads what Newman reads besides: no info block, the Postman API wrapper, items without a name', () => {
      const bare = importPostman({ name: 'bare', item: [{ request: 'http://h/x' }] });
      expect(bare.collectionName).to.equal('bare');
      expect(bare.testCases[0]!.flow[0]!.name).to.equal('http://h/x');
      const wrapped = importPostman({
        collection: { info: { name: 'wrapped' }, item: [{ name: 'r', request: 'http://h/y' }] },
      });
      expect(wrapped.collectionName).to.equal('wrapped');
      expect(wrapped.format).to.equal('v2.1');
    });
  });

  describe('environment and globals exports', () => {
    it('reads values with their JSON types, leaves disabled ones out and names them', () => {
      const file = readVariableFile(
        {
          name: 'staging',
          values: [
            { key: 's', value: 'text', enabled: true },
            { key: 'n', value: 5, type: 'default', enabled: true },
            { key: 'b', value: false, enabled: true },
            { key: 'o', value: { x: 1 }, enabled: true },
            { key: 'none', value: null },
            { key: 'off', value: 'D', enabled: false },
            { key: 'sdkOff', value: 'D', disabled: true },
            { key: 'dup', value: '1' },
            { key: 'dup', value: '2', disabled: true },
            { key: 'dup', value: '3' },
            { key: '', value: 'no name' },
          ],
        },
        'environment',
      );
      expect(file).to.deep.equal({
        name: 'staging',
        variables: { s: 'text', n: 5, b: false, o: { x: 1 }, none: '', dup: '3' },
        disabled: ['off', 'sdkOff'],
        // Newman 6.2.2 reads only the SDK's "disabled": true.
        newmanUses: ['off'],
      });
    });

    it('unwraps the Postman API form ({"environment": {…}}, {"globals": {…}})', () => {
      expect(readVariableFile({ globals: { values: [{ key: 'g', value: '1' }] } }, 'globals').variables).to.deep.equal({
        g: '1',
      });
      expect(readVariableFile([{ key: 'g', value: '1', enabled: true }], 'globals').variables).to.deep.equal({
        g: '1',
      });
      expect(() => readVariableFile({ name: 'x' }, 'environment')).to.throw(/not a Postman environment export/);
    });

    it('globals sit below collection variables, which sit below the environment', () => {
      const collection = {
        info: { name: 'p', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
        variable: [
          { key: 'a', value: 'collection' },
          { key: 'b', value: 'collection' },
          { key: 'n', value: '12', type: 'number' },
        ],
        item: [{ name: 'r', request: { method: 'GET', url: 'http://h/{{a}}' } }],
      };
      const imported = importPostman(
        collection,
        { values: [{ key: 'a', value: 'environment' }] },
        {
          globals: {
            values: [
              { key: 'a', value: 'globals' },
              { key: 'b', value: 'globals' },
              { key: 'c', value: 'globals' },
              { key: 'x', value: 'off', enabled: false },
            ],
          },
        },
      );
      expect(imported.environment.variables).to.deep.equal({ a: 'environment', b: 'collection', c: 'globals', n: 12 });
      expect(imported.warnings.map((w) => `${w.at}: ${w.message}`)).to.deep.equal([
        'globals: disabled values (x) are not imported, as in the Postman app; Newman 6.2.2 uses those marked "enabled": false (x) all the same, so tests reading them can differ',
      ]);
    });
  });

  describe('iteration data', () => {
    it('parses CSV as Newman does: BOM, quoted commas and quotes, line breaks in quotes, short rows, a repeated column', () => {
      const csv =
        '\ufeffname,qty,note,dup,dup\r\nAda,3,"Hello, world",first,second\r\n"Grace\r\nHopper",2.5,"say ""hi""",a,b\r\nLinus,1\r\n';
      expect(parseIterationData(Buffer.from(csv))).to.deep.equal({
        format: 'csv',
        rows: [
          { name: 'Ada', qty: 3, note: 'Hello, world', dup: 'second' },
          { name: 'Grace\r\nHopper', qty: 2.5, note: 'say "hi"', dup: 'b' },
          { name: 'Linus', qty: 1 },
        ],
        columns: ['name', 'qty', 'note', 'dup'],
        notes: [],
      });
    });

    it("casts numbers with Newman's csvAutoParse (quoted values and true stay text)", () => {
      const rows = parseCsvRows('a,b,c,d,e,f,g,h,i,j\n007,0x10,"5",1e3,true,0, x ,-3,+4,1.5.2\n');
      expect(rows).to.deep.equal([{ a: 7, b: 0, c: '5', d: 1000, e: 'true', f: 0, g: 'x', h: -3, i: 4, j: '1.5.2' }]);
    });

    it('keeps an empty line as a row with an empty first column (Newman runs it too)', () => {
      expect(parseCsvRows('a,b\n1,2\n\n3,4\n')).to.deep.equal([{ a: 1, b: 2 }, { a: '' }, { a: 3, b: 4 }]);
    });

    it('reads CSV in UTF-16 with a BOM', () => {
      const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\nx,1\n', 'utf16le')]);
      expect(parseIterationData(bytes).rows).to.deep.equal([{ a: 'x', b: 1 }]);
    });

    it('reads a JSON array of objects as it is, values of any type', () => {
      const data = parseIterationData(Buffer.from('[{"a": 1, "tags": ["x"]}, {"b": {"c": null}}]'));
      expect(data).to.deep.equal({
        format: 'json',
        rows: [{ a: 1, tags: ['x'] }, { b: { c: null } }],
        columns: ['a', 'tags', 'b'],
        notes: [],
      });
    });

    it('says when Newman would run once without data: no rows, JSON that is not an array, rows that are not objects', () => {
      expect(parseIterationData(Buffer.from('a,b\n')).notes[0]).to.match(/has no rows/);
      expect(parseIterationData(Buffer.from('[]')).notes[0]).to.match(/has no rows/);
      expect(parseIterationData(Buffer.from('{"a": 1}'))).to.deep.include({ rows: [], format: 'json' });
      expect(parseIterationData(Buffer.from('{"a": 1}')).notes[0]).to.match(/not an array/);
      expect(parseIterationData(Buffer.from('[1, {"a": 2}]'))).to.deep.include({ rows: [{}, { a: 2 }] });
    });

    it('refuses text that is neither JSON nor CSV', () => {
      expect(() => parseIterationData(Buffer.from('a,b\n"unclosed,1\n'))).to.throw(/neither JSON nor CSV/);
    });
  });
});

describe('Postman import: iteration data as a data set and an Iteration node (cli/importers/postman)', () => {
  const collection = {
    info: { name: 'data', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
    item: [
      {
        name: 'Folder',
        item: [
          {
            name: 'Uses the row',
            request: { method: 'GET', url: 'http://h/get?name={{name}}&tier={{tier}}' },
            event: [{ listen: 'test', script: { exec: ['pm.test("x", function () {});'] } }],
          },
        ],
      },
    ],
  };
  const data = parseIterationData(Buffer.from('[{"name": "Ada", "tier": "gold"}, {"name": "Grace", "index": 3}]'));

  it('wraps each test case in an Iteration node over the rows, after a Context node setting each column', () => {
    const imported = importPostman(
      collection,
      { values: [{ key: 'tier', value: 'env-tier' }] },
      {
        iterationData: data,
        iterationDataName: 'data.json',
      },
    );
    expect(imported.iterations).to.equal(2);
    const [tc] = imported.testCases;
    expect(tc!.dataSets).to.deep.equal([{ name: ITERATION_DATA_SET, type: 'json', data: data.rows }]);
    expect(tc!.flow).to.have.length(1);
    const loop = tc!.flow[0] as Extract<ImportedNode, { type: 'iteration' }>;
    expect(loop).to.deep.include({
      type: 'iteration',
      id: 'iteration_data',
      name: 'Iteration data (data.json)',
      dataSet: ITERATION_DATA_SET,
      as: '_postmanData',
    });
    expect(loop.body.map((n) => n.type)).to.deep.equal(['context', 'api']);
    const context = loop.body[0] as Extract<ImportedNode, { type: 'context' }>;
    expect(Object.keys(context.set)).to.deep.equal(['name', 'tier', 'index']);
    const api = loop.body[1] as Extract<ImportedNode, { type: 'api' }>;
    // pm.info.iterationCount comes from the script's info.
    expect(api.script!.code).to.include('"iterationCount":2');
    // {{index}} would read the loop's index: the report says so.
    expect(imported.warnings.map((w) => w.message).join('\n')).to.match(/read \{\{index\}\} as the loop's own values/);
  });

  it("the Context node's expressions give the row's value, else the imported value, else none (as Newman's lookup falls through)", async () => {
    const imported = importPostman(
      collection,
      { values: [{ key: 'tier', value: 'env-tier' }] },
      { iterationData: data },
    );
    const loop = imported.testCases[0]!.flow[0] as Extract<ImportedNode, { type: 'iteration' }>;
    const set = (loop.body[0] as Extract<ImportedNode, { type: 'context' }>).set;
    const values = async (item: unknown) => {
      const out: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(set)) out[k] = await evaluateExpression(e, { loop: { item } });
      return out;
    };
    expect(await values(data.rows[0])).to.deep.equal({ name: 'Ada', tier: 'gold', index: undefined });
    expect(await values(data.rows[1])).to.deep.equal({ name: 'Grace', tier: 'env-tier', index: 3 });
  });

  it('without rows, the flow stays as it is and the report says Newman runs once', () => {
    const imported = importPostman(collection, undefined, {
      iterationData: parseIterationData(Buffer.from('[]')),
      iterationDataName: 'empty.json',
    });
    expect(imported.iterations).to.equal(0);
    expect(imported.testCases[0]!.flow[0]!.type).to.equal('api');
    expect(imported.testCases[0]!.dataSets).to.equal(undefined);
    expect(imported.warnings.map((w) => `${w.at}: ${w.message}`)).to.include(
      'empty.json: the data has no rows: Newman runs the collection once without data; so does the import',
    );
  });

  it('refuses more rows than a data set holds', () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => ({ i }));
    expect(() =>
      importPostman(collection, undefined, { iterationData: { format: 'json', rows, columns: ['i'], notes: [] } }),
    ).to.throw(/10001 rows; an Assay data set holds at most 10000/);
  });
});

describe('Postman import: the rest of the schema in the report (cli/importers/postman-constructs)', () => {
  it('names dynamic variables Assay does not fill, and leaves request settings to the request mapping', () => {
    const found = findConstructs(
      {
        info: { name: 'c' },
        event: { listen: 'test', script: { exec: 'pm.test("x", () => {})' } },
        item: [
          {
            name: 'F',
            protocolProfileBehavior: { disableBodyPruning: true },
            item: [
              {
                name: 'Kept body',
                request: { method: 'GET', url: 'http://h/{{$guid}}', body: { mode: 'raw', raw: 'x' } },
              },
            ],
          },
          {
            name: 'Faker',
            request: {
              method: 'GET',
              url: 'http://h/?e={{$randomEmail}}&t={{$timestamp}}',
              body: { mode: 'raw', raw: 'x' },
            },
            protocolProfileBehavior: { followRedirects: false, strictSSL: false },
          },
        ],
      },
      'c',
    );
    expect(found.untranslated.map((n) => `${n.at}: ${n.message}`)).to.deep.equal([
      'Faker: dynamic variables {{$randomEmail}} are not filled (Assay has {{$guid}}, {{$randomUUID}}, {{$timestamp}}, {{$isoTimestamp}}, {{$randomInt}}); they are sent as written',
    ]);
    // protocolProfileBehavior (strictSSL, disableBodyPruning) is carried by the request mapping
    // (cli/importers/postman-request.ts): nothing to say here.
    expect(found.warnings).to.deep.equal([]);
  });
});
