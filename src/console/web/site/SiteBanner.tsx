import { formatDateTime } from '../format';
import type { ModoSite } from '../../console.answers';

/** The local-mode banner every operator sees: this box decides without the other entrances. */
export function SiteBanner({ mode }: { mode: ModoSite | null }) {
  const local = mode?.modo === 'local';
  // Always in the page, so screen readers announce the change when the text appears.
  return (
    <div role="alert" class={local ? 'banner banner-local' : 'banner-empty'}>
      {local && (
        <>
          <strong>Modo local: esta caixa decide sem as outras entradas</strong>
          <span class="banner-detail">
            {mode.motivo ? `${mode.motivo[0]!.toUpperCase()}${mode.motivo.slice(1)}` : 'Sem o hub'} · desde{' '}
            {formatDateTime(mode.desde)} · {mode.pendentes}{' '}
            {mode.pendentes === 1 ? 'movimento a publicar' : 'movimentos a publicar'}
          </span>
        </>
      )}
    </div>
  );
}
