import type { SwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { errorEnvelopeSchema } from './error-envelope.js';
import type { OperationDocs } from './operation-docs.js';
import { responsesOf, SECURITY_SCHEMES, type RouteFacts } from './openapi.responses.js';
import { routeKey } from './operation-docs.js';

export { errorEnvelopeSchema, SECURITY_SCHEMES };
export { DETAILS, routeKey, WRITE_REFUSED } from './operation-docs.js';
export type { Answer, Example, OperationDocs, Variant } from './operation-docs.js';

// The OpenAPI description at /docs, written next to the routes: each route's `schema.docs` says what it does
// and, by the schema of its answer (the feature's *.answers.ts), what it answers. The same schema object is
// the route's response schema (answer-schemas.ts), so /docs and the answers cannot drift apart.

declare module 'fastify' {
  interface FastifySchema {
    /** The operation as /docs describes it; its `ok.schema` is also the route's 200 response schema. */
    docs?: OperationDocs;
  }
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
  {
    name: 'handheld',
    description: 'O app dos handhelds (docs/handheld.md): pareamento, dados do dia, check-in e fila.',
  },
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
      // `response` is the docs' answer schema (answer-schemas.ts): described below, not by swagger's conversion.
      const {
        docs: own,
        response: _response,
        ...schema
      } = (input.schema ?? {}) as Record<string, unknown> & {
        docs?: OperationDocs;
      };
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
          operationId: operationIdOf(method, out.url),
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

/**
 * A stable operationId from the method and the documented path: `GET /api/integration/combos/{id}/availability`
 * is `getIntegrationCombosByIdAvailability` (the `api` prefix left out, parameters as `By…`).
 */
export function operationIdOf(method: string, url: string): string {
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const words = url
    .split('/')
    .filter((part) => part !== '' && part !== 'api')
    .map((part) => {
      const param = /^[:{](\w+)}?$/.exec(part);
      return param
        ? `By${cap(param[1]!)}`
        : part
            .split(/[^A-Za-z0-9]+/)
            .map(cap)
            .join('');
    });
  return method.toLowerCase() + words.join('');
}
