import type { SwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorEnvelopeSchema } from './error-envelope.js';
import { errorCatalogue, type ErrorCode } from './errors.js';

export { errorEnvelopeSchema };

// The OpenAPI description at /docs, written next to the routes: each route's `schema.docs` says what
// it does and what it answers. The docs are read only here, into the description; fastify never
// compiles them, so no answer is serialised or checked with them (answers keep their bytes).

declare module 'fastify' {
  interface FastifySchema {
    /** The operation as /docs describes it: never compiled, never used to serialise an answer. */
    docs?: OperationDocs;
  }
}

export interface Example {
  summary: string;
  value: unknown;
}

/** The 200 answer: a zod schema of the JSON body (the input side: the wire shape), examples, other media types. */
export interface Answer {
  description: string;
  schema?: z.ZodType;
  examples?: Record<string, Example>;
  /** Media types other than JSON (CSV, Prometheus text, an event stream), with an example text. */
  other?: Record<string, { example: string }>;
  /** Response headers and what they mean. */
  headers?: Record<string, string>;
}

export interface OperationDocs {
  /** What the operation does, in the repository's own words (no reference outside the repository). */
  description: string;
  ok: Answer;
  /**
   * Codes this operation answers with besides the ones every operation of its kind has (credentials,
   * body, query and path, INTERNAL_ERROR, SERVICE_UNAVAILABLE: see commonErrors).
   */
  errors?: readonly ErrorCode[];
  /** Permissions the key needs: the PERMISSION_DENIED example names them. */
  permissions?: readonly string[];
  /** Example details of a code where this operation's differ from the usual ones (DETAILS). */
  details?: Partial<Record<ErrorCode, readonly Variant[]>>;
  /** The credentials, for a route whose schema does not say them (the console's, documented by a table). */
  security?: Record<string, string[]>[] | undefined;
}

/**
 * One example of an error code: its details (none: code and message only) and, when a code has several, what tells it
 * apart.
 */
export interface Variant {
  label?: string;
  details?: Record<string, unknown>;
}

/** `METHOD /path` of a route, as the tables of docs for routes without their own use. */
export const routeKey = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

const QR = 'a1b2c3d4-0000-4000-8000-000000000001';
const NUMERO = '20261121-0042';

/** Example details per code: the keys the spec gives (part 7) and, where it is silent, docs/api.md's. */
export const DETAILS: Partial<Record<ErrorCode, readonly Variant[]>> = {
  TICKET_NOT_FOUND: [{ details: { qr_code: 'QR-DESCONHECIDO' } }],
  TICKET_ALREADY_USED: [
    { details: { qr_code: QR, checkin_em: '2026-11-21T12:31:07.000Z' } },
    { label: 'combo', details: { combo_qr_code: NUMERO, total_pessoas: 4 } },
    { label: 'pedido', details: { numero_pedido: NUMERO, total_pessoas: 4 } },
    {
      label: 'adicional',
      details: {
        qr_code: 'AD7K2M9Q4X1B3C',
        checkin_em: '2026-11-21T12:40:00.000Z',
        quantidade: 2,
        unidades_utilizadas: 2,
      },
    },
  ],
  TICKET_EXPIRED: [{ details: { data_ingresso: '2026-11-20', data_atual: '2026-11-21', qr_code: QR } }],
  TICKET_NOT_VALID_YET: [{ details: { data_ingresso: '2026-11-22', qr_code: QR } }],
  TICKET_CANCELLED: [{ details: { qr_code: QR, status: 'cancelado' } }],
  ORDER_NOT_FOUND: [{ details: { numero_pedido: NUMERO } }],
  ORDER_NOT_PAID: [{ details: { numero_pedido: NUMERO, status: 'reembolsado' } }],
  NO_PEOPLE: [{ details: { numero_pedido: NUMERO } }],
  ESTORNO_NAO_PERMITIDO: [
    {
      details: {
        qr_code: QR,
        checkin_em: '2026-11-20T14:02:11.000Z',
        data_checkin: '2026-11-20',
        data_atual: '2026-11-21',
      },
    },
  ],
  SEM_CHECKIN: [{ details: { qr_code: QR } }],
  JA_ESTORNADO: [
    {
      details: {
        qr_code: QR,
        estornado_em: '2026-11-21T12:45:00.000Z',
        estorno_operador: 'Joana',
        estorno_terminal: 'catraca-2',
      },
    },
  ],
  TENANT_MISMATCH: [{ details: { qr_code: QR } }],
  RATE_LIMITED: [{ details: { limite: 100, janela_segundos: 60, tentar_novamente_em_segundos: 42 } }],
  VALIDATION_ERROR: [
    { details: { campos: [{ campo: 'querystring.limit', mensagem: 'deve ser um número inteiro decimal' }] } },
  ],
  SERVICE_UNAVAILABLE: [{ label: 'encerrando' }],
  CAPACITY_REACHED: [{ details: { area: 'piscina', capacidade: 120, ocupacao: 120 } }],
  SEM_ENTRADA: [{ details: { qr_code: QR, area: 'parque' } }],
  CREDENCIAIS_INVALIDAS: [{ details: { tentativas_restantes: 4 } }, { label: 'operador desconhecido' }],
  CONTA_BLOQUEADA: [{ details: { bloqueada_ate: '2026-11-21T13:15:00.000Z' } }],
};

/** SERVICE_UNAVAILABLE where the operation writes: also a database that cannot be written (its message says so). */
export const WRITE_REFUSED: readonly Variant[] = [
  { label: 'encerrando' },
  { label: 'sem gravação', details: { motivo: 'SQLITE_FULL' } },
];

/** Security schemes of the box (components.securitySchemes). */
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
} as const;
type Scheme = keyof typeof SECURITY_SCHEMES;

/** What a refusal of each credential looks like. */
const CREDENTIAL_ERRORS: Record<Scheme, readonly ErrorCode[]> = {
  apiKey: ['MISSING_API_KEY', 'INVALID_API_KEY', 'PERMISSION_DENIED'],
  bearerKey: ['INVALID_API_KEY', 'PERMISSION_DENIED'],
  integrationKey: ['AUTH_ERROR'],
  consoleSession: ['SESSAO_INVALIDA'],
  csrfToken: ['CSRF_INVALIDO'],
};

interface RouteFacts {
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

const API_DESCRIPTION = `A API de integração de ingressos servida pela caixa da portaria a partir do seu banco local: check-in e estorno por QR code, vouchers, clientes e combos, com os mesmos payloads, erros e chaves da nuvem. Funciona sem internet; a sincronização com a nuvem acontece em segundo plano.

**Caminhos.** Cada operação da integração é servida em dois prefixos: \`/api/v1/...\` e \`/api/integration/...\`, documentados aqui, e os apelidos sem \`api\`, \`/v1/...\` e \`/v1/integration/...\`, com as mesmas respostas, erros e autenticação. Os apelidos não aparecem nesta descrição para que cada operação conste uma vez.

**Autenticação.** Check-in, vouchers, clientes e as rotas locais (\`/api/local/...\`) usam \`X-API-Key\`; combos usam \`X-Integration-Key\`; o console usa o cookie da sessão e, fora do GET, \`X-CSRF-Token\`. A chave é verificada antes de o corpo ser lido ou validado.

**Respostas.** Sucesso: \`{ "success": true, "data": ... }\`. Erro: \`{ "success": false, "error": { "code", "message", "details"? } }\`, mensagem em português, nunca um stack trace. Cada operação lista seus códigos por status HTTP, com um exemplo por código. Além deles, qualquer requisição pode receber, antes de chegar a uma rota: \`NOT_FOUND\` (404, rota desconhecida), \`METHOD_NOT_ALLOWED\` (405), \`BAD_REQUEST\` (400, HTTP malformado), \`REQUEST_TIMEOUT\` (408), \`HEADERS_TOO_LARGE\` (431), \`URI_TOO_LONG\` (414) e \`VALIDATION_ERROR\` (400) para uma URL com codificação inválida.

As decisões da caixa onde esta API não fixava um comportamento (envelopes das listagens, limites, ordem padrão) estão em docs/api.md e docs/api-listings.md, no repositório.`;

const TAGS = [
  { name: 'check-in', description: 'Check-in e estorno por QR code, combo, lote de códigos ou número do pedido.' },
  { name: 'vouchers', description: 'Pedidos com vouchers e marcação de sincronização por chave.' },
  { name: 'clientes', description: 'Clientes do tenant com marcação de sincronização por chave.' },
  { name: 'combos', description: 'Catálogo de combos e disponibilidade por data.' },
  { name: 'local', description: 'Rotas próprias da caixa: sincronização, eventos, pistas, saídas e ocupação.' },
  { name: 'box', description: 'Saúde e métricas da caixa.' },
  { name: 'console', description: 'A API do console da equipe da portaria (sessão por cookie).' },
];

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/**
 * The swagger options: zod inputs as JSON Schema, `docs` as the description and responses. Responses
 * travel as an `x-` extension of the operation (copied as is) and become its `responses` at the end,
 * so swagger's conversion of response schemas never touches them.
 */
export function openapiOptions({
  version,
  routeDocs = {},
}: {
  version: string;
  routeDocs?: Record<string, OperationDocs>;
}): SwaggerOptions {
  return {
    openapi: {
      info: {
        title: 'Caixa da portaria: API de integração de ingressos (local)',
        version,
        description: API_DESCRIPTION,
      },
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES as never },
    },
    transform: (input: TransformInput) => {
      const { docs: own, ...schema } = (input.schema ?? {}) as Record<string, unknown> & { docs?: OperationDocs };
      const out = jsonSchemaTransform({ ...input, schema } as TransformInput) as {
        schema: Record<string, unknown>;
        url: string;
      };
      const method = String(input.route.method);
      const docs = own ?? routeDocs[routeKey(method, input.url)];
      if (!docs || out.schema.hide) return out;
      const security = (schema.security as RouteFacts['security']) ?? docs.security;
      const facts = { ...(schema as Omit<RouteFacts, 'method'>), method, security };
      return {
        url: out.url,
        schema: {
          ...out.schema,
          ...(security ? { security } : {}),
          description: docs.description,
          [RESPONSES]: responsesOf(docs, facts),
        },
      };
    },
    transformObject: ({ openapiObject }: { openapiObject: Record<string, unknown> }) => {
      for (const operations of Object.values(
        (openapiObject.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>,
      ))
        for (const op of Object.values(operations))
          if (op[RESPONSES]) {
            op.responses = op[RESPONSES];
            delete op[RESPONSES];
          }
      return openapiObject;
    },
  } as SwaggerOptions;
}

const RESPONSES = 'x-gate-responses';
