// Relative link and image targets of a Markdown text (`[x](docs/a.md)`, `![x](docs/images/a.png)`), anchors
// dropped, URLs with a scheme left out. Used by scripts/package.mjs (ship what the README links) and by the README test.
export function relativeLinks(markdown) {
  const out = new Set();
  for (const m of markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1].split("#")[0];
    if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    out.add(decodeURI(target));
  }
  return [...out];
}
