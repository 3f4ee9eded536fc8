/**
 * The audit trail (docs/teams.md "Audit trail"; api/changes.ts, api/routes/audit.ts,
 * src/teams/audit.ts) against a real API on MariaDB: a test case edit recorded with its field diff
 * and the key that made it, secrets masked in an environment change (and never the issued key or
 * a request's secret), a run start and cancel recorded, filters and paging newest first, the JSON
 * Lines export oldest first, `admin` needed, another workspace's events never visible, and the
 * retention sweep deleting old events.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { recordAudit, sweepExpiredAudit } from '../../../src/teams/audit';
import { AuditEvent } from '../../../src/store/entities';

const flow = (url: string) => [
  {
    type: 'api',
    request: { method: 'GET', url },
    assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  },
];

describe('audit trail', function () {
  this.timeout(120_000);
  let app: TestApp;
  let admin: string;
  let otherAdmin: string;

  before(async () => {
    app = await startTestApp();
    [admin, otherAdmin] = await Promise.all([app.issueKey('admin'), app.issueKey('admin', 'audit-other')]);
  });
  after(async () => {
    await app?.stop();
  });

  const audit = async (query = '', key = admin) => {
    const res = await app.request('GET', `/v1/audit${query}`, undefined, { key });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { items: any[]; nextCursor: string | null };
  };

  it('records a test case edit with its field diff and the key that made it', async () => {
    const created = await app.request(
      'POST',
      '/v1/test-cases',
      { name: 'audited', flow: flow('http://127.0.0.1:9/a') },
      { key: admin },
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    const put = await app.request(
      'PUT',
      `/v1/test-cases/${id}`,
      { name: 'audited', description: 'now described', flow: flow('http://127.0.0.1:9/b') },
      { key: admin, headers: { 'x-request-id': 'req-audit-1' } },
    );
    expect(put.status, JSON.stringify(put.body)).to.equal(200);

    const { items } = await audit(`?resourceId=${id}`);
    expect(items.map((e) => e.action)).to.deep.equal(['test-case.update', 'test-case.create']);
    const [update, create] = items;
    expect(update).to.include({
      resourceType: 'test-case',
      resourceId: id,
      resourceName: 'audited',
      request: `PUT /v1/test-cases/${id}`,
    });
    expect(update.actor.type).to.equal('key');
    expect(update.actor.id).to.match(/^key_/);
    expect(update.address).to.be.a('string');
    expect(update.id).to.match(/^aud_/);
    const byPath = Object.fromEntries(update.changes.map((c: any) => [c.path, c]));
    expect(byPath['/description']).to.deep.equal({ path: '/description', before: '', after: 'now described' });
    expect(byPath['/flow/0/request/url']).to.deep.equal({
      path: '/flow/0/request/url',
      before: 'http://127.0.0.1:9/a',
      after: 'http://127.0.0.1:9/b',
    });
    expect(byPath['/version']).to.deep.equal({ path: '/version', before: 1, after: 2 });
    // A create lists the new resource's members.
    expect(create.changes.find((c: any) => c.path === '/name')).to.deep.equal({ path: '/name', after: 'audited' });
    // The actor filter finds the key's events.
    const mine = await audit(`?actorId=${update.actor.id}&resourceType=test-case`);
    expect(mine.items.map((e) => e.id)).to.include.members([update.id, create.id]);
  });

  it('masks secrets in an environment change and never records an issued key or a secret sent', async () => {
    const created = await app.request('POST', '/v1/environments', {
      name: 'audit-env',
      variables: {
        host: 'a.example',
        pin: { secret: true, value: 'first-secret' },
        apiToken: 'plain-token-value',
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const patched = await app.request('PATCH', '/v1/environments/audit-env', {
      variables: {
        pin: { secret: true, value: 'second-secret' },
        host: 'b.example',
        apiToken: 'other-token-value',
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    // A run start whose body carries a secret variable.
    await app.request('POST', '/v1/runners', { name: 'audit-runner', folder: '' });
    const run = await app.request('POST', '/v1/runs', {
      runner: 'audit-runner',
      environment: 'audit-env',
      variables: { pin: { secret: true, value: 'run-secret-1234' } },
    });
    expect(run.status, JSON.stringify(run.body)).to.equal(201);

    const { items } = await audit('?resourceType=environment');
    const update = items.find((e) => e.action === 'environment.update');
    expect(update.changes).to.deep.include({ path: '/variables/host', before: 'a.example', after: 'b.example' });
    const all = JSON.stringify((await audit('?limit=200')).items);
    for (const secret of ['first-secret', 'second-secret', 'plain-token-value', 'other-token-value', 'run-secret-1234'])
      expect(all, secret).not.to.include(secret);
    expect(update.changes.find((c: any) => c.path === '/variables/apiToken')).to.equal(undefined); // both "***": no change shown
    const envCreate = items.find((e) => e.action === 'environment.create');
    expect(envCreate.changes.find((c: any) => c.path === '/variables')).to.deep.equal({
      path: '/variables',
      after: { host: 'a.example', pin: { secret: true, value: '***' }, apiToken: '***' },
    });

    // An issued key never reaches the trail.
    const issued = await app.request('POST', '/v1/keys', { name: 'ci', scope: 'run' }, { key: admin });
    if (issued.status === 201) {
      const text = JSON.stringify((await audit('?action=key.create')).items);
      expect(text).to.include(issued.body.id);
      expect(text).not.to.include(issued.body.key);
    }
  });

  it('records a run start and cancel', async () => {
    const started = await app.request('POST', '/v1/runs', { runner: 'audit-runner', environment: 'audit-env' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const runId = started.body.runId as string;
    const cancelled = await app.request('POST', `/v1/runs/${runId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.be.within(200, 299);
    const { items } = await audit(`?resourceType=run&resourceId=${runId}`);
    expect(items.map((e) => e.action)).to.deep.equal(['run.cancel', 'run.start']);
    expect(items[1]).to.include({ resourceName: 'audit-runner', request: 'POST /v1/runs' });
    expect(items[1].changes).to.deep.include({ path: '/runner', after: 'audit-runner' });
  });

  it('filters, pages newest first, and rejects bad filters naming them', async () => {
    const first = await audit('?limit=2');
    expect(first.items).to.have.length(2);
    expect(first.nextCursor).to.be.a('string');
    const second = await audit(`?limit=2&cursor=${first.nextCursor}`);
    const times = [...first.items, ...second.items].map((e) => `${e.at} ${e.id}`);
    expect(times).to.deep.equal([...times].sort().reverse());
    expect(new Set([...first.items, ...second.items].map((e) => e.id)).size).to.equal(4);

    const everything = (await audit('?limit=200')).items;
    const middle = everything[Math.floor(everything.length / 2)];
    const until = (await audit(`?until=${encodeURIComponent(middle.at)}&limit=200`)).items;
    expect(until.every((e) => e.at < middle.at)).to.equal(true);
    const since = (await audit(`?since=${encodeURIComponent(middle.at)}&limit=200`)).items;
    expect(since.every((e) => e.at >= middle.at)).to.equal(true);
    expect(until.length + since.length).to.equal(everything.length);
    expect((await audit('?action=run.cancel')).items.every((e) => e.action === 'run.cancel')).to.equal(true);

    for (const [query, name] of [
      ['since=yesterday', 'since'],
      ['until=2026-01-01', 'until'],
      ['action=', 'action'],
    ] as const) {
      const res = await app.request('GET', `/v1/audit?${query}`, undefined, { key: admin });
      expect(res.status, query).to.equal(400);
      expect(res.body.code).to.equal('invalid-query');
      expect(res.body.errors[0].field).to.equal(name);
    }
  });

  it('exports JSON Lines oldest first, streamed as an attachment', async () => {
    const res = await fetch(`${app.url}/v1/audit/export`, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).to.equal('attachment; filename="assay-audit-default.jsonl"');
    const lines = (await res.text()).split('\n');
    expect(lines.pop()).to.equal('');
    const events = lines.map((line) => JSON.parse(line));
    const listed = (await audit('?limit=200')).items;
    expect(events.map((e) => e.id)).to.deep.equal(listed.map((e) => e.id).reverse());
    expect(events[0]).to.have.keys([
      'id',
      'at',
      'actor',
      'address',
      'action',
      'resourceType',
      'resourceId',
      'resourceName',
      'request',
      'requestId',
      'changes',
    ]);
  });

  it('needs admin: a read key and a write key get 403', async () => {
    const read = await app.issueKey('read');
    for (const key of [read, app.key]) {
      for (const path of ['/v1/audit', '/v1/audit/export']) {
        const res = await app.request('GET', path, undefined, { key });
        expect(res.status, path).to.equal(403);
        expect(res.body.code).to.equal('forbidden');
      }
    }
  });

  it("never shows another workspace's events", async () => {
    const env = await app.request('POST', '/v1/environments', { name: 'elsewhere' }, { key: otherAdmin });
    expect(env.status).to.equal(201);
    const theirs = (await audit('?limit=200', otherAdmin)).items;
    expect(theirs.map((e) => e.action)).to.deep.equal(['environment.create']);
    const ours = (await audit('?limit=200')).items;
    expect(ours.map((e) => e.id)).not.to.include(theirs[0].id);
    expect(ours.some((e) => e.resourceName === 'elsewhere')).to.equal(false);
    const exported = await (
      await fetch(`${app.url}/v1/audit/export`, { headers: { authorization: `Bearer ${otherAdmin}` } })
    ).text();
    expect(exported.trim().split('\n')).to.have.length(1);
  });

  it('retention deletes events older than the period and keeps the rest', async () => {
    const old = await recordAudit(app.dataSource.manager, {
      workspaceId: app.workspaceId,
      actor: { type: 'system', id: 'system', name: 'test' },
      action: 'test-case.update',
      resourceType: 'test-case',
      at: new Date(Date.now() - 500 * 86_400_000),
    });
    const before = await app.dataSource.getRepository(AuditEvent).count();
    const deleted = await sweepExpiredAudit(app.dataSource, new Date(Date.now() - 400 * 86_400_000));
    expect(deleted).to.equal(1);
    expect(await app.dataSource.getRepository(AuditEvent).findOneBy({ id: old.id })).to.equal(null);
    expect(await app.dataSource.getRepository(AuditEvent).count()).to.equal(before - 1);
  });
});
