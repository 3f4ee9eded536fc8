/**
 * The libraries of the script sandbox (spec "Scripts and libraries", exact versions):
 *
 * - built-in, always loaded: `_` lodash 4.17.21, `faker` @faker-js/faker 9.8.0 (English locale
 *   only: 0.5 MB instead of 3.9 MB), `z` zod 4.1.12, `ky` ky 1.7.3, `luxon` luxon 3.7.2;
 * - predefined, loaded when a script lists their URL in `libs`: `CryptoJS` crypto-js 4.2.0,
 *   `dayjs` 1.11.12, `axios` 1.7.4, `moment` 2.30.1, `validator` 13.12.0, `turf` @turf/turf 7.2.0,
 *   `numeral` 2.0.6;
 * - Assay's own `postman` 1.0.0 (global `AssayPostman`): the `pm` object of scripts imported from
 *   Postman (src/sandbox/postman/pm.js, bundled with chai 6.3.0 and ajv 6, as postman-sandbox bundles it).
 *
 * They come from installed npm packages, never from the internet: UMD builds are copied, packages
 * without one are bundled to an IIFE by esbuild at build time (src/sandbox/build-libraries.ts),
 * into `dist/sandbox-libs/<name>@<version>.js`. Assay serves each at `/libs/<name>@<version>.js`
 * and lists them at `GET /v1/libraries`.
 */
import fs from 'node:fs';
import path from 'node:path';

export type LibraryKind = 'builtin' | 'predefined';

export interface LibraryDefinition {
  /** The global the library defines. */
  global: string;
  /** Short name, used in the file name and URL. */
  name: string;
  /** npm package it comes from. */
  package: string;
  version: string;
  /** The installed package version the build checks, when it differs from `version` (a library of Assay's own). */
  packageVersion?: string;
  kind: LibraryKind;
  /** A UMD/IIFE file inside the package, copied as is. */
  file?: string;
  /** Or an ES module entry bundled to an IIFE that assigns the global. */
  bundle?: string;
  /**
   * A realm of its own: a script listing this library runs in a separate context of its test case
   * (src/sandbox/context-pool.ts), so what the library changes in the built-in objects stays
   * there. The Postman library uses it: Postman's Sugar.js prototype methods (`String#has`, …)
   * exist for imported Postman scripts and for no other script.
   */
  realm?: string;
}

export const LIBRARIES: readonly LibraryDefinition[] = [
  { global: '_', name: 'lodash', package: 'lodash', version: '4.17.21', kind: 'builtin', file: 'lodash.min.js' },
  {
    global: 'faker',
    name: 'faker',
    package: '@faker-js/faker',
    version: '9.8.0',
    kind: 'builtin',
    bundle: "import { faker } from '@faker-js/faker/locale/en'; globalThis.faker = faker;",
  },
  {
    global: 'z',
    name: 'zod',
    package: 'zod',
    version: '4.1.12',
    kind: 'builtin',
    bundle: "import * as z from 'zod'; globalThis.z = z;",
  },
  {
    global: 'ky',
    name: 'ky',
    package: 'ky',
    version: '1.7.3',
    kind: 'builtin',
    bundle: "import ky from 'ky'; globalThis.ky = ky;",
  },
  {
    global: 'luxon',
    name: 'luxon',
    package: 'luxon',
    version: '3.7.2',
    kind: 'builtin',
    file: 'build/global/luxon.min.js',
  },
  {
    global: 'CryptoJS',
    name: 'crypto-js',
    package: 'crypto-js',
    version: '4.2.0',
    kind: 'predefined',
    file: 'crypto-js.js',
  },
  { global: 'dayjs', name: 'dayjs', package: 'dayjs', version: '1.11.12', kind: 'predefined', file: 'dayjs.min.js' },
  { global: 'axios', name: 'axios', package: 'axios', version: '1.7.4', kind: 'predefined', file: 'dist/axios.min.js' },
  {
    global: 'moment',
    name: 'moment',
    package: 'moment',
    version: '2.30.1',
    kind: 'predefined',
    file: 'min/moment.min.js',
  },
  {
    global: 'validator',
    name: 'validator',
    package: 'validator',
    version: '13.12.0',
    kind: 'predefined',
    file: 'validator.min.js',
  },
  { global: 'turf', name: 'turf', package: '@turf/turf', version: '7.2.0', kind: 'predefined', file: 'turf.min.js' },
  {
    global: 'numeral',
    name: 'numeral',
    package: 'numeral',
    version: '2.0.6',
    kind: 'predefined',
    file: 'min/numeral.min.js',
  },
  // Assay's own Postman compatibility layer (`pm`, chai's expect, ajv), for imported collections: docs/import-postman.md.
  {
    global: 'AssayPostman',
    name: 'postman',
    package: 'chai',
    version: '1.0.0',
    packageVersion: '6.3.0',
    kind: 'predefined',
    bundle: "import './src/sandbox/postman/pm.js';",
    realm: 'postman',
  },
];

/** Folder of the built library files (`dist/sandbox-libs`). */
export const LIBS_DIR = path.resolve(__dirname, '../../sandbox-libs');

/** File name of a library: `<name>@<version>.js`. */
export function libraryFileName(lib: Pick<LibraryDefinition, 'name' | 'version'>): string {
  return `${lib.name}@${lib.version}.js`;
}

/** One entry of `dist/sandbox-libs/manifest.json`. */
export interface BuiltLibrary extends LibraryDefinition {
  fileName: string;
  size: number;
  sha256: string;
}

export interface LibraryManifest {
  runtime: { fileName: string; size: number; sha256: string };
  libraries: BuiltLibrary[];
}

let manifest: LibraryManifest | undefined;

/** The manifest written by the build. @throws when `npm run build` has not produced it. */
export function libraryManifest(): LibraryManifest {
  if (!manifest) {
    const file = path.join(LIBS_DIR, 'manifest.json');
    if (!fs.existsSync(file))
      throw new Error(`Sandbox libraries are not built (${file} is missing): run \`npm run build\``);
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as LibraryManifest;
  }
  return manifest;
}

const sources = new Map<string, string>();

/** The source text of a built file (cached). */
export function librarySource(fileName: string): string {
  let text = sources.get(fileName);
  if (text === undefined) {
    text = fs.readFileSync(path.join(LIBS_DIR, fileName), 'utf8');
    sources.set(fileName, text);
  }
  return text;
}

/** The realm a script with these `libs` runs in: the first realm one of Assay's own libraries asks for, else none. */
export function realmOf(libs: readonly string[] | undefined): string | undefined {
  for (const entry of libs ?? []) {
    const realm = ownLibrary(entry)?.realm;
    if (realm) return realm;
  }
  return undefined;
}

/**
 * The predefined or built-in library a `libs` entry names, when it is one of Assay's own URLs
 * (`…/libs/<name>@<version>.js`, any host) or a bare `<name>@<version>`; undefined otherwise.
 */
export function ownLibrary(entry: string): BuiltLibrary | undefined {
  let fileName = entry;
  try {
    const url = new URL(entry);
    const m = /\/libs\/([^/]+\.js)$/.exec(url.pathname);
    if (!m) return undefined;
    fileName = decodeURIComponent(m[1]!);
  } catch {
    if (!fileName.endsWith('.js')) fileName = `${fileName}.js`;
  }
  return libraryManifest().libraries.find((l) => l.fileName === fileName);
}
