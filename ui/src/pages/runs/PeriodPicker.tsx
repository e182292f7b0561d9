/** The period a page looks at, as a row of radio buttons: arrow keys move between them. */
import type { ReactNode } from 'react';
import { PERIODS, type Period } from './period.ts';

export function PeriodPicker({
  value,
  onChange,
  choices = PERIODS.map((p) => p.value),
  name = 'period',
}: {
  readonly value: Period;
  readonly onChange: (period: Period) => void;
  readonly choices?: readonly Period[];
  readonly name?: string;
}): ReactNode {
  return (
    <fieldset className="segmented period-picker">
      <legend className="visually-hidden">Period</legend>
      {PERIODS.filter((p) => choices.includes(p.value)).map((p) => (
        <label key={p.value}>
          <input
            type="radio"
            name={name}
            value={p.value}
            checked={value === p.value}
            onChange={() => {
              onChange(p.value);
            }}
          />
          <span>{p.label}</span>
        </label>
      ))}
    </fieldset>
  );
}
