/**
 * The CLI's Node.js version check (cli/node-check.ts; docs/cli.md "Install"): which versions it refuses and
 * the one line it prints for them. Running the built CLI on Node 20, 22 and 24 is in
 * test/integration/cli/node-versions.test.ts.
 */
import { expect } from 'chai';
import { MIN_NODE_MAJOR, nodeVersionProblem } from '../../cli/node-check';

describe('the CLI Node.js version check', () => {
  it('refuses every release before 22 in one line naming the Node it needs, admits 22 and later', () => {
    expect(MIN_NODE_MAJOR).to.equal(22);
    expect(nodeVersionProblem('v20.20.2')).to.equal('assay: needs Node.js 22 or newer (this is v20.20.2)');
    for (const old of ['v12.22.12', 'v18.20.8', 'v21.7.3'])
      expect(nodeVersionProblem(old)).to.equal(`assay: needs Node.js 22 or newer (this is ${old})`);
    for (const ok of ['v22.0.0', 'v22.23.3', 'v24.21.0', 'v26.0.0']) expect(nodeVersionProblem(ok)).to.equal(undefined);
  });
});
