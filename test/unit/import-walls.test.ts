/**
 * The walls between the top-level folders (docs/architecture.md "What may import what") hold: each
 * ESLint block of eslint.config.mjs refuses a forbidden import written into a real file of its
 * folder, and lets the allowed form through. The files are linted as text (nothing is written).
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../../..');

/** [file it is written in, import statement, refused?] */
const PROBES: Array<[string, string, boolean]> = [
  // src/ is the library: nothing from the programs above it.
  ['src/config.ts', "import { createApp } from '../api/app';", true],
  ['src/config.ts', "import { main } from '../cli/main';", true],
  ['src/store/data-source.ts', "import { createActivities } from '../../activities';", true],
  // src/domain and src/flow: workflow code; I/O packages and Node built-ins refused, other src/ as types only.
  ['src/domain/types.ts', "import { loadConfig } from '../config';", true],
  ['src/domain/types.ts', "import type { AssayConfig } from '../config';", false],
  ['src/flow/loop.ts', "import { Sandbox } from '../sandbox/sandbox';", true],
  ['src/flow/script-node.ts', "import type { ScriptResult } from '../sandbox/sandbox';", true],
  ['src/domain/node-io.ts', "import type { ScriptResult } from '../sandbox/sandbox';", true],
  ['src/domain/node-io.ts', "import type { AssayConfig } from '../config';", false],
  ['src/flow/loop.ts', "import fs from 'node:fs';", true],
  ['src/flow/loop.ts', "import { DataSource } from 'typeorm';", true],
  ['src/flow/loop.ts', "import { childLists } from './tree';", false],
  // workflows/: the allow-list.
  ['workflows/run.ts', "import { createActivities } from '../activities';", true],
  ['workflows/run.ts', "import { loadConfig } from '../src/config';", true],
  ['workflows/run.ts', "import { FlowInterpreter } from '../src/flow';", false],
  ['workflows/run.ts', "import type { Activities } from '../activities';", false],
  // api/: types only from workflows/; nothing from activities/, bin/ or the CLI.
  ['api/app.ts', "import { runWorkflow } from '../workflows/run';", true],
  ['api/app.ts', "import type { RunLedger } from '../workflows/run-ledger';", false],
  ['api/app.ts', "import { createActivities } from '../activities';", true],
  ['api/app.ts', "import { main } from '../bin/main';", true],
  ['api/app.ts', "import { main } from '../cli/main';", true],
  // activities/: types only from workflows/; nothing from api/, bin/ or the CLI.
  ['activities/runs.ts', "import { RunLedger } from '../workflows/run-ledger';", true],
  ['activities/runs.ts', "import { toProblem } from '../api/errors';", true],
  ['activities/runs.ts', "import { commandConfig } from '../bin/main';", true],
  // cli/: a REST client.
  ['cli/main.ts', "import { openDataSource } from '../src/store/data-source';", true],
  ['cli/main.ts', "import { createRunWorkflowClient } from '../src/temporal/run-workflows';", true],
  ['cli/main.ts', "import { Sandbox } from '../src/sandbox/sandbox';", true],
  ['cli/main.ts', "import { createApp } from '../api/app';", true],
  ['cli/main.ts', "import type { Activities } from '../activities';", true],
  ['cli/main.ts', "import { normaliseFolder } from '../src/domain/folders';", false],
  // console/: types only from src/.
  ['console/src/main.tsx', "import { loadConfig } from '../../src/config';", true],
  ['console/src/main.tsx', "import type { AssayConfig } from '../../src/config';", false],
  // console/: values only from the pure modules shared with the designer (types, tree walk, flow schemas, curl reader).
  ['console/src/main.tsx', "import { NODE_TYPES } from '../../src/domain/types';", false],
  ['console/src/designer/model/doc.ts', "import { childLists } from '../../../../src/flow/tree';", false],
  [
    'console/src/designer/model/doc.ts',
    "import { NODE_FIELDS } from '../../../../src/validation/flow-schemas';",
    false,
  ],
  // The curl reader and the node id rule shared with `assay import curl` (pure); their neighbours in src/importers are not.
  ['console/src/local/curl.ts', "import { parseCurl } from '../../../src/importers/curl';", false],
  ['console/src/designer/ways-in/node.ts', "import { nodeIdFor } from '../../../../src/importers/node-id';", false],
  ['console/src/local/curl.ts', "import { importOther } from '../../../src/importers/other';", true],
  ['console/src/designer/model/doc.ts', "import { validateFlow } from '../../../../src/validation/flow';", true],
  ['console/src/designer/model/doc.ts', "import type { FlowIssue } from '../../../../src/validation/flow';", false],
  ['console/src/designer/model/doc.ts', "import { loadConfig } from '../../../../src/config';", true],
  ['console/src/designer/model/doc.ts', "import { SERVER_NAME_PATTERN } from '../../../../src/flow/servers';", true],
  ['console/src/designer/model/doc.ts', "import { createApp } from '../../../../api/app';", true],
];

describe('import walls between the top-level folders (eslint.config.mjs)', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: ROOT });

  for (const [file, statement, refused] of PROBES) {
    it(`${file}: ${statement} is ${refused ? 'refused' : 'allowed'}`, async () => {
      const [result] = await eslint.lintText(`${statement}\nexport const probe = 1;\n`, {
        filePath: path.join(ROOT, file),
      });
      const walls = result!.messages.filter((m) => /no-restricted-imports$/.test(m.ruleId ?? ''));
      expect(walls.length > 0, walls.map((m) => m.message).join('; ') || 'no wall message').to.equal(refused);
    });
  }
});
