import { useMemo, useRef } from "preact/hooks";
import { parseMindMap, type MindMapNode } from "./mind-map-outline.ts";

/**
 * A branch is a `<details>`: its `<summary>` is a control that opens and closes it with Enter or Space, and
 * screen readers announce it as expanded or collapsed, with no script of ours. Branches start open: the map
 * is short (a title, five topics, a few points each), and a closed one would hide most of it.
 */
function Branch({ node }: { node: MindMapNode }) {
  if (node.children.length === 0) return <li>{node.text}</li>;
  return (
    <li>
      <details open>
        <summary>{node.text}</summary>
        <ul>
          {node.children.map((child, index) => (
            <Branch key={index} node={child} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/** The task's mind map as a collapsible tree, with buttons that open or close every branch at once. */
export function MindMap({ outline }: { outline: string }) {
  const roots = useMemo(() => parseMindMap(outline), [outline]);
  const tree = useRef<HTMLUListElement>(null);
  const setAll = (open: boolean) => {
    for (const branch of tree.current?.querySelectorAll("details") ?? []) branch.open = open;
  };
  if (roots.length === 0) return null;
  return (
    <section aria-labelledby="mind-map" class="mind-map">
      <h2 id="mind-map">Mind map</h2>
      <p class="actions">
        <button type="button" onClick={() => setAll(true)}>
          Expand all
        </button>
        <button type="button" onClick={() => setAll(false)}>
          Collapse all
        </button>
      </p>
      <ul ref={tree} class="tree">
        {roots.map((node, index) => (
          <Branch key={index} node={node} />
        ))}
      </ul>
    </section>
  );
}
