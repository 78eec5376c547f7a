import type { RouteRegistrar } from '../app.js';
import type { ListingDeps } from '../combos/combos.routes.js';

// TODO(helper): GET /api-clientes
export const clientRoutes = (_deps: ListingDeps): RouteRegistrar => () => {};
