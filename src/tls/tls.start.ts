import type tls from 'node:tls';
import type { App } from '../app.js';
import type { Log } from '../lib/log.js';
import { startCaPage } from './ca-page.js';
import type { SiteTls } from './site-tls.js';

export interface SiteTlsSpec {
  tls: SiteTls;
  /** GATE_HTTP_CA_PORT; undefined: no plain HTTP at all (0: any free port, for tests). */
  caPort: number | undefined;
}

/**
 * Once the box listens over HTTPS: the certificate watched (reload, renewal) on the app's server, and the CA on plain
 * HTTP (its port, and the closer of both).
 */
export async function serveSiteTls(
  spec: SiteTlsSpec,
  app: App,
  at: { host: string; port: number },
  log: Log,
): Promise<{ close: () => Promise<void>; caPort: number | undefined }> {
  spec.tls.watch(app.server as tls.Server);
  const httpsPort = (app.server.address() as { port: number }).port;
  const page =
    spec.caPort === undefined
      ? undefined
      : await startCaPage({ host: at.host, port: spec.caPort, httpsPort, caPem: spec.tls.caPem, log }).catch(
          (error: unknown) => {
            spec.tls.close();
            const why = (error as NodeJS.ErrnoException).code ?? String(error);
            throw new Error(`GATE_HTTP_CA_PORT: não foi possível escutar em ${at.host}:${spec.caPort} (${why})`);
          },
        );
  return {
    caPort: page?.port,
    close: async () => {
      spec.tls.close();
      await page?.close();
    },
  };
}
