import { z } from 'zod';
import { errorEnvelopeSchema } from './error-envelope.js';
import { errorCatalogue, type ErrorCode } from './errors.js';
import { DETAILS, type Example, type OperationDocs, type Variant } from './operation-docs.js';

// The responses of an operation at /docs: 200 from the docs' answer schema, and one entry per error status with
// an example of each code the operation can answer with.

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'Chave de API da integração: check-in, vouchers, clientes e as rotas locais (permissão indicada em cada operação).',
  },
  integrationKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Integration-Key',
    description: 'Chave com a permissão integration:combos:read (ou all): rotas de combos.',
  },
  bearerKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A mesma chave de API como `Authorization: Bearer`, para coletores como o Prometheus.',
  },
  consoleSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'gate_console',
    description: 'Sessão do console, criada por POST /api/console/entrar.',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: 'O `csrf` da sessão, exigido em todo método que não seja GET no console.',
  },
  handheldKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Handheld-Key',
    description: 'A chave de um handheld pareado (docs/handheld.md): abre só as rotas /api/handheld/*.',
  },
} as const;
type Scheme = keyof typeof SECURITY_SCHEMES;

/** What a refusal of each credential looks like. */
const CREDENTIAL_ERRORS: Record<Scheme, readonly ErrorCode[]> = {
  apiKey: ['MISSING_API_KEY', 'INVALID_API_KEY', 'PERMISSION_DENIED'],
  bearerKey: ['INVALID_API_KEY', 'PERMISSION_DENIED'],
  integrationKey: ['AUTH_ERROR'],
  consoleSession: ['SESSAO_INVALIDA'],
  csrfToken: ['CSRF_INVALIDO'],
  handheldKey: ['CHAVE_HANDHELD_AUSENTE', 'CHAVE_HANDHELD_INVALIDA', 'DISPOSITIVO_REVOGADO'],
};

export interface RouteFacts {
  method: string;
  security?: readonly Record<string, readonly string[]>[] | undefined;
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
}

/**
 * Codes every operation of a kind can answer with: its credentials' refusals, a body's (JSON parsing,
 * media type, size) on methods that take one, a validation error where there is something to
 * validate, an overlong path parameter, and for all: an unexpected error, or a box shutting down.
 */
export function commonErrors(route: RouteFacts): ErrorCode[] {
  const codes: ErrorCode[] = [];
  for (const alternative of route.security ?? [])
    for (const scheme of Object.keys(alternative)) codes.push(...(CREDENTIAL_ERRORS[scheme as Scheme] ?? []));
  if (['POST', 'PUT', 'PATCH'].includes(route.method))
    codes.push('INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
  if (route.body || route.querystring || route.params) codes.push('VALIDATION_ERROR');
  if (route.params) codes.push('URI_TOO_LONG');
  codes.push('INTERNAL_ERROR', 'SERVICE_UNAVAILABLE');
  return codes;
}

/** The examples of one code for one operation. */
function examplesOf(code: ErrorCode, docs: OperationDocs): [string, Example][] {
  const permissions: Variant[] | undefined =
    code === 'PERMISSION_DENIED' && docs.permissions
      ? [{ details: { permissoes_necessarias: docs.permissions } }]
      : undefined;
  const variants: readonly Variant[] = docs.details?.[code] ?? permissions ?? DETAILS[code] ?? [{}];
  const { message } = errorCatalogue[code];
  return variants.map((v) => [
    v.label ? `${code} (${v.label})` : code,
    {
      summary: v.label ? `${message} (${v.label})` : message,
      value: { success: false, error: { code, message, ...(v.details ? { details: v.details } : {}) } },
    },
  ]);
}

/** JSON Schema (OpenAPI 3.0) of a zod schema's input side: what the box sends is what it would read. */
export const toOpenapiSchema = (schema: z.ZodType) => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'any',
    reused: 'inline',
    cycles: 'ref',
  }) as Record<string, unknown>;
  return json;
};

type EnvelopeJson = { properties: { error: { properties: { code: Record<string, unknown> } } } };
let envelopeBase: EnvelopeJson | undefined;
/**
 * The envelope's JSON Schema with `code` limited to `codes` (the base converted once: /docs is built on the gate's
 * event loop).
 */
function envelopeJson(codes: readonly ErrorCode[]) {
  envelopeBase ??= toOpenapiSchema(errorEnvelopeSchema) as unknown as EnvelopeJson;
  const json = structuredClone(envelopeBase);
  json.properties.error.properties.code.enum = [...codes];
  return json;
}

const headerObjects = (headers: Record<string, string> | undefined) =>
  headers
    ? {
        headers: Object.fromEntries(
          Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
        ),
      }
    : {};

/** The responses of one operation: 200 and one entry per error status, each code with its examples. */
export function responsesOf(docs: OperationDocs, route: RouteFacts) {
  const codes = [...new Set([...commonErrors(route), ...(docs.errors ?? [])])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(errorCatalogue[code].status, [...(byStatus.get(errorCatalogue[code].status) ?? []), code]);

  const { ok } = docs;
  const content: Record<string, unknown> = {};
  if (ok.schema)
    content['application/json'] = {
      schema: toOpenapiSchema(ok.schema),
      ...(ok.examples ? { examples: ok.examples } : {}),
    };
  for (const [type, other] of Object.entries(ok.other ?? {}))
    content[type] = { schema: { type: 'string' }, example: other.example };
  const responses: Record<string, unknown> = {
    200: { description: ok.description, ...headerObjects(ok.headers), content },
  };

  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = list.includes('RATE_LIMITED')
      ? { 'Retry-After': 'Segundos até a janela de requisições recomeçar' }
      : undefined;
    responses[status] = {
      description: list.map((code) => `\`${code}\`: ${errorCatalogue[code].message}`).join('\n\n'),
      ...headerObjects(retry),
      content: {
        'application/json': {
          schema: envelopeJson(list),
          examples: Object.fromEntries(list.flatMap((code) => examplesOf(code, docs))),
        },
      },
    };
  }
  return responses;
}
