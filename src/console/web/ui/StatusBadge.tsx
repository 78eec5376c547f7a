import { statusLabel } from '../format';

export function StatusBadge({ status, large }: { status: string; large?: boolean }) {
  return <span class={`status status-${status}${large ? ' status-large' : ''}`}>{statusLabel(status)}</span>;
}
