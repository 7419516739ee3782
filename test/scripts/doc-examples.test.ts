/**
 * The docs' examples checker (scripts/doc-examples.mjs, run by `npm run test:pack` against the
 * packed package): each page's TypeScript blocks compiled as one module after its prelude, a
 * block with the skip marker left out, and each error reported at its line of the markdown.
 */
import { describe, expect, it } from 'vitest'
import { COMPILER_OPTIONS, checkPages, pageModule } from '../../scripts/doc-examples.mjs'
import { tempDir } from '../temp-dir.js'

// node's types are not there in a bare temporary directory; nothing below needs them
const options = { ...COMPILER_OPTIONS, types: [] }
const check = (markdown: string) =>
  checkPages([{ name: 'docs/page.md', markdown }], { dir: tempDir(), options })

const fence = '```'
const page = [
  '# A page', // 1
  '', // 2
  '<!-- ts-prelude', // 3
  'declare const cardReference: string', // 4
  '-->', // 5
  '', // 6
  `${fence}ts`, // 7
  'const reference: string = cardReference', // 8
  fence, // 9
  '', // 10
  'Then:', // 11
  '', // 12
  `${fence}typescript`, // 13
  'const length: number = reference.length', // 14
  "const wrong: number = 'not a number'", // 15
  fence, // 16
  '', // 17
  '<!-- ts-check: skip -->', // 18
  `${fence}ts`, // 19
  "const skipped: number = 'never compiled'", // 20
  fence, // 21
  '', // 22
  `${fence}sh`, // 23
  'npx card-sandbox', // 24
  fence, // 25
].join('\n')

describe('the docs examples checker', () => {
  it('reports a block that does not compile at its line of the markdown, with the message', () => {
    const { errors, compiled } = check(page)
    expect(errors).toEqual([
      "docs/page.md:15: error TS2322: Type 'string' is not assignable to type 'number'.",
    ])
    expect(compiled).toBe(2)
  })

  it('sees the prelude and the earlier blocks: one module per page', () => {
    // line 8 reads the prelude's cardReference, line 14 the first block's reference
    const seen = check(page).errors
    expect(seen.filter((e) => /^docs\/page\.md:(8|14):/.test(e))).toEqual([])
    // without the prelude, line 8 is an error
    const { errors } = check(page.replace('declare const cardReference: string', ''))
    expect(errors).toContain(
      "docs/page.md:8: error TS2552: Cannot find name 'cardReference'. Did you mean 'reference'?",
    )
  })

  it('leaves out a block marked to skip, and only that one', () => {
    const { errors, skipped } = check(page)
    expect(skipped).toBe(1)
    expect(errors.some((e) => e.startsWith('docs/page.md:20:'))).toBe(false)
    // a blank line between the marker and the fence is allowed (Prettier puts one there)
    const spaced = check(page.replace('<!-- ts-check: skip -->\n', '<!-- ts-check: skip -->\n\n'))
    expect(spaced).toMatchObject({ skipped: 1, compiled: 2 })
    // the marker belongs to the block right after it: a sentence between, the block is compiled
    const unmarked = check(
      page.replace('<!-- ts-check: skip -->\n', '<!-- ts-check: skip -->\nText.\n'),
    )
    expect(unmarked.skipped).toBe(0)
    expect(unmarked.errors).toContain(
      "docs/page.md:21: error TS2322: Type 'string' is not assignable to type 'number'.",
    )
  })

  it('gives a block that redeclares a name its own scope, still seeing what came before', () => {
    const files = [
      '<!-- ts-prelude',
      'declare const base: string',
      '-->',
      `${fence}ts`, // 4
      "import { join } from 'node:path'",
      'const sandbox = join(base, "a")',
      fence,
      `${fence}ts`, // 8
      "import { join } from 'node:path'", // the same import again: dropped
      "import { basename } from 'node:path'",
      'const sandbox: number = join(base).length', // 11: its own `sandbox`, the prelude's base
      'const name: string = basename(sandbox)', // 12: a number where a string goes
      fence,
    ].join('\n')
    const module = pageModule(files)
    expect(module.text).toContain('{\nconst sandbox: number')
    const { errors } = checkPages([{ name: 'docs/files.md', markdown: files }], {
      dir: tempDir(),
      options: { ...options, types: ['node'] },
    })
    expect(errors).toEqual([
      "docs/files.md:12: error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.",
    ])
  })

  it('maps each line of the module back to the markdown', () => {
    const { text, lines } = pageModule(page)
    const source = page.split('\n')
    text
      .split('\n')
      .forEach((line, i) => lines[i] != null && expect(source[lines[i]! - 1]).toBe(line))
    expect(lines.filter((l) => l != null)).toEqual([4, 8, 14, 15])
  })
})
