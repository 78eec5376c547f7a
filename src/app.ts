import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  hasZodFastifySchemaValidationErrors,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { answerSerializerCompiler, responseFromDocs } from './http/answer-schemas.js';
import { answerClientError, HTTP_LIMITS, limitConnections, type HttpLimits } from './http/connections.js';
import { AppError, errorEnvelope } from './http/errors.js';
import { openapiOptions, type OperationDocs } from './http/openapi.js';
import { VERSION } from './version.js';

// The same app runs over http or https (GATE_TLS_CERT): the server, request and reply types stay open.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type App = FastifyInstance<any, any, any, FastifyBaseLogger, ZodTypeProvider>;
/** A feature's routes: registered by buildApp under each path prefix the spec names. */
export type RouteRegistrar = (app: App) => void;

/** A part's routes by prefix group (see AppOptions): what each part the box starts hands it (src/box.ts). */
export interface BoxRoutes {
  v1?: RouteRegistrar[];
  integration?: RouteRegistrar[];
  local?: RouteRegistrar[];
}

/** The routes of several parts, in the order given. */
export function mergeRoutes(...parts: BoxRoutes[]): Required<BoxRoutes> {
  return {
    v1: parts.flatMap((p) => p.v1 ?? []),
    integration: parts.flatMap((p) => p.integration ?? []),
    local: parts.flatMap((p) => p.local ?? []),
  };
}

export interface AppOptions {
  logger: FastifyBaseLogger | false;
  /**
   * Route sets by prefix group: `v1` is served at /api/v1 and /v1, `integration` at /api/integration and
   * /v1/integration.
   */
  v1?: RouteRegistrar[];
  integration?: RouteRegistrar[];
  /** Routes of the box itself (health, local API), served as they are. */
  local?: RouteRegistrar[];
  /** Timeouts and the per-address cap (src/http/connections.ts); HTTP_LIMITS unless a test says otherwise. */
  httpLimits?: HttpLimits;
  /** The OpenAPI docs of routes whose schema carries none, by `METHOD /path` (src/http/openapi.ts). */
  routeDocs?: Record<string, OperationDocs> | undefined;
  /** PEM certificate and key (GATE_TLS_CERT, GATE_TLS_KEY): the box serves HTTPS instead of HTTP. */
  https?: { cert: Buffer; key: Buffer } | undefined;
}

z.config(z.locales.pt());

/** Builds the HTTP app. Never listens: main.ts and the tests decide that. */
export async function buildApp(opts: AppOptions): Promise<App> {
  const app = Fastify({
    loggerInstance: opts.logger === false ? undefined : opts.logger,
    logger: opts.logger === false ? false : undefined,
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is the app's logger itself, not a child made per request: with request lines off the request id
    // has nothing to join, and a pino child per request was a measurable part of each check-in (issue 25).
    childLoggerFactory: (logger: FastifyBaseLogger) => logger,
    // A combo slug may have up to 200 characters (import schema); fastify's default allows 100.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // No automatic HEAD routes: a HEAD on a listing would run its GET and mark everything as synchronised.
    exposeHeadRoutes: false,
    // Errors raised while routing, before any hook: a malformed or overlong URL, in the envelope.
    frameworkErrors: (error: FastifyError, _request: unknown, reply: FastifyReply) => {
      const e =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError('URI_TOO_LONG')
          : new AppError('VALIDATION_ERROR', undefined, 'URL inválida: caracteres codificados incorretamente.');
      reply.status(e.status).send(errorEnvelope(e.toBody()));
    },
    bodyLimit: 1024 * 1024,
    // Node refuses an HTTP/1.1 request without Host with a bare 400 of its own: the box refuses it in the envelope
    // (the onRequest hook below). A TLS handshake is bounded like the headers that follow it (Node's default: 120 s).
    http: { requireHostHeader: false },
    ...(opts.https
      ? {
          https: {
            ...opts.https,
            requireHostHeader: false,
            handshakeTimeout: (opts.httpLimits ?? HTTP_LIMITS).headersMs,
          },
        }
      : {}),
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
  } as never).withTypeProvider<ZodTypeProvider>() as unknown as App;
  limitConnections(app.server, opts.httpLimits ?? HTTP_LIMITS, app.log);

  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
    reply.header('connection', 'close');
    done(new AppError('BAD_REQUEST', undefined, 'Requisição HTTP/1.1 sem o cabeçalho Host.') as never);
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(answerSerializerCompiler);
  // Before swagger's own onRoute: /docs and the serializer read the same schema object.
  app.addHook('onRoute', responseFromDocs(opts.routeDocs));

  // JSON only: any other body (text/plain included) is UNSUPPORTED_MEDIA_TYPE. An empty body is an
  // empty object (so a bare POST gets MISSING_FIELD), bad JSON is INVALID_JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError('INVALID_JSON') as never, undefined);
    }
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    // Refused before its body was read (no key, too large, another media type): do not read the
    // rest of it, however large; close the connection instead.
    if (!request.raw.complete) reply.header('connection', 'close');
    if (error instanceof AppError) return reply.status(error.status).send(errorEnvelope(error.toBody()));
    if (hasZodFastifySchemaValidationErrors(error)) {
      const campos = error.validation.map((v) => ({
        // The body itself (not an object) is `body`, not `body.`.
        campo: `${error.validationContext ?? ''}${v.instancePath.replace(/\//g, '.')}`.replace(/\.$/, ''),
        mensagem: v.message ?? 'inválido',
      }));
      const e = new AppError(
        'VALIDATION_ERROR',
        { campos },
        `Parâmetros inválidos: ${campos.map((c) => `${c.campo}: ${c.mensagem}`).join('; ')}`,
      );
      return reply.status(400).send(errorEnvelope(e.toBody()));
    }
    const mapped = mapFastifyError(error);
    if (mapped) return reply.status(mapped.status).send(errorEnvelope(mapped.toBody()));
    request.log.error({ err: error, url: request.routeOptions.url }, 'unexpected error');
    return reply.status(500).send(errorEnvelope(new AppError('INTERNAL_ERROR').toBody()));
  });

  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send(errorEnvelope(new AppError('NOT_FOUND').toBody())),
  );

  await app.register(swagger, openapiOptions({ version: VERSION, routeDocs: opts.routeDocs }));
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // Each route set at the spec's prefix and at its alias without `api`: the alias is served the same
  // but left out of /docs, so every operation is documented once (the description says the alias exists).
  const mount = async (routes: RouteRegistrar[] | undefined, prefix: string, alias: boolean) =>
    app.register(
      async (scoped) => {
        if (alias) scoped.addHook('onRoute', (route) => void (route.schema = { ...route.schema, hide: true }));
        routes?.forEach((r) => r(scoped as App));
      },
      { prefix },
    );
  for (const [prefix, alias] of [
    ['/api/v1', false],
    ['/v1', true],
  ] as const)
    await mount(opts.v1, prefix, alias);
  for (const [prefix, alias] of [
    ['/api/integration', false],
    ['/v1/integration', true],
  ] as const)
    await mount(opts.integration, prefix, alias);
  await app.register(async (scoped) => opts.local?.forEach((r) => r(scoped as App)));
  return app;
}

function mapFastifyError(error: FastifyError): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_JSON');
  }
  if (error.statusCode === 405) return new AppError('METHOD_NOT_ALLOWED');
  if (error.statusCode === 503) return new AppError('SERVICE_UNAVAILABLE');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new AppError('VALIDATION_ERROR', undefined, `Requisição inválida: ${error.message}`);
  return null;
}
