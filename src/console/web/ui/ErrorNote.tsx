import type { ApiError } from '../api';

/** An API error where it happened, with the server's own words. */
export function ErrorNote({ error, id }: { error: ApiError | string | null; id?: string }) {
  if (!error) return null;
  return (
    <p class="form-error" role="alert" id={id}>
      {typeof error === 'string' ? error : error.message}
    </p>
  );
}
