import { errorCatalogue } from './error-catalogue.js';

export { errorCatalogue };

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** A refusal or client mistake with a code of the catalogue; never carries a stack to the wire. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly details?: Record<string, unknown>,
    message?: string,
  ) {
    // Refusals are routine at a gate and never show a stack: do not pay for capturing one.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? errorCatalogue[code].message);
    Error.stackTraceLimit = limit;
    this.status = errorCatalogue[code].status;
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export const errorEnvelope = (error: ErrorBody) => ({ success: false as const, error });
