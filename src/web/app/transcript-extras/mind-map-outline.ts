/** One idea of the mind map and the ideas under it. */
export type MindMapNode = { text: string; children: MindMapNode[] };

/**
 * Headings nest by their level (`#`, `##`, ...); list items (`-`, `*`, `+`, `1.`) nest under the heading
 * above them and under each other by indentation; any other line is a leaf there. List items rank below every
 * heading, so `- point` after `## topic` is always the topic's child, whatever its indentation.
 */
const listDepthBase = 10;

function lineOf(raw: string): { depth: number; text: string } | null {
  const heading = /^\s*(#{1,6})\s+(.*)$/.exec(raw);
  if (heading) return { depth: heading[1]!.length, text: heading[2]!.trim() };
  const item = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/.exec(raw);
  // A tab counts as a level, as do two spaces: outlines are written both ways.
  if (item) return { depth: listDepthBase + Math.floor(item[1]!.replace(/\t/g, "  ").length / 2), text: item[2]!.trim() };
  const text = raw.trim();
  return text === "" ? null : { depth: listDepthBase, text };
}

/**
 * The API's mind map (`mindmap`, "a Markdown-style outline text"; the extractive summarizer writes `# title`,
 * `## topic` per section and `- point` under each) as a tree. The outline's roots are returned: usually one,
 * the title.
 */
export function parseMindMap(outline: string): MindMapNode[] {
  const roots: MindMapNode[] = [];
  const open: { depth: number; node: MindMapNode }[] = [];
  for (const raw of outline.split(/\r?\n/)) {
    const line = lineOf(raw);
    if (!line || line.text === "") continue;
    while (open.length > 0 && open[open.length - 1]!.depth >= line.depth) open.pop();
    const node: MindMapNode = { text: line.text, children: [] };
    const parent = open[open.length - 1];
    (parent ? parent.node.children : roots).push(node);
    open.push({ depth: line.depth, node });
  }
  return roots;
}
