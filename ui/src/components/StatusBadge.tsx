/** A run's or step's status as a coloured dot and a word; running ones pulse. */
import type { ReactNode } from 'react';
import { statusLook } from '../lib/status.ts';

export function StatusBadge({ label, status }: { readonly label: string; readonly status?: number }): ReactNode {
  const look = statusLook(label, status);
  return (
    <span className={`status status-${look.tone}`}>
      <span className="status-dot" aria-hidden="true" />
      {look.text}
    </span>
  );
}
