/**
 * A table cell that names its column once the table reflows into one card per row (narrow
 * screens, style.css): the name is aria-hidden, as the column header already names the cell for
 * assistive technology, and hidden on wide screens.
 */
import type { ComponentChildren } from "preact";

export function Cell({ label, children, class: cls }: { label: string; children?: ComponentChildren; class?: string }) {
  return (
    <td class={cls}>
      <span class="cell-label" aria-hidden="true">
        {label}
      </span>
      {children}
    </td>
  );
}

/** A date-time in UTC, to the minute ("—" for none). */
export const when = (iso: string | null | undefined) =>
  iso ? `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC` : "—";
