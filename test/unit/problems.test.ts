/**
 * Problems carry the headers of their answer (api/problem.ts), thrown errors are mapped to
 * problems in one place (api/errors.ts `toProblem`), and the catalogue builds the documents
 * (src/problems.ts).
 */
import { expect } from 'chai';
import { createLogger } from '../../src/logger';
import { PROBLEMS, problemDocument } from '../../src/problems';
import { Problem } from '../../api/problem';
import { toProblem } from '../../api/errors';
import { TemporalUnavailableError } from '../../src/temporal/run-workflows';
import { refuseDisabledDeployment } from '../../api/routes/incoming-webhooks';
import type { AppContext } from '../../api/context';

const logger = createLogger('silent', 'problems-test');
const ctx = { state: { requestId: 'r1' }, method: 'GET', path: '/v1/x' } as unknown as AppContext;

describe('problems', () => {
  it('builds the RFC 9457 document from the catalogue', () => {
    expect(problemDocument('not-found', 'No such run.', { runId: 'run_1' }, 'urn:x')).to.deep.equal({
      type: '/problems/not-found',
      title: PROBLEMS['not-found'].title,
      status: 404,
      detail: 'No such run.',
      code: 'not-found',
      instance: 'urn:x',
      runId: 'run_1',
    });
  });

  it('carries the headers of its answer: WWW-Authenticate on 401, Retry-After from retryAfter, and those given', () => {
    expect(new Problem('unauthorized', 'no key').headers).to.deep.equal({ 'WWW-Authenticate': 'Bearer realm="assay"' });
    const limited = new Problem('rate-limited', 'slow down', { retryAfter: 7 });
    expect(limited.headers).to.deep.equal({ 'Retry-After': '7' });
    expect(limited.toJSON()).to.include({ retryAfter: 7, status: 429 });
    expect(
      new Problem('method-not-allowed', 'no', { allowed: ['GET'] }, { headers: { Allow: 'GET' } }).headers,
    ).to.deep.equal({ Allow: 'GET' });
    expect(new Problem('not-found', 'gone').headers).to.deep.equal({});
  });

  it('maps thrown errors once: problems as they are, database and Temporal outages to 503, the rest to 500', () => {
    const own = new Problem('forbidden', 'no');
    expect(toProblem(own, ctx, logger)).to.equal(own);
    const db = toProblem(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), ctx, logger);
    expect([db.code, db.headers['Retry-After']]).to.deep.equal(['database-unavailable', '5']);
    const start = toProblem(new TemporalUnavailableError('down', { operation: 'start', runId: 'run_1' }), ctx, logger);
    expect(start.code).to.equal('temporal-unavailable');
    expect(start.extras).to.deep.equal({ runId: 'run_1' });
    expect(start.detail).to.equal('Run run_1 could not be started: the workflow service is unavailable. Retry later.');
    const cancel = toProblem(
      new TemporalUnavailableError('down', { operation: 'cancel', runId: 'run_1' }),
      ctx,
      logger,
    );
    expect(cancel.detail).to.equal('The workflow service is unavailable; the run could not be cancelled. Retry later.');
    expect(toProblem(Object.assign(new Error('too big'), { status: 413 }), ctx, logger).code).to.equal(
      'payload-too-large',
    );
    expect(toProblem(new Error('bug'), ctx, logger).code).to.equal('internal');
  });

  it('a webhook step works alone: a disabled deployment is refused with 409, an enabled one goes on', async () => {
    const call = (enabled: boolean) => ({ state: { deployment: { id: 'dep_1', name: 'nightly', enabled } } }) as never;
    let went = false;
    await refuseDisabledDeployment(call(true), async () => void (went = true));
    expect(went).to.equal(true);
    try {
      await refuseDisabledDeployment(call(false), async () => undefined);
      expect.fail('should refuse');
    } catch (err) {
      expect((err as Problem).code).to.equal('deployment-disabled');
    }
  });
});
