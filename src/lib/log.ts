// The one logger type of the box. pino's logger (and fastify's, which is pino's) fits it, so main.ts
// passes `logger.child({ modulo })` and tests pass a plain object that records lines.
// Every line is an object of fields and a message: never a key, a CPF, an e-mail or a full QR code.

export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  /** Chatty detail (frames, retries); a fake may leave it out. */
  debug?(obj: object, msg: string): void;
}

/** A logger that drops everything: a box started without one (tests, benchmarks), and lanes' logs no test reads. */
export const silentLog: Log = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};
