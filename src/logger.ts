/**
 * The process logger (pino, JSON lines on stdout; level from ASSAY_LOG_LEVEL). Every argument of a
 * log call is masked first: a secret value this process has opened (src/secrets/mask.ts
 * `rememberSecrets`) is written `***` (docs/security.md "Secrets").
 */
import pino, { type Logger } from 'pino';
import { maskLogArgument, processMasker } from './secrets/mask';

export function createLogger(level: string, name = 'assay'): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    hooks: {
      logMethod(args, method) {
        const masker = processMasker();
        if (masker.empty) return method.apply(this, args);
        return method.apply(this, args.map((a) => maskLogArgument(masker, a)) as typeof args);
      },
    },
  });
}
