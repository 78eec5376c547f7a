import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { AppError, errorEnvelope } from '../http/errors.js';
import type { Log } from '../lib/log.js';

// Plain HTTP next to the box's HTTPS (GATE_HTTP_CA_PORT): a handheld that does not trust the site CA yet can only
// reach the box in clear, so this port hands out the CA (certificate only, never a key) and sends everything else to
// the https origin. The fingerprint on the page is what the IT lead compares with the console's.

export interface CaPage {
  readonly port: number;
  close(): Promise<void>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function caPageHtml({ fingerprint, httpsUrl }: { fingerprint: string; httpsUrl: string | null }): string {
  const next = httpsUrl
    ? `<p>Depois, abra <a href="${escapeHtml(httpsUrl)}">${escapeHtml(httpsUrl)}</a>: o navegador deve mostrar o cadeado sem aviso.</p>`
    : '';
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>CA da rede local do parque</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem;line-height:1.5}code{word-break:break-all;font-size:1.05em}a.baixar{display:inline-block;padding:.6rem 1rem;background:#0a5;color:#fff;border-radius:.4rem;text-decoration:none}</style>
</head><body>
<h1>Certificado da rede local do parque</h1>
<p>Este certificado (CA) permite que os aparelhos do parque acessem a caixa por HTTPS. Ele só vale para os endereços da rede do parque e nomes terminados em <code>.lan</code>.</p>
<p><a class="baixar" href="/ca.crt" download="ca-parque.crt">Baixar o certificado (ca.crt)</a></p>
<p>Impressão digital SHA-256 — confira com a mostrada no console da caixa, tela <b>Sincronização</b> (quadro “Certificado da caixa”, só para supervisores), antes de instalar:</p>
<p><code id="impressao">${escapeHtml(fingerprint)}</code></p>
<h2>Instalar no Android</h2>
<ol>
<li>Toque em <b>Baixar o certificado</b> acima (o arquivo vai para Downloads).</li>
<li>Abra <b>Configurações → Segurança</b> (em alguns aparelhos: <b>Segurança e privacidade → Mais configurações de segurança</b>).</li>
<li>Toque em <b>Criptografia e credenciais → Instalar um certificado → Certificado de CA</b>.</li>
<li>Confirme o aviso <b>Instalar assim mesmo</b> e desbloqueie o aparelho (PIN, padrão ou senha).</li>
<li>Escolha o arquivo <b>ca-parque.crt</b> em Downloads.</li>
<li>Confira em <b>Criptografia e credenciais → Credenciais confiáveis → Usuário</b> que o certificado do parque aparece.</li>
</ol>
${next}
<p>O Chrome do Android confia em CAs instaladas pelo usuário; outros apps podem não confiar.</p>
</body></html>
`;
}

/** `host` of a Host header, without its port; IPv6 in brackets stays bracketed. */
function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i.exec(header.trim());
  if (!m) return null;
  const host = m[1]!;
  return host.startsWith('[') || net.isIP(host) !== 0 || /^[a-z0-9.-]+$/i.test(host) ? host : null;
}

export function startCaPage({
  host,
  port,
  httpsPort,
  caPem,
  log,
}: {
  host: string;
  port: number;
  /** The box's HTTPS port: the redirects' target on the same host name. */
  httpsPort: number;
  caPem: () => Buffer;
  log: Log;
}): Promise<CaPage> {
  const send = (res: http.ServerResponse, status: number, type: string, body: string | Buffer, head: boolean) => {
    res.writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(head ? undefined : body);
  };
  const refuse = (res: http.ServerResponse, head: boolean, message: string) =>
    send(
      res,
      404,
      'application/json; charset=utf-8',
      JSON.stringify(errorEnvelope(new AppError('NOT_FOUND', undefined, message).toBody())),
      head,
    );

  const server = http.createServer((req, res) => {
    const head = req.method === 'HEAD';
    const url = new URL(req.url ?? '/', 'http://caixa');
    const target = hostOf(req.headers.host);
    const httpsOrigin = target ? `https://${target}:${httpsPort}` : null;
    if (req.method !== 'GET' && !head)
      return refuse(res, false, 'Esta porta HTTP só entrega a CA da rede local (GET /ca); a API está em HTTPS.');
    const pem = caPem();
    if (url.pathname === '/ca') {
      const fingerprint = new crypto.X509Certificate(pem).fingerprint256;
      return send(
        res,
        200,
        'text/html; charset=utf-8',
        caPageHtml({ fingerprint, httpsUrl: httpsOrigin && `${httpsOrigin}/` }),
        head,
      );
    }
    if (url.pathname === '/ca.crt')
      return send(res, 200, 'application/x-x509-ca-cert', new crypto.X509Certificate(pem).raw, head);
    if (url.pathname === '/ca.pem') return send(res, 200, 'application/x-pem-file', pem, head);
    if (!httpsOrigin)
      return refuse(res, head, 'Requisição sem cabeçalho Host válido: abra /ca para instalar a CA da rede local.');
    res.writeHead(308, { location: `${httpsOrigin}${url.pathname}${url.search}`, 'content-length': 0 });
    res.end();
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as net.AddressInfo;
      log.info({ porta: address.port }, 'tls: CA da rede local em http (/ca)');
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
