/**
 * Markdown to Preact elements, never to an HTML string: text from documents and models is always
 * a text node, so `<script>`, `<img onerror>` and friends render as the characters they are. Links
 * keep only http(s) URLs; `[n]` becomes a link to the reply's n-th source.
 */
import type { ComponentChildren } from "preact";

export function safeUrl(url: string): string | undefined {
  try {
    const u = new URL(url, location.origin);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

// Underscore emphasis only between word boundaries, as CommonMark: `snake_case_names` stay as written.
const INLINE =
  /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|(?<!\w)_[^_\s][^_]*_(?!\w))|(\[[^\]]+\]\([^)\s]+\))|(\[\d{1,3}\])/;

function inline(text: string, sources: string[]): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let rest = text;
  for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
    if (m.index > 0) out.push(rest.slice(0, m.index));
    const [all] = m;
    if (m[1]) out.push(<code>{all.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong>{inline(all.slice(2, -2), sources)}</strong>);
    else if (m[3]) out.push(<em>{inline(all.slice(1, -1), sources)}</em>);
    else if (m[4]) {
      const close = all.indexOf("](");
      const href = safeUrl(all.slice(close + 2, -1));
      const label = inline(all.slice(1, close), sources);
      out.push(
        href ? (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {label}
          </a>
        ) : (
          <span>{label}</span>
        ),
      );
    } else {
      const n = Number(all.slice(1, -1));
      const href = sources[n - 1] && safeUrl(sources[n - 1]!);
      out.push(
        href ? (
          <sup>
            <a class="cite" href={href} target="_blank" rel="noopener noreferrer" aria-label={`source ${n}`}>
              [{n}]
            </a>
          </sup>
        ) : (
          all
        ),
      );
    }
    rest = rest.slice(m.index + all.length);
  }
  if (rest) out.push(rest);
  return out;
}

export function Markdown({ text, sources = [] }: { text: string; sources?: string[] }) {
  const lines = text.split("\n");
  const blocks: ComponentChildren[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith("```")) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith("```"); i++) code.push(lines[i]!);
      i++;
      blocks.push(
        <pre>
          <code>{code.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Inside a reply, headings are emphasis, not page structure (the page keeps one outline).
      blocks.push(<p class="md-heading">{inline(heading[2]!, sources)}</p>);
      i++;
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /\d/.test(line.trim()[0]!);
      const items: ComponentChildren[] = [];
      for (; i < lines.length && item.test(lines[i]!); i++) {
        items.push(<li>{inline(lines[i]!.replace(item, ""), sources)}</li>);
      }
      blocks.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>);
      continue;
    }
    if (line.startsWith(">")) {
      const quote: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith(">"); i++) quote.push(lines[i]!.replace(/^>\s?/, ""));
      blocks.push(<blockquote>{inline(quote.join(" "), sources)}</blockquote>);
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i]!.trim() && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]!); i++) {
      para.push(lines[i]!);
    }
    blocks.push(<p>{inline(para.join("\n"), sources)}</p>);
  }
  return <div class="md">{blocks}</div>;
}
