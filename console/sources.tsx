/** A reply's sources, numbered as its [n] citations: each its document's title when known, linking to its URL. */
import { safeUrl } from "./markdown.tsx";
import { urlLabel, useTitles } from "./names.ts";

export function Sources({ urls, kb, admin }: { urls: string[]; kb: string | null | undefined; admin: boolean }) {
  const titles = useTitles(kb, urls, admin);
  if (!urls.length) return null;
  return (
    <ol class="sources" aria-label="Sources">
      {urls.map((url) => {
        const href = safeUrl(url);
        const title = titles.get(url);
        const label = title ?? urlLabel(url);
        return (
          <li>
            {href ? (
              <a href={href} target="_blank" rel="noopener noreferrer" title={url}>
                {label}
              </a>
            ) : (
              label
            )}
            {title && <span class="host"> · {urlLabel(url)}</span>}
          </li>
        );
      })}
    </ol>
  );
}
