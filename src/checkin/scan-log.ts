import { codeHash } from '../lib/code-hash.js';
import type { Log } from '../lib/log.js';
import type { ScanNotice } from './checkin.service.js';

// One info line per scan, check-in, reversal or refusal from any door, so `journalctl -u gate -f`
// shows the gate living (issue 13). A QR is a bearer ticket: the line carries the order number, how
// many people moved and a short hash of the code, never the code itself, a name, a CPF or an e-mail.

// Below info (GATE_LOG_LEVEL=warn) nothing of the line is computed: no hash, no fields.
export function scanLogger(log: Log & { isLevelEnabled?(level: string): boolean }) {
  return (n: ScanNotice) => {
    if (log.isLevelEnabled && !log.isLevelEnabled('info')) return;
    const r = n.result;
    const code = r.ok
      ? r.code
      : String(r.details?.qr_code ?? r.details?.combo_qr_code ?? r.details?.numero_pedido ?? '');
    log.info(
      {
        porta: n.source,
        terminal: n.terminal,
        acao: n.action,
        resultado: r.ok ? 'ok' : r.code,
        numero_pedido: r.ok
          ? r.numeroPedido
          : typeof r.details?.numero_pedido === 'string'
            ? r.details.numero_pedido
            : null,
        pessoas: r.ok ? r.people.length : 0,
        codigo_hash: code ? codeHash(code) : null,
        ms: n.ms,
      },
      r.ok ? `${n.action}: liberado` : `${n.action}: recusado (${r.code})`,
    );
  };
}
