import { expect } from 'chai';
import { checkExpression, evaluateExpression, ExpressionError } from '../../src/domain/expressions';

describe('JSONata evaluation (src/domain/expressions)', () => {
  it('evaluates paths and operators against the input', async () => {
    const input = { response: { status: 200, body: { items: [{ id: 1 }, { id: 2 }] } } };
    expect(await evaluateExpression('response.status = 200 and $count(response.body.items) > 1', input)).to.equal(true);
    expect(await evaluateExpression('response.body.items.id', input)).to.deep.equal([1, 2]);
    expect(await evaluateExpression('response.body.missing', input)).to.equal(undefined);
  });

  it('turns JSONata throws (plain objects) into ExpressionError with the code and expression', async () => {
    let caught: unknown;
    try {
      await evaluateExpression('$undefinedFn(1)', {});
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(ExpressionError);
    expect(caught).to.be.instanceOf(Error);
    expect((caught as ExpressionError).code).to.equal('T1006');
    expect((caught as ExpressionError).message).to.contain('$undefinedFn(1)');
  });

  it('reports parse errors from checkExpression without throwing', () => {
    expect(checkExpression('response.status = 200')).to.equal(null);
    const err = checkExpression('response.status = ');
    expect(err).to.be.instanceOf(ExpressionError);
    expect(err!.code).to.match(/^S0/);
  });

  it('stops a runaway tail-recursive expression with a step budget, deterministically', async () => {
    const runaway = '($f := function($n){ $f($n + 1) }; $f(0))';
    const limits = { maxSteps: 20_000, maxDepth: 500, maxSequence: 1_000_000 };
    const started = Date.now();
    const messages: string[] = [];
    for (let i = 0; i < 2; i++) {
      try {
        await evaluateExpression(runaway, {}, {}, limits);
        expect.fail('should have stopped');
      } catch (err) {
        expect(err).to.be.instanceOf(ExpressionError);
        expect((err as ExpressionError).code).to.equal('ASSAY_BUDGET');
        messages.push((err as Error).message);
      }
    }
    expect(messages[0]).to.equal(messages[1]);
    expect(messages[0]).to.contain('20000 evaluation steps');
    expect(Date.now() - started).to.be.lessThan(5000);
  });

  it('stops at a wall-clock limit outside workflows', async () => {
    const started = Date.now();
    try {
      await evaluateExpression(
        '($f := function($n){ $f($n + 1) }; $f(0))',
        {},
        {},
        { maxSteps: 1e9, maxDepth: 500, maxSequence: 1e6, timeoutMs: 200 },
      );
      expect.fail('should have stopped');
    } catch (err) {
      expect((err as ExpressionError).code).to.equal('D1012');
    }
    expect(Date.now() - started).to.be.lessThan(3000);
  });

  it('stops deep non-tail recursion at the depth limit', async () => {
    const deep = '($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))';
    try {
      await evaluateExpression(deep, {});
      expect.fail('should have stopped');
    } catch (err) {
      expect(err).to.be.instanceOf(ExpressionError);
      expect(['D1011', 'ASSAY_BUDGET']).to.include((err as ExpressionError).code);
    }
  });

  it('keeps separate step counts for concurrent evaluations of the same expression', async () => {
    const expr = '$sum([1..200])';
    const limits = { maxSteps: 50, maxDepth: 500, maxSequence: 1_000_000 };
    const results = await Promise.all(Array.from({ length: 20 }, () => evaluateExpression(expr, {}, {}, limits)));
    expect(results.every((r) => r === 20100)).to.equal(true);
  });

  it('adds the steps of evaluations to a meter, the same count every time', async () => {
    const first = { steps: 0 };
    const second = { steps: 0 };
    await evaluateExpression('$sum([1, 2, 3].($ * 2))', {}, {}, undefined, first);
    await evaluateExpression('$sum([1, 2, 3].($ * 2))', {}, {}, undefined, second);
    expect(first.steps).to.be.greaterThan(5);
    expect(second.steps).to.equal(first.steps);
    await evaluateExpression('1', {}, {}, undefined, second);
    expect(second.steps).to.be.greaterThan(first.steps);
  });
});
