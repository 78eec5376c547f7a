import fs from 'node:fs';
import tls from 'node:tls';
import { ConfigError } from '../config.js';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Reads GATE_TLS_CERT and GATE_TLS_KEY at start, before anything is opened: a file that cannot be
 * read, or a certificate and key that do not go together, stop the start with a message naming the
 * variable and the file (never their content).
 */
export function loadTls({ certFile, keyFile }: TlsFiles): { cert: Buffer; key: Buffer } {
  const read = (name: string, file: string) => {
    try {
      return fs.readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ConfigError(
        `${name}: não foi possível ler ${file} (${code}); o arquivo precisa ser legível pelo usuário do serviço`,
      );
    }
  };
  const cert = read('GATE_TLS_CERT', certFile);
  const key = read('GATE_TLS_KEY', keyFile);
  try {
    tls.createSecureContext({ cert, key });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `GATE_TLS_CERT e GATE_TLS_KEY: ${certFile} e ${keyFile} não formam um certificado PEM com sua chave privada (${why})`,
    );
  }
  return { cert, key };
}
