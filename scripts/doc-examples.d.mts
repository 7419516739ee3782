// The types of doc-examples.mjs (plain JavaScript, run by check-pack.mjs and tested by
// test/scripts/doc-examples.test.ts).

export type MarkdownLine = { text: string; line: number }

/** A page's prelude and its TypeScript blocks; `skipped`: the opening-fence lines left out. */
export function readPage(markdown: string): {
  prelude: MarkdownLine[]
  blocks: { open: number; close: number; lines: MarkdownLine[] }[]
  skipped: number[]
}

/** The module a page compiles to, and for each of its lines the markdown line (null: added). */
export function pageModule(markdown: string): {
  text: string
  lines: (number | null)[]
  blocks: number
  skipped: number[]
}

export const COMPILER_OPTIONS: Record<string, unknown>

/** Type-checks each page's module in `dir`: the errors as `<page>:<line>: <message>`. */
export function checkPages(
  pages: { name: string; markdown: string }[],
  options: { dir: string; options?: Record<string, unknown> },
): { errors: string[]; compiled: number; skipped: number }
