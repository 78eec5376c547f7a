import type { Lane } from './gates.answers.js';
import type { GateLaneStatus } from './lanes/gates.js';
import { laneEventRow } from './lanes/lane-events.js';

// A lane as GET /api/local/gates and the console's lanes panel show it (docs/lanes.md).

export function lanePayload(l: GateLaneStatus): Lane {
  const last = l.lastResult ? laneEventRow(l.lastResult) : null;
  return {
    nome: l.name,
    direcao: l.direction,
    area: l.area,
    operador: l.operador,
    sensor_passagem: l.passageSensor,
    falha_segura: l.failSafe,
    rele: {
      driver: l.relay.driver,
      porta: l.relay.path,
      online: l.relay.online,
      passagem_livre: l.relay.freePassage,
      visto_em: l.relay.lastSeenAt,
      problema: l.relay.problem,
      dispositivo: l.relay.device,
    },
    leitores: l.scanners.map((s) => ({
      porta: s.path,
      conectado: s.up,
      desde: s.since,
      reconexoes: s.reconnects,
      ultimo_erro: s.lastError,
    })),
    ultima_leitura: l.lastScan ? { codigo: l.lastScan.code, em: l.lastScan.at } : null,
    ultimo_resultado: last
      ? { tipo: last.kind, em: last.at, codigo: last.code ?? null, detalhes: last.details ?? null }
      : null,
    liberacoes_aguardando_passagem: l.pendingGrants,
    contadores: {
      leituras: l.counters.scans,
      ignoradas: l.counters.ignored,
      liberadas: l.counters.granted,
      negadas: l.counters.denied,
      passagens: l.counters.passed,
      nao_passaram: l.counters.notPassed,
      caronas: l.counters.tailgating,
      erros: l.counters.errors,
    },
  };
}
