/**
 * The CLI waits for a big mock import as long as the server may work on it (cli/commands/import-openapi.ts
 * MOCK_IMPORT_TIMEOUT_MS, docs/cli.md): a call given its own timeout outlasts the client's, a call
 * without one does not, and the import's wait is longer than the server's import bound
 * (ASSAY_IMPORT_TIMEOUT_MS), so the server, not the CLI, says when an import took too long.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { AssayClient, UnreachableError } from '../../../cli/client';
import { MOCK_IMPORT_TIMEOUT_MS } from '../../../cli/commands/import-openapi';
import { DEFAULT_IMPORT_TIMEOUT_MS } from '../../../src/mock/import-pool';

describe('CLI: a call the server works on for long', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    // Answers after 600 ms, as an import of a big description answers late.
    server = http.createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"created":[]}');
      }, 600);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("waits with the call's own timeout, and gives up at the client's without one", async () => {
    const client = new AssayClient({ url, apiKey: 'k', timeoutMs: 200, sleep: async () => undefined });
    expect(await client.request('POST', '/v1/designs/import', { body: {}, timeoutMs: 10_000 })).to.deep.equal({
      created: [],
    });
    let error: unknown;
    await client.request('POST', '/v1/designs/import', { body: {} }).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(UnreachableError);
  });

  it("waits for the mock import longer than the server's import bound", () => {
    expect(MOCK_IMPORT_TIMEOUT_MS).to.be.greaterThan(DEFAULT_IMPORT_TIMEOUT_MS);
  });
});
