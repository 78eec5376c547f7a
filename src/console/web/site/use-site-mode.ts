import { api } from '../api';
import { useLiveEvent } from '../live';
import type { ModoSite } from '../../console.answers';
import { useLoad } from '../use-load';

/** The site's mode for the banner and the menu: fetched once (and after each reconnection), then kept live. */
export function useSiteMode(): ModoSite | null {
  const mode = useLoad(() => api<ModoSite>('GET', '/api/console/site/modo'), []);
  useLiveEvent<ModoSite>('modo_site', (m) => {
    if (m) mode.setData(() => m);
  });
  return mode.data;
}
