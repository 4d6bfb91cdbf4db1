/**
 * The only way the webview builds DOM: elements with text set through textContent, never innerHTML. Everything
 * displayed (skill names, task ids, reasons, model output) is untrusted, so there is no HTML path to inject into.
 */
export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    // Event-handler attributes would be a script path; refuse them outright.
    if (/^on/i.test(k)) throw new Error(`refusing event attribute ${k}`);
    node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return node;
}

export function clear(node: Element): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
