import { errorCatalogue } from '../../http/error-catalogue.js';

// The words of a result decided on the device: a refusal says what the box says for it, from the box's one
// catalogue (online, the box's answer brings the same message). Only what the device alone can meet has words of
// its own here.
const DEVICE_WORDS: Record<string, string> = {
  ok: 'Liberado',
  // What the device cannot know: an order with nothing for today is not in its day data (docs/handheld.md).
  TICKET_NOT_FOUND: 'Ingresso não está nos dados de hoje.',
  SEM_DADOS: 'Sem dados de hoje: conecte ao box',
  CODIGO_LONGO: 'Código longo demais: não é um ingresso',
  REVOGADO: 'Aparelho revogado: pareie de novo',
};

const catalogued = (code: string): string | undefined =>
  Object.hasOwn(errorCatalogue, code) ? errorCatalogue[code as keyof typeof errorCatalogue].message : undefined;

export const wordFor = (resultado: string): string =>
  DEVICE_WORDS[resultado] ?? catalogued(resultado) ?? `Recusado (${resultado})`;
