/** The process logger (pino, JSON lines on stdout; level from ASSAY_LOG_LEVEL). */
import pino, { type Logger } from 'pino';

export function createLogger(level: string, name = 'assay'): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
