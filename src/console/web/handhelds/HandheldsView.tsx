import { useState } from 'preact/hooks';
import { api, ApiError, errorMessage } from '../api';
import { formatDateTime } from '../format';
import { ErrorNote } from '../ui/ErrorNote';
import { useLoad } from '../use-load';
import type { HandheldDevice, PairingAnswer } from '../../../handheld/handheld.schemas';

// The supervisor's handhelds (docs/handheld.md, "Parear e acompanhar"): a one-time pairing QR, the devices with
// what each last told, the alarm of a device unseen with movements queued, revocation.

function PairingCard() {
  const [pairing, setPairing] = useState<PairingAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setError(null);
    try {
      setPairing(await api<PairingAnswer>('POST', '/api/console/handhelds/pareamento', {}));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <section class="card" aria-labelledby="pair-title">
      <h2 id="pair-title">Parear handheld</h2>
      <p class="hint">
        Abra a câmera do aparelho no código abaixo (ou o endereço no navegador dele). O código vale uma vez, por 10
        minutos. Abra este console pelo mesmo endereço que os aparelhos usam na rede do parque.
      </p>
      <button type="button" class="btn btn-primary" onClick={() => void start()}>
        {pairing ? 'Gerar outro código' : 'Parear handheld'}
      </button>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {pairing && (
        <figure class="pairing" data-testid="pairing">
          {/* SVG made by the box from its own URL and token: no user text in it. */}
          <div class="pairing-qr" dangerouslySetInnerHTML={{ __html: pairing.qr_svg }} />
          <figcaption>
            <code class="pairing-url">{pairing.url}</code>
            <span class="hint"> · vale até {formatDateTime(pairing.expira_em)}</span>
          </figcaption>
        </figure>
      )}
    </section>
  );
}

function DeviceRow(props: { device: HandheldDevice; onRevoked: () => void }) {
  const d = props.device;
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const revoke = async () => {
    try {
      await api('POST', `/api/console/handhelds/${d.id}/revogar`, {});
      setConfirming(false);
      props.onRevoked();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <li class={`operator ${d.revogado_em ? 'operator-off' : ''}`} data-aparelho={d.nome}>
      <div>
        <strong>{d.nome}</strong>
        {d.alarme && <span class="pill pill-bad">sem contato há mais de 15 min com {d.fila} na fila</span>}
        {d.revogado_em && <span class="pill">revogado em {formatDateTime(d.revogado_em)}</span>}
        <span class="hint">
          {' '}
          · visto {d.visto_em ? formatDateTime(d.visto_em) : 'nunca'} · versão {d.versao_app ?? '—'} · dados de{' '}
          {d.dados_em ? formatDateTime(d.dados_em) : '—'} · fila {d.fila} · decisões no aparelho hoje{' '}
          {d.decisoes_offline_hoje}
        </span>
      </div>
      {!d.revogado_em && !confirming && (
        <button type="button" class="btn" onClick={() => setConfirming(true)} aria-label={`Revogar ${d.nome}`}>
          Revogar
        </button>
      )}
      {confirming && (
        <div class="row" role="group" aria-label={`Confirmar revogação de ${d.nome}`}>
          <span>Revogar {d.nome}? A fila dele fica no aparelho até ser pareado de novo.</span>
          <button type="button" class="btn btn-danger" onClick={() => void revoke()}>
            Confirmar
          </button>
          <button type="button" class="btn" onClick={() => setConfirming(false)}>
            Cancelar
          </button>
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function HandheldsView() {
  const list = useLoad(
    () => api<{ aparelhos: HandheldDevice[]; alarmes: number }>('GET', '/api/console/handhelds'),
    [],
  );
  if (list.error instanceof ApiError && list.error.code === 'NOT_FOUND')
    return (
      <section class="page">
        <h1>Handhelds</h1>
        <p class="card notice">Handhelds desligados nesta caixa (GATE_HANDHELD; veja docs/handheld.md).</p>
      </section>
    );
  const devices = list.data?.aparelhos ?? [];
  return (
    <section class="page" aria-labelledby="handhelds-title">
      <h1 id="handhelds-title">Handhelds</h1>
      <PairingCard />
      <section class="card" aria-labelledby="devices-title">
        <h2 id="devices-title">Aparelhos</h2>
        <ErrorNote error={list.error} />
        {devices.length === 0 && !list.error && <p class="hint">Nenhum aparelho pareado.</p>}
        <ul class="operator-list">
          {devices.map((d) => (
            <DeviceRow key={d.id} device={d} onRevoked={list.reload} />
          ))}
        </ul>
      </section>
    </section>
  );
}
