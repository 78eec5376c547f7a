import { formatDate, formatTimeSeconds } from '../format';
import type { Leitura } from '../../console.answers';

export function ScanResult({ leitura }: { leitura: Leitura }) {
  const granted = leitura.resultado === 'liberado';
  const names = leitura.pessoas.map((p) => p.nome).filter(Boolean);
  return (
    <div class={`scan-result ${granted ? 'granted' : 'refused'}`} data-resultado={leitura.resultado}>
      <p class="scan-title">{leitura.titulo}</p>
      {!granted && <p class="scan-message">{leitura.mensagem}</p>}
      {names.length > 0 && <p class="scan-names">{names.join(', ')}</p>}
      {leitura.lote && (
        <p class="scan-ticket">
          {leitura.lote.nome_ingresso} · {leitura.lote.nome_lote}
          {leitura.lote.data_uso ? ` · ${formatDate(leitura.lote.data_uso)}` : ''}
        </p>
      )}
      <p class="scan-meta">
        {leitura.numero_pedido ? `Pedido ${leitura.numero_pedido} · ` : ''}
        Código {leitura.codigo} · {formatTimeSeconds(leitura.em)}
      </p>
    </div>
  );
}
