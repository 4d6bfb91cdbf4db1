export function relativeLinks(markdown: string): string[];
