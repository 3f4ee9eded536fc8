/**
 * The address policy (src/net/address-policy.ts; docs/security.md "Address policy (outgoing requests)"): every spelling of a loopback
 * address, the private switches per kind, allow and deny rules by host, port and CIDR, and the
 * infrastructure and metadata addresses no rule can open. Names resolve through the system
 * resolver (`localhost` only); no connection is made here (test/integration/security/address-policy.test.ts
 * does that).
 */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config';
import {
  AddressNotAllowedError,
  AddressPolicy,
  infrastructureOf,
  parseRule,
  parseRules,
  policyFromConfig,
  type AddressPolicyOptions,
  type EgressKind,
} from '../../src/net/address-policy';

const NONE = { node: 'none', script: 'none', library: 'none', webhook: 'none', bundler: 'none' } as const;

function policy(options: Partial<AddressPolicyOptions> = {}): AddressPolicy {
  return new AddressPolicy({ allow: [], deny: [], privateAccess: { ...NONE }, infrastructure: [], ...options });
}

/** The refusal of `url` for `kind`, or undefined when it is allowed. */
async function refusal(p: AddressPolicy, kind: EgressKind, url: string): Promise<AddressNotAllowedError | undefined> {
  try {
    await p.checkUrl(kind, url);
    return undefined;
  } catch (err) {
    if (err instanceof AddressNotAllowedError) return err;
    throw err;
  }
}

/** Spellings of this machine's loopback and unspecified addresses (names, short, decimal, hex, octal, IPv4-mapped IPv6): every one is loopback to the policy. */
const LOOPBACK_SPELLINGS = [
  '127.0.0.1',
  'localhost',
  '[::1]',
  '2130706433',
  '0x7f000001',
  '127.1',
  '[::ffff:127.0.0.1]',
  '0177.0.0.1',
  '127.0.0.2',
  '[0:0:0:0:0:ffff:7f00:1]',
  '0.0.0.0',
  '[::]',
  'LOCALHOST',
];

describe('address policy (src/net/address-policy)', () => {
  describe('every spelling of loopback', () => {
    for (const spelling of LOOPBACK_SPELLINGS) {
      it(`refuses http://${spelling}:8000/ for webhooks and libraries by default`, async () => {
        const p = policy();
        for (const kind of ['webhook', 'library', 'node', 'script', 'bundler'] as const) {
          const r = await refusal(p, kind, `http://${spelling}:8000/x`);
          expect(r, `${kind} ${spelling}`).to.be.instanceOf(AddressNotAllowedError);
          expect(r!.code).to.equal('ADDRESS_NOT_ALLOWED');
          expect(r!.message).to.match(/loopback/);
        }
      });
    }

    it('allows loopback for a kind whose switch says loopback or all, and only for that kind', async () => {
      const p = policy({ privateAccess: { ...NONE, node: 'loopback', script: 'all' } });
      for (const spelling of LOOPBACK_SPELLINGS) {
        expect(await refusal(p, 'node', `http://${spelling}:8000/`), spelling).to.equal(undefined);
        expect(await refusal(p, 'script', `http://${spelling}:8000/`), spelling).to.equal(undefined);
        expect(await refusal(p, 'webhook', `http://${spelling}:8000/`), spelling).to.be.instanceOf(
          AddressNotAllowedError,
        );
      }
    });

    it('refuses every spelling of an infrastructure endpoint on its port, even when loopback is allowed', async () => {
      const p = policy({
        privateAccess: { node: 'all', script: 'all', library: 'all', webhook: 'all', bundler: 'all' },
        allow: parseRules('127.0.0.0/8,localhost,::1'),
        infrastructure: [{ label: 'the Temporal frontend (TEMPORAL_ADDRESS)', host: '127.0.0.1', port: 7233 }],
      });
      for (const spelling of LOOPBACK_SPELLINGS) {
        const r = await refusal(p, 'node', `http://${spelling}:7233/`);
        expect(r, spelling).to.be.instanceOf(AddressNotAllowedError);
        expect(r!.message).to.contain('the Temporal frontend (TEMPORAL_ADDRESS)');
        expect(await refusal(p, 'node', `http://${spelling}:7234/`), spelling).to.equal(undefined);
      }
    });

    it('matches an infrastructure host given by name (localhost) on every local address', async () => {
      const p = policy({
        privateAccess: { ...NONE, script: 'loopback' },
        infrastructure: [{ label: 'the Temporal Web UI (TEMPORAL_UI_URL)', host: 'localhost', port: 8233 }],
      });
      expect(await refusal(p, 'script', 'http://127.0.0.1:8233/api/v1/namespaces')).to.be.instanceOf(
        AddressNotAllowedError,
      );
      expect(await refusal(p, 'script', 'http://[::1]:8233/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'script', 'http://0.0.0.0:8233/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'script', 'http://127.0.0.1:8234/')).to.equal(undefined);
    });
  });

  describe('ranges', () => {
    it('allows public unicast addresses for every kind', async () => {
      const p = policy();
      for (const url of [
        'http://93.184.215.14/',
        'https://8.8.8.8/',
        'http://[2606:4700::1111]/',
        'http://[::ffff:8.8.8.8]/',
      ]) {
        for (const kind of ['node', 'script', 'library', 'webhook', 'bundler'] as const)
          expect(await refusal(p, kind, url), `${kind} ${url}`).to.equal(undefined);
      }
    });

    it('refuses private, unique local, link-local and carrier-grade NAT unless the switch is all', async () => {
      const urls = [
        'http://10.1.2.3/',
        'http://172.16.0.1/',
        'http://192.168.1.1/',
        'http://[fd12::1]/',
        'http://169.254.1.1/',
        'http://[fe80::1]/',
        'http://100.64.0.1/',
        'http://[::ffff:10.0.0.1]/',
      ];
      const loopbackOnly = policy({ privateAccess: { ...NONE, webhook: 'loopback' } });
      const all = policy({ privateAccess: { ...NONE, webhook: 'all' } });
      for (const url of urls) {
        const r = await refusal(loopbackOnly, 'webhook', url);
        expect(r, url).to.be.instanceOf(AddressNotAllowedError);
        expect(r!.message).to.contain('ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS');
        expect(await refusal(all, 'webhook', url), url).to.equal(undefined);
      }
    });

    it('refuses multicast, broadcast, reserved and IPv4-embedding IPv6 ranges whatever the switch', async () => {
      const p = policy({
        privateAccess: { node: 'all', script: 'all', library: 'all', webhook: 'all', bundler: 'all' },
      });
      for (const url of [
        'http://224.0.0.1/',
        'http://255.255.255.255/',
        'http://240.0.0.1/',
        'http://[2002:7f00:1::]/',
        'http://[64:ff9b::7f00:1]/',
        'http://[ff02::1]/',
      ]) {
        expect(await refusal(p, 'node', url), url).to.be.instanceOf(AddressNotAllowedError);
      }
    });

    it('never reaches cloud metadata, whatever the allow list and switches say', async () => {
      const p = policy({
        allow: parseRules('169.254.0.0/16,[fd00::/8],100.64.0.0/10,169.254.169.254:80'),
        privateAccess: { node: 'all', script: 'all', library: 'all', webhook: 'all', bundler: 'all' },
      });
      for (const url of [
        'http://169.254.169.254/latest/meta-data/',
        'http://[fd00:ec2::254]/',
        'http://[::ffff:169.254.169.254]/',
        'http://2852039166/',
        'http://169.254.170.2/v2/credentials',
        'http://100.100.100.200/',
      ]) {
        const r = await refusal(p, 'node', url);
        expect(r, url).to.be.instanceOf(AddressNotAllowedError);
        expect(r!.message).to.contain('metadata');
      }
      expect(await refusal(p, 'node', 'http://169.254.1.1/')).to.equal(undefined);
    });
  });

  describe('allow and deny rules', () => {
    it('an allow CIDR opens a private range for every kind; with a port, only that port', async () => {
      const p = policy({ allow: parseRules('10.0.0.0/8:443, [fd00::/8]:8443') });
      expect(await refusal(p, 'webhook', 'https://10.9.8.7/')).to.equal(undefined);
      expect(await refusal(p, 'library', 'https://10.9.8.7:443/')).to.equal(undefined);
      expect(await refusal(p, 'webhook', 'http://10.9.8.7/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'node', 'https://[fd00::5]:8443/')).to.equal(undefined);
      expect(await refusal(p, 'node', 'https://[fd00::5]:8444/')).to.be.instanceOf(AddressNotAllowedError);
    });

    it('a deny rule refuses before the allow list and the public default; by CIDR, CIDR:port or host', async () => {
      const p = policy({
        allow: parseRules('127.0.0.0/8'),
        deny: parseRules('127.0.0.0/8:9000,8.8.8.0/24,*.blocked.example,localhost:9001'),
      });
      expect(await refusal(p, 'webhook', 'http://127.0.0.1:8999/')).to.equal(undefined);
      const r = await refusal(p, 'webhook', 'http://127.0.0.1:9000/');
      expect(r).to.be.instanceOf(AddressNotAllowedError);
      expect(r!.message).to.contain('deny rule "127.0.0.0/8:9000" (ASSAY_EGRESS_DENY)');
      expect(r!.message).to.contain('127.0.0.1:9000');
      expect(await refusal(p, 'webhook', 'http://2130706433:9000/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'node', 'http://8.8.8.8/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'node', 'http://localhost:9001/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'node', 'http://localhost:9002/')).to.equal(undefined);
    });

    it('a host rule matches the name as written, wherever it points', async () => {
      const p = policy({ allow: parseRules('localhost:8000') });
      expect(await refusal(p, 'library', 'http://localhost:8000/lib.js')).to.equal(undefined);
      expect(await refusal(p, 'library', 'http://localhost:8001/lib.js')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'library', 'http://127.0.0.1:8000/lib.js')).to.be.instanceOf(AddressNotAllowedError);
    });

    it('per-kind allow rules (the bundler hosts) apply to that kind only', async () => {
      const p = policy({ allowFor: { bundler: parseRules('127.0.0.1:4873') } });
      expect(await refusal(p, 'bundler', 'http://127.0.0.1:4873/')).to.equal(undefined);
      expect(await refusal(p, 'library', 'http://127.0.0.1:4873/')).to.be.instanceOf(AddressNotAllowedError);
    });

    it('ASSAY_BUNDLER_ALLOW_HOSTS entries are hosts as written: 127.0.0.1:4873 does not open localhost:4873', async () => {
      const config = loadConfig({ ASSAY_BUNDLER_ALLOW_HOSTS: '127.0.0.1:4873,[::1]:4874' });
      const p = policyFromConfig(config);
      expect(await refusal(p, 'bundler', 'http://127.0.0.1:4873/')).to.equal(undefined);
      expect(await refusal(p, 'bundler', 'http://[::1]:4874/')).to.equal(undefined);
      expect(await refusal(p, 'bundler', 'http://localhost:4873/')).to.be.instanceOf(AddressNotAllowedError);
      expect(await refusal(p, 'bundler', 'http://127.0.0.1:4875/')).to.be.instanceOf(AddressNotAllowedError);
      await p.close();
    });

    it('parses every rule form and names a malformed one', () => {
      expect(parseRule('Mirror.Internal')).to.include({ host: 'mirror.internal', port: undefined });
      expect(parseRule('mirror.internal:8080')).to.include({ host: 'mirror.internal', port: 8080 });
      expect(parseRule('*.corp.example')).to.include({ host: '*.corp.example' });
      expect(parseRule('10.0.0.0/8').cidr![1]).to.equal(8);
      expect(parseRule('10.0.0.0/8:443')).to.include({ port: 443 });
      expect(parseRule('fd00::/8').cidr![1]).to.equal(8);
      expect(parseRule('[fd00::/8]:443')).to.include({ port: 443 });
      expect(parseRule('[::1]:9000').cidr![1]).to.equal(128);
      expect(parseRule('192.168.0.1').cidr![1]).to.equal(32);
      for (const bad of ['http://x', '10.0.0.0/33', 'host:0', 'host:70000', '[::1', '[::1]x', 'a b', '-x.example']) {
        expect(() => parseRule(bad), bad).to.throw(Error);
      }
    });
  });

  describe('configuration', () => {
    it('reads ASSAY_EGRESS_ALLOW, ASSAY_EGRESS_DENY and the per-kind switches, refusing by default', () => {
      const defaults = loadConfig({}).egress;
      expect(defaults.privateAccess).to.deep.equal({ node: 'none', script: 'none', library: 'none', webhook: 'none' });
      expect(defaults.allow).to.deep.equal([]);
      const set = loadConfig({
        ASSAY_EGRESS_ALLOW: '10.0.0.0/8:443,mirror.internal',
        ASSAY_EGRESS_DENY: '10.0.0.13',
        ASSAY_EGRESS_PRIVATE_FOR_NODES: 'true',
        ASSAY_EGRESS_PRIVATE_FOR_SCRIPTS: 'loopback',
        ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS: 'false',
      }).egress;
      expect(set.allow.map((r) => r.text)).to.deep.equal(['10.0.0.0/8:443', 'mirror.internal']);
      expect(set.deny.map((r) => r.text)).to.deep.equal(['10.0.0.13']);
      expect(set.privateAccess).to.deep.equal({ node: 'all', script: 'loopback', library: 'none', webhook: 'none' });
      expect(() => loadConfig({ ASSAY_EGRESS_ALLOW: '10.0.0.0/99' })).to.throw(ConfigError, 'ASSAY_EGRESS_ALLOW');
      expect(() => loadConfig({ ASSAY_EGRESS_DENY: 'http://x' })).to.throw(ConfigError, 'ASSAY_EGRESS_DENY');
      expect(() => loadConfig({ ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES: 'maybe' })).to.throw(
        ConfigError,
        'ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES',
      );
    });

    it('names the infrastructure of a configuration: Temporal, its Web UI, the database, the API and the bundler', () => {
      const config = loadConfig({
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_UI_URL: 'http://127.0.0.1:8233/',
        DATABASE_URL: 'mysql://root@db.internal/assay',
        ASSAY_PORT: '8080',
        ASSAY_BUNDLER_PORT: '0',
      });
      expect(infrastructureOf(config).map((e) => `${e.host}:${e.port}`)).to.deep.equal([
        'temporal:7233',
        '127.0.0.1:8233',
        'db.internal:3306',
        '127.0.0.1:8080',
      ]);
    });

    it('keeps the infrastructure refused when the operator allows all of loopback', async () => {
      const config = loadConfig({
        ASSAY_EGRESS_ALLOW: '127.0.0.0/8',
        ASSAY_EGRESS_PRIVATE_FOR_NODES: 'true',
        TEMPORAL_UI_URL: 'http://localhost:18233',
        DATABASE_URL: 'mysql://root@127.0.0.1:3306/',
      });
      const p = policyFromConfig(config);
      for (const port of [7233, 18233, 3306, 8080, 8081])
        expect(await refusal(p, 'node', `http://127.1:${port}/`), String(port)).to.be.instanceOf(
          AddressNotAllowedError,
        );
      expect(await refusal(p, 'node', 'http://127.1:8082/')).to.equal(undefined);
      await p.close();
    });
  });
});
