import { CANNOT_RECORD } from '../db/storage.js';
import { AppError, errorCatalogue } from '../http/errors.js';
import { StorageUnavailableError } from './result.js';
import { CheckinInputError, type InputField, type RefusalCode } from './rules/index.js';

// The HTTP doors' words for what the check-in service throws (checkin, movement and console routes):
// a request the rules cannot act on, a database that cannot record. Statuses and default messages
// stay in the one error catalogue (src/http/errors.ts); every refusal of the rules has its entry there:
void (errorCatalogue satisfies Record<RefusalCode, { status: number; message: string }>);

/** The request's field as the API names it. */
const WIRE_FIELD: Record<InputField, string> = { code: 'body.qr_code', orderNumber: 'body.numero_pedido' };

const invalid = (campo: string, mensagem: string) =>
  new AppError('VALIDATION_ERROR', { campos: [{ campo, mensagem }] }, `Parâmetros inválidos: ${campo}: ${mensagem}`);

function inputError({ kind, data }: CheckinInputError): AppError {
  const campo = WIRE_FIELD[data.field ?? 'code'];
  switch (kind) {
    case 'AMBIGUOUS_INPUT':
    case 'MISSING_FIELD':
      return new AppError(kind);
    case 'TOO_MANY_CODES':
      return invalid(campo, `no máximo ${data.limit} códigos por requisição (recebidos ${data.got})`);
    case 'CODE_TOO_LONG':
      return data.position === undefined
        ? invalid(campo, `no máximo ${data.limit} caracteres`)
        : invalid(campo, `cada código tem no máximo ${data.limit} caracteres (o ${data.position}º tem ${data.got})`);
  }
}

/** The service's error as the AppError the error handler answers; anything else unchanged. */
export function httpError(err: unknown): unknown {
  if (err instanceof CheckinInputError) return inputError(err);
  if (err instanceof StorageUnavailableError)
    return new AppError('SERVICE_UNAVAILABLE', { motivo: err.reason }, CANNOT_RECORD);
  return err;
}

/** A call of the check-in service from an HTTP route: its errors in the API's envelope. */
export const asHttp = <T>(call: Promise<T>): Promise<T> =>
  call.catch((err: unknown) => {
    throw httpError(err);
  });
