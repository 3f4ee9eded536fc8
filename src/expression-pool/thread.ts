/**
 * Worker-thread side of the expression pool (src/expression-pool/pool.ts): evaluates one JSONata
 * expression per message with {@link ACTIVITY_LIMITS} and posts the value or the error back. The
 * pool terminates the thread when an evaluation outlives its time limit.
 *
 * Message in: `{ id, expression, input }`; out: `{ id, value }` or `{ id, error: { message, code } }`.
 */
import { parentPort } from 'node:worker_threads';
import { ACTIVITY_LIMITS, evaluateExpression, ExpressionError } from '../domain/expressions';

parentPort?.on('message', (message: { id: number; expression: string; input: unknown }) => {
  void (async () => {
    try {
      const value = await evaluateExpression(message.expression, message.input, {}, ACTIVITY_LIMITS);
      parentPort!.postMessage({ id: message.id, value });
    } catch (err) {
      const e = err instanceof ExpressionError ? err : new ExpressionError(String(err), message.expression, 'UNKNOWN');
      parentPort!.postMessage({ id: message.id, error: { message: e.message, code: e.code } });
    }
  })();
});
