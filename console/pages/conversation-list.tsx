/** The playground's conversations: newest first, more as the list scrolls (cursor pages), each with its knowledge base. */
import { useEffect, useRef } from "preact/hooks";
import { useKbName } from "../names.ts";

export interface Conversation {
  id: string;
  title: string;
  updated_at: string;
  knowledge_base_id: string | null;
}

function Item(props: { c: Conversation; active: boolean; open: () => void; remove: () => void }) {
  const { c } = props;
  const kb = useKbName(c.knowledge_base_id);
  return (
    <li class={props.active ? "active" : ""}>
      <span class="conv">
        <button type="button" class="link" onClick={props.open}>
          {c.title || "(untitled)"}
        </button>
        {kb && <span class="kb">{kb}</span>}
      </span>
      <button type="button" class="icon" aria-label={`Delete ${c.title}`} onClick={props.remove}>
        ✕
      </button>
    </li>
  );
}

export function ConversationList(props: {
  list: Conversation[];
  open: string | null;
  more: boolean;
  loadMore: () => void;
  onOpen: (id: string) => void;
  onRemove: (id: string) => void;
}) {
  const sentinel = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && props.loadMore());
    io.observe(el);
    return () => io.disconnect();
  });
  return (
    <ul class="conversations">
      {props.list.map((c) => (
        <Item
          key={c.id}
          c={c}
          active={c.id === props.open}
          open={() => props.onOpen(c.id)}
          remove={() => props.onRemove(c.id)}
        />
      ))}
      {props.more && (
        <li ref={sentinel}>
          <button type="button" class="link" onClick={props.loadMore}>
            Load more
          </button>
        </li>
      )}
    </ul>
  );
}
