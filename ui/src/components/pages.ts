/**
 * Which page numbers a pager shows: the first, the last, and two either side of the current,
 * with a gap ("…") where numbers are left out. 1 … 4 5 [6] 7 8 … 25.
 */
export type PageItem = number | 'gap';

export function pageItems(current: number, total: number): PageItem[] {
  const shown = new Set<number>([1, total]);
  for (let page = current - 2; page <= current + 2; page += 1) if (page >= 1 && page <= total) shown.add(page);
  const sorted = [...shown].filter((page) => page >= 1).sort((a, b) => a - b);
  const items: PageItem[] = [];
  for (const [index, page] of sorted.entries()) {
    const before = sorted[index - 1];
    // A gap of one page is shown as that page: "…" would take as much room.
    if (before !== undefined && page - before === 2) items.push(before + 1);
    else if (before !== undefined && page - before > 2) items.push('gap');
    items.push(page);
  }
  return items;
}
