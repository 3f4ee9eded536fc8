/**
 * The script libraries page: `GET /v1/libraries` as a table (global, package,
 * version, kind, size, the URL with a copy button) and how a script uses them (docs/flows.md
 * "Scripts"): built-ins are always there; predefined ones are listed by URL in a script's `libs`.
 */
import { useLoad } from '../hooks';
import { api, type Page } from '../api';
import { bytes } from '../format';
import { CopyButton, PageHeader, ProblemBox } from '../ui/kit';
import { CodeBlock, Loading } from './common';

/** One library of `GET /v1/libraries`. */
export interface Library {
  global: string;
  name: string;
  package: string;
  version: string;
  kind: 'builtin' | 'predefined';
  url: string;
  size: number;
  sha256: string;
}

/** A Script node using a predefined library (by its URL) and a built-in one. */
export function scriptExample(predefined: Library | undefined): string {
  const lib = predefined ?? { url: 'http://localhost:8080/libs/crypto-js@4.2.0.js', global: 'CryptoJS' };
  const node = {
    type: 'script',
    id: 'sign',
    variable: 'signature',
    script: {
      libs: [lib.url],
      code: `async function generateValue() {\n  // built-in: _ (lodash), faker, z, ky, luxon; listed in libs: ${lib.global}\n  const ts = luxon.DateTime.utc().toISO();\n  return ${lib.global === 'CryptoJS' ? 'CryptoJS.SHA256(ts).toString()' : `typeof ${lib.global} + ' ' + ts`};\n}`,
    },
  };
  return JSON.stringify(node, null, 2);
}

/** `/libraries`: the table and the example. */
export function LibrariesPage() {
  const libs = useLoad((signal) => api<Page<Library>>('GET', '/v1/libraries', undefined, { signal }), []);
  const items = libs.data?.items ?? [];
  const example = scriptExample(
    items.find((l) => l.global === 'CryptoJS') ?? items.find((l) => l.kind === 'predefined'),
  );
  return (
    <>
      <PageHeader
        title="Libraries"
        sub="What scripts can use: built-ins are always loaded; predefined ones when a script lists their URL in libs."
      />
      <ProblemBox problem={libs.problem} onRetry={libs.reload} />
      {!libs.data && !libs.problem && <Loading what="libraries" />}
      {libs.data && (
        <table aria-label="Libraries">
          <thead>
            <tr>
              <th>Global</th>
              <th>Package</th>
              <th>Version</th>
              <th>Kind</th>
              <th class="num">Size</th>
              <th>URL (for libs)</th>
            </tr>
          </thead>
          <tbody>
            {items.map((l) => (
              <tr key={l.url}>
                <td>
                  <code>{l.global}</code>
                </td>
                <td>{l.package}</td>
                <td>{l.version}</td>
                <td>
                  <span class="badge">{l.kind}</span>
                </td>
                <td class="num">{bytes(l.size)}</td>
                <td class="res-break">
                  <code>{l.url}</code> <CopyButton text={l.url} label={`Copy URL of ${l.global}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>How to use them in a script</h2>
      <p>
        Built-in globals (<code>_</code>, <code>faker</code>, <code>z</code>, <code>ky</code>, <code>luxon</code>) need
        nothing. A predefined library is loaded when the script lists its URL in <code>libs</code>; any other IIFE/UMD
        URL works too (ES modules go through the bundler first). A Script node that stores a value:
      </p>
      <div class="res-code-head">
        <span class="field-label">Script node (flow JSON)</span>{' '}
        <CopyButton text={example} label="Copy script example" />
      </div>
      <CodeBlock label="Script example">{example}</CodeBlock>
    </>
  );
}
